// Shipping zones, rates and tax by destination in a real browser (issue 26, decision 051): a US
// and an EU buyer see different shipping and tax and pay exactly the quoted amount; a country
// with no zone is refused before payment; the console edits a rate and an open checkout sees the
// new quote on its next change. The label's settings go back to the spec's default afterwards.
import { type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { CART_STORAGE_KEY, WALLET_PREFERENCE_KEY } from '@storefront/domain/cart.ts';
import { DEFAULT_SHIPPING_TAX_CONFIG, SHIPPING_TAX_MESSAGES, type ShippingTaxConfig } from '@storefront/domain/shipping-tax.ts';
import { RELEASE_MESSAGES } from '@storefront/domain/catalog.ts';
import { STOCK_MESSAGES } from '@storefront/domain/variants.ts';
import { seriousAxeProblems } from './support/axe.ts';
import { test, expect, DEMO_ADMIN, DEMO_SHOPPER, ORIGIN } from './support/fixtures.ts';
import { rememberingLogIn } from './support/login.ts';
// The shop's one money formatter (issue 34): the texts the pages show.
import { formatUsd as usd } from '@storefront/domain/money.ts';

const COVER = '/content/covers/cover-01.svg';
// Money worked out here, not by the code under test.
const grossUp = (cents: number) => Math.ceil(((cents + 30) * 1000) / 971);

const LABEL: ShippingTaxConfig = {
  taxProvider: 'builtin',
  zones: [
    {
      id: 'us',
      name: 'United States',
      regions: ['US'],
      ships: true,
      freeOverCents: null,
      methods: [{ id: 'standard', name: 'Standard', basis: 'item', firstCents: 600, extraCents: 150, stepGrams: 1000 }],
    },
    {
      id: 'eu',
      name: 'EU',
      regions: ['DE', 'FR'],
      ships: true,
      freeOverCents: null,
      methods: [
        { id: 'standard', name: 'Standard', basis: 'order', firstCents: 1500, extraCents: 0, stepGrams: 1000 },
        { id: 'express', name: 'Express', basis: 'order', firstCents: 3000, extraCents: 0, stepGrams: 1000 },
      ],
    },
  ],
  taxRules: [
    { region: 'US-CA', name: 'California', physicalBasisPoints: 725, digitalBasisPoints: 0, shippingTaxable: false, pricesIncludeTax: false },
    { region: 'DE', name: 'Germany', physicalBasisPoints: 1900, digitalBasisPoints: 1900, shippingTaxable: true, pricesIncludeTax: true },
  ],
};

let adminTokenValue: string | undefined;
async function callAsAdmin<T>(request: APIRequestContext, name: string, data: unknown): Promise<T> {
  if (!adminTokenValue) {
    const response = await request.post('/api/auth/sign-in/email', { data: DEMO_ADMIN, headers: { origin: ORIGIN } });
    expect(response.ok(), await response.text()).toBe(true);
    adminTokenValue = response.headers()['set-auth-token']!;
  }
  const response = await request.post(`/fn/${name}`, { headers: { authorization: `Bearer ${adminTokenValue}` }, data: { data } });
  expect(response.ok(), await response.text()).toBe(true);
  return ((await response.json()) as { data: T }).data;
}

async function saveSettings(request: APIRequestContext, config: ShippingTaxConfig) {
  const { version } = await callAsAdmin<{ version: number }>(request, 'getShippingTaxConfig', null);
  await callAsAdmin(request, 'saveShippingTaxConfig', { config, version });
}

async function releaseLp(request: APIRequestContext) {
  const name = `E2E Zone LP ${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const { id } = await callAsAdmin<{ id: string }>(request, 'releaseBizarreProduct', { name, description: `${name}, for a browser test.`, priceCents: 2500, images: [COVER] });
  return { id, name };
}

/** A card checkout (wallet off) of one LP, on /checkout. */
async function openCheckout(page: Page, product: { id: string; name: string }) {
  if (page.url() === 'about:blank') await page.goto('/home');
  const cart = { id: 'cart', qty: 1, url: '/checkout', lines: [{ lineId: product.id, title: product.name, image: COVER, priceCents: 2500, qty: 1 }] };
  await page.evaluate(
    ([cartKey, cartValue, walletKey]) => {
      localStorage.setItem(cartKey, cartValue);
      localStorage.setItem(walletKey, 'stripe');
    },
    [CART_STORAGE_KEY, JSON.stringify(cart), WALLET_PREFERENCE_KEY] as const,
  );
  await page.goto('/checkout');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Checkout');
}

async function fillAddress(page: Page, address: { line1: string; city: string; state: string; postal: string; country: string }) {
  await page.getByLabel('Full name').fill('Demo Shopper');
  await page.getByLabel('Address line 1').fill(address.line1);
  await page.getByLabel('City').fill(address.city);
  await page.getByLabel('Country').selectOption(address.country);
  await page.getByLabel('State / region').fill(address.state);
  await page.getByLabel('Postal code').fill(address.postal);
}

const amount = (scope: Locator, label: string) => scope.locator('dt', { hasText: new RegExp(`^${label.replace(/[()]/g, '\\$&')}$`) }).locator('xpath=following-sibling::dd[1]');
const summaryOf = (page: Page) => page.getByRole('complementary', { name: 'Order summary' });

async function payOnLocalPage(page: Page, charge: number) {
  await expect(page).toHaveURL(/\/pay\/[^/]+$/);
  await page.getByLabel('Card number').fill('4242 4242 4242 4242');
  await page.getByRole('button', { name: `Pay ${usd(charge)}` }).click();
  await expect(page).toHaveURL(/\/order-confirmation\?payment_intent=pi_[^&]+&redirect_status=succeeded$/);
}

const logIn = rememberingLogIn();

test.describe('shipping zones and tax by destination', () => {
  test.beforeAll(async ({ request }) => saveSettings(request, LABEL));
  test.afterAll(async ({ request }) => saveSettings(request, DEFAULT_SHIPPING_TAX_CONFIG));

  test.beforeEach(({ consoleErrors }) => {
    // The shopper's saved address (GB, from other specs) has no zone here: its quote is refused (400) until the form is filled.
    consoleErrors.allow(/status of 400/);
  });

  test('a US buyer and an EU buyer see different shipping and tax, and each pays exactly the quote', async ({ page, request, consoleErrors }) => {
    consoleErrors.allow(/status of 404 .*\[.*\/favicon\.ico\]$/);
    const lp = await releaseLp(request);
    await logIn(page, DEMO_SHOPPER);

    await openCheckout(page, lp);
    await fillAddress(page, { line1: '1 Main St', city: 'Los Angeles', state: 'CA', postal: '90001', country: 'US' });
    const summary = summaryOf(page);
    // California: 600 shipping, 7.25% of the goods only (181); the card grossed up as ever.
    const usTotal = 2500 + 600 + 181;
    await expect(amount(summary, 'Shipping')).toHaveText(usd(600));
    await expect(amount(summary, 'Tax (California)')).toHaveText(usd(181));
    await expect(amount(summary, 'Total')).toHaveText(usd(usTotal));
    await expect(amount(summary, 'Charged to card')).toHaveText(usd(grossUp(usTotal)));
    await page.getByRole('button', { name: 'Place order' }).click();
    await payOnLocalPage(page, grossUp(usTotal));
    await expect(amount(page.getByRole('region', { name: 'Your order' }), 'Tax (California)')).toHaveText(usd(181));

    await openCheckout(page, lp);
    await fillAddress(page, { line1: 'Hauptstr. 1', city: 'Berlin', state: '', postal: '10115', country: 'DE' });
    // Germany: 15.00 shipping, 19% VAT inside 40.00 (639), nothing added; Express on offer.
    await expect(amount(summary, 'Shipping')).toHaveText(usd(1500));
    await expect(amount(summary, 'Tax included (Germany)')).toHaveText(usd(639));
    await expect(amount(summary, 'Total')).toHaveText(usd(4000));
    await page.getByRole('radio', { name: /Express/ }).check();
    await expect(amount(summary, 'Shipping')).toHaveText(usd(3000));
    // A method is chosen for one destination: France (same zone, no tax rule) starts again from Standard.
    await page.getByLabel('Country').selectOption('FR');
    await expect(amount(summary, 'Shipping')).toHaveText(usd(1500));
    await expect(amount(summary, 'Tax')).toHaveText(usd(0));
    await page.getByLabel('Country').selectOption('DE');
    await expect(page.getByRole('radio', { name: /Standard/ })).toBeChecked();
    await page.getByRole('radio', { name: /Express/ }).check();
    await expect(amount(summary, 'Shipping')).toHaveText(usd(3000));
    // 5500 x 19 / 119 = 878.15 -> 878.
    await expect(amount(summary, 'Tax included (Germany)')).toHaveText(usd(878));
    await expect(amount(summary, 'Charged to card')).toHaveText(usd(grossUp(5500)));
    await page.getByRole('button', { name: 'Place order' }).click();
    await payOnLocalPage(page, grossUp(5500));
    await page.getByRole('link', { name: 'View My Orders' }).click();
    const card = page.getByRole('article').filter({ hasText: lp.name }).filter({ hasText: 'Hauptstr. 1' });
    await expect(amount(card, 'Charged to card')).toHaveText(usd(grossUp(5500)));
    await expect(amount(card, 'Tax included (Germany)')).toHaveText(usd(878));
  });

  test('a country with no zone is refused before any payment, with the reason', async ({ page, request }) => {
    const lp = await releaseLp(request);
    await logIn(page, DEMO_SHOPPER);
    await openCheckout(page, lp);
    await fillAddress(page, { line1: '1-1 Jingumae', city: 'Tokyo', state: '', postal: '150-0002', country: 'JP' });
    await expect(summaryOf(page).getByText(SHIPPING_TAX_MESSAGES.noShipping)).toBeVisible();
    await page.getByRole('button', { name: 'Place order' }).click();
    await expect(page).toHaveURL(/\/checkout$/);
    expect(await page.evaluate((key) => localStorage.getItem(key), CART_STORAGE_KEY)).toContain(lp.id);
  });

  test('the console edits a rate, and an open checkout sees the new quote on its next change', async ({ page, browser, request, consoleErrors }) => {
    const lp = await releaseLp(request);
    await logIn(page, DEMO_SHOPPER);
    await openCheckout(page, lp);
    await fillAddress(page, { line1: '1 Main St', city: 'Austin', state: 'TX', postal: '73301', country: 'US' });
    const summary = summaryOf(page);
    await expect(amount(summary, 'Shipping')).toHaveText(usd(600));

    const adminContext = await browser.newContext();
    const desk = await adminContext.newPage();
    consoleErrors.watch(desk);
    await logIn(desk, DEMO_ADMIN);
    await desk.goto('/release/shipping');
    await expect(desk.getByRole('heading', { name: 'Shipping & tax' })).toBeVisible();
    expect(await seriousAxeProblems(desk)).toEqual([]);
    const usZone = desk.getByRole('group', { name: 'United States' });
    await usZone.getByLabel('First (USD)').fill('7.25');
    await desk.getByRole('button', { name: 'Save shipping & tax' }).click();
    await expect(desk.getByRole('status').filter({ hasText: 'Shipping and tax saved.' })).toBeVisible();
    await adminContext.close();

    // The shopper's next change (another state) re-quotes with the new rate.
    await page.getByLabel('State / region').fill('CA');
    await expect(amount(summary, 'Shipping')).toHaveText(usd(725));
    await expect(amount(summary, 'Tax (California)')).toHaveText(usd(181));
    await expect(amount(summary, 'Total')).toHaveText(usd(2500 + 725 + 181));
  });

  test('the label weighs a record in the product form, and the checkout charges its weight bracket', async ({ page, browser, request, consoleErrors }) => {
    const lp = await releaseLp(request);
    const byWeight: ShippingTaxConfig = {
      taxProvider: 'builtin',
      zones: [
        {
          id: 'us',
          name: 'United States',
          regions: ['US'],
          ships: true,
          freeOverCents: null,
          methods: [
            {
              id: 'parcel',
              name: 'Parcel',
              basis: 'weight',
              firstCents: 0,
              extraCents: 300,
              stepGrams: 500,
              brackets: [
                { upToGrams: 500, cents: 600 },
                { upToGrams: 1000, cents: 850 },
              ],
            },
          ],
        },
      ],
      taxRules: DEFAULT_SHIPPING_TAX_CONFIG.taxRules,
    };
    await saveSettings(request, byWeight);

    // The admin weighs it on the product's edit form: a wrong weight is refused with a sentence.
    const adminContext = await browser.newContext();
    const admin = await adminContext.newPage();
    consoleErrors.watch(admin);
    await logIn(admin, DEMO_ADMIN);
    await admin.goto(`/product/${lp.id}`);
    await admin.getByRole('button', { name: 'Edit' }).click();
    const weight = admin.getByLabel('Weight in grams of Default');
    await expect(weight).toHaveValue('');
    await weight.fill('1.5 kg');
    await admin.getByRole('button', { name: 'Save Changes' }).click();
    await expect(admin.getByRole('alert').filter({ hasText: STOCK_MESSAGES.weight })).toBeVisible();
    await weight.fill('800');
    await admin.getByRole('button', { name: 'Save Changes' }).click();
    await expect(admin.locator('.Toastify').getByText(RELEASE_MESSAGES.updated, { exact: true })).toBeVisible();
    await admin.getByRole('button', { name: 'Edit' }).click();
    await expect(admin.getByLabel('Weight in grams of Default')).toHaveValue('800');
    // The product's default weight, for variants without their own: kept, and checked the same way.
    await admin.getByLabel('Default weight (g)').fill('-5');
    await admin.getByRole('button', { name: 'Save Changes' }).click();
    // The same sentence as the first refusal's, whose toast may still be showing.
    await expect(admin.getByRole('alert').filter({ hasText: STOCK_MESSAGES.weight }).last()).toBeVisible();
    await admin.getByLabel('Default weight (g)').fill('300');
    await admin.getByRole('button', { name: 'Save Changes' }).click();
    await expect(admin.locator('.Toastify').getByText(RELEASE_MESSAGES.updated, { exact: true }).first()).toBeVisible();
    await admin.getByRole('button', { name: 'Edit' }).click();
    await expect(admin.getByLabel('Default weight (g)')).toHaveValue('300');
    await adminContext.close();

    // 800 g: the bracket up to 1 kg, $8.50; the spec's 9.25% on goods and shipping (309.875 -> 310).
    await logIn(page, DEMO_SHOPPER);
    await openCheckout(page, lp);
    await fillAddress(page, { line1: '1 Main St', city: 'Austin', state: 'TX', postal: '73301', country: 'US' });
    const summary = summaryOf(page);
    const total = 2500 + 850 + 310;
    await expect(amount(summary, 'Shipping')).toHaveText(usd(850));
    await expect(amount(summary, 'Tax')).toHaveText(usd(310));
    await expect(amount(summary, 'Total')).toHaveText(usd(total));
    await page.getByRole('button', { name: 'Place order' }).click();
    await payOnLocalPage(page, grossUp(total));
    const receipt = page.getByRole('region', { name: 'Your order' });
    await expect(amount(receipt, 'Shipping')).toHaveText(usd(850));
    await expect(amount(receipt, 'Charged to card')).toHaveText(usd(grossUp(total)));
  });
});
