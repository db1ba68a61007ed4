// Issue 17's deviations and rough edges, in a real browser: logout always lands on /home,
// the cart's wallet answer on /checkout, one signup order on both sides, errors that are
// sentences, a payment link without a URL, a one-row header at every desktop width, and
// content pages that read like a label's (with a designed empty state for a new shop).
import { type Page } from '@playwright/test';
import { createVerifiedUser } from './support/accounts.ts';
import { test, expect, DEMO_ADMIN, DEMO_SHOPPER } from './support/fixtures.ts';
import { logIn } from './support/login.ts';
import { SIGNUP_MESSAGES } from '@storefront/domain/accounts.ts';
import { CART_STORAGE_KEY, WALLET_PREFERENCE_KEY } from '@storefront/domain/cart.ts';
import { CHECKOUT_MESSAGES } from '@storefront/domain/pricing.ts';
import { COMING_SOON } from '../apps/web/src/features/content/messages.ts';
import { CHECKOUT_TEXTS } from '../apps/web/src/features/checkout/messages.ts';
import { ERROR_SENTENCES } from '../apps/web/src/lib/error-message.ts';

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

/**
 * A seeded product with unlimited stock (the Record Tote Bag), put into the saved cart as Add to
 * Cart would. Not the newest product: other specs release products, some with limited stock.
 */
async function cartWithOneProduct(page: Page) {
  const { products } = (await (await page.request.get(`/api/products?q=${encodeURIComponent('Record Tote Bag')}`)).json()) as {
    products: { id: string; name: string; priceCents: number; images: string[] }[];
  };
  const product = products.find((p) => p.name === 'Record Tote Bag')!;
  const cart = {
    id: 'cart',
    qty: 1,
    url: '/checkout',
    lines: [{ lineId: product.id, title: product.name, image: product.images[0], priceCents: product.priceCents, qty: 1 }],
  };
  await page.evaluate(([key, value]) => localStorage.setItem(key, value), [CART_STORAGE_KEY, JSON.stringify(cart)] as const);
  return product;
}

async function setWalletPreference(page: Page, value: 'wallet' | 'stripe') {
  await page.evaluate(([key, choice]) => localStorage.setItem(key, choice), [WALLET_PREFERENCE_KEY, value] as const);
}

async function fillCheckout(page: Page) {
  await page.getByLabel('Address line 1').fill('4 Fourth Street');
  await page.getByLabel('City').fill('London');
  await page.getByLabel('Postal code').fill('N1 9GU');
  await page.getByLabel('Country').selectOption('GB');
}

test.describe('logout', () => {
  for (const [path, heading, who] of [
    ['/wallet', 'Wallet', 'new'],
    ['/my-orders', 'My Orders', 'new'],
    ['/checkout', 'Checkout', 'new'],
    ['/release', 'Release', 'admin'],
  ] as const) {
    test(`from ${path} lands on /home, signed out`, async ({ page, request }) => {
      await logIn(page, who === 'admin' ? DEMO_ADMIN : await createVerifiedUser(request));
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(heading);
      await nav(page).getByRole('button', { name: 'LOGOUT' }).click();
      await expect(nav(page).getByRole('link', { name: 'LOGIN' })).toBeVisible();
      await expect(page).toHaveURL(/\/home$/);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Street Flavor Records');
      // And it stays there: no signed-in page sends the visitor on to /login.
      await page.waitForTimeout(500);
      await expect(page).toHaveURL(/\/home$/);
      expect(await (await page.request.get('/api/me')).json()).toEqual({ user: null });
    });
  }

  test('from the phone menu on /wallet lands on /home too', async ({ page, request }) => {
    await page.setViewportSize({ width: 375, height: 800 });
    await logIn(page, await createVerifiedUser(request));
    await page.goto('/wallet');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Wallet');
    await page.getByRole('button', { name: 'Menu' }).click();
    await nav(page).getByRole('button', { name: 'LOGOUT' }).click();
    await expect(page).toHaveURL(/\/home$/);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Street Flavor Records');
    await page.waitForTimeout(500);
    await expect(page).toHaveURL(/\/home$/);
  });
});

test("answering the cart's wallet dialog on /checkout sets the toggle and closes the panel", async ({ page }) => {
  await logIn(page, DEMO_SHOPPER);
  await cartWithOneProduct(page);
  await setWalletPreference(page, 'stripe');
  await page.goto('/checkout');
  const toggle = page.getByRole('switch', { name: CHECKOUT_TEXTS.walletToggle });
  await expect(toggle).not.toBeChecked();

  const panel = page.getByRole('dialog', { name: 'Cart' });
  const ask = async (answer: 'Yes' | 'No') => {
    await page.getByRole('button', { name: /^Cart, 1 item$/ }).click();
    await expect(panel).toBeVisible();
    await panel.getByRole('button', { name: 'Checkout' }).click();
    const dialog = page.getByRole('dialog', { name: CHECKOUT_MESSAGES.walletPrompt });
    await dialog.getByRole('button', { name: answer, exact: true }).click();
    await expect(dialog).toBeHidden();
    await expect(panel).toBeHidden();
    await expect(page).toHaveURL(/\/checkout$/);
  };

  await ask('Yes');
  await expect(toggle).toBeChecked();
  expect(await page.evaluate((key) => localStorage.getItem(key), WALLET_PREFERENCE_KEY)).toBe('wallet');
  await ask('No');
  await expect(toggle).not.toBeChecked();
  expect(await page.evaluate((key) => localStorage.getItem(key), WALLET_PREFERENCE_KEY)).toBe('stripe');
});

test('a blocked domain with empty fields gets the domain message in the browser, as from the server', async ({ page, request }) => {
  const form = { email: 'someone@mailinator.com', password: '', confirmPassword: '', name: '', username: '', acceptedTerms: true };
  const server = await request.post('/fn/createAccount', { data: { data: form } });
  expect(server.status()).toBe(400);
  expect(((await server.json()) as { error: { message: string } }).error.message).toBe(SIGNUP_MESSAGES.blockedDomain);

  const sent: string[] = [];
  page.on('request', (sentRequest) => {
    if (sentRequest.url().includes('/fn/createAccount')) sent.push(sentRequest.url());
  });
  await page.goto('/signup');
  await page.getByLabel('Email').fill(form.email);
  // The shop's settings (the blocked domains) have arrived once the page is interactive.
  await page.waitForLoadState('networkidle');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  const terms = page.getByRole('dialog', { name: 'Terms of Service' });
  await terms.getByLabel('I have read and agree to the Terms of Service.').check();
  await terms.getByRole('button', { name: 'Agree and Create Account' }).click();
  await expect(terms).toBeHidden();
  await expect(page.getByRole('alert')).toHaveText(SIGNUP_MESSAGES.blockedDomain);
  expect(sent, "the browser decided by itself, in the server's order").toEqual([]);

  // With an allowed domain the next check in the spec's order speaks.
  await page.getByLabel('Email').fill('someone@example.com');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await terms.getByRole('button', { name: 'Agree and Create Account' }).click();
  await expect(page.getByRole('alert')).toHaveText(SIGNUP_MESSAGES.mandatoryFields);
});

test.describe('checkout failures', () => {
  test('a timeout reads as a sentence, never as a raw code', async ({ page, consoleErrors }) => {
    consoleErrors.allow(/status of 504/);
    await logIn(page, DEMO_SHOPPER);
    await cartWithOneProduct(page);
    await setWalletPreference(page, 'wallet');
    // The gateway gives up on the order call, as it would on a hung server.
    await page.route('**/fn/completeWalletOnlyOrderStreetFlavor', (route) =>
      route.fulfill({ status: 504, contentType: 'application/json', body: JSON.stringify({ error: { status: 'DEADLINE_EXCEEDED', message: 'deadline-exceeded' } }) }),
    );
    await page.goto('/checkout');
    await fillCheckout(page);
    await expect(page.getByText(CHECKOUT_TEXTS.walletCovers)).toBeVisible();
    await page.getByRole('button', { name: 'Place order' }).click();
    const notice = page.locator('.checkout-notice');
    await expect(notice).toHaveText(`${CHECKOUT_MESSAGES.placeFailed} ${ERROR_SENTENCES['deadline-exceeded']}`);
    await expect(page.locator('main')).not.toContainText('deadline-exceeded');
    await expect(page).toHaveURL(/\/checkout$/);
  });

  test('a payment link without a URL shows a message and stays on checkout', async ({ page }) => {
    await logIn(page, DEMO_SHOPPER);
    await cartWithOneProduct(page);
    await setWalletPreference(page, 'stripe');
    await page.route('**/fn/createPaymentLinkStreetFlavorMerch', (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ data: { ok: true } }) }),
    );
    await page.goto('/checkout');
    await fillCheckout(page);
    await expect(page.getByText(/You will pay \$\d+\.\d\d by card on the next page\./)).toBeVisible();
    await page.getByRole('button', { name: 'Place order' }).click();
    await expect(page.locator('.checkout-notice')).toHaveText(`${CHECKOUT_MESSAGES.startFailed} ${CHECKOUT_TEXTS.noPaymentPage}`);
    await expect(page.getByText(CHECKOUT_MESSAGES.startFailedToast)).toBeVisible();
    await page.waitForTimeout(300);
    await expect(page).toHaveURL(/\/checkout$/);
    await expect(page.getByRole('button', { name: 'Place order' })).toBeEnabled();
  });
});

/** Every part of the bar shares one row, nothing sticks out, the social icons show. */
async function expectOneRowHeader(page: Page, width: number) {
  await page.setViewportSize({ width, height: 800 });
  await expect(nav(page).getByRole('button', { name: 'LOGOUT' })).toBeVisible();
  const social = nav(page).getByRole('link', { name: /on (Instagram|YouTube|X)$/ });
  await expect(social).toHaveCount(3);
  for (const link of await social.all()) await expect(link, `social icon at ${width} px`).toBeVisible();
  await expect(page.getByRole('button', { name: 'Menu' })).toBeHidden();
  const layout = await page.evaluate(() => {
    const bar = document.querySelector('.site-header__bar')!;
    const parts = [...document.querySelectorAll('.site-header__start, .site-nav__item, .site-nav__social li')].map((part) => part.getBoundingClientRect());
    const middles = parts.map((rect) => rect.top + rect.height / 2);
    return {
      spread: Math.max(...middles) - Math.min(...middles),
      overflow: bar.scrollWidth - bar.clientWidth,
      right: Math.max(...parts.map((rect) => rect.right)),
      height: bar.getBoundingClientRect().height,
    };
  });
  expect(layout.spread, `one row at ${width} px`).toBeLessThan(4);
  expect(layout.overflow, `nothing overflows at ${width} px`).toBeLessThanOrEqual(0);
  expect(layout.right, `inside the window at ${width} px`).toBeLessThanOrEqual(width);
  expect(layout.height, `one row's height at ${width} px`).toBeLessThan(80);
}

test('the signed-in header is one row at every desktop width, social icons included', async ({ page }) => {
  await logIn(page, DEMO_SHOPPER);
  await page.goto('/shop');
  for (const width of [1920, 1440, 1280, 1024, 1000, 960, 900, 850, 800, 768, 726]) await expectOneRowHeader(page, width);
  // The dropdown keeps its name where it reads "TDC".
  await expect(nav(page).getByRole('button', { name: 'TDC MARKET PLACE' })).toBeVisible();
  // The logo keeps its name where the monogram shows.
  await expect(page.getByRole('link', { name: 'STREET FLAVOR RECORDS', exact: true })).toBeVisible();

  // Below 726 px: logo, cart and the menu button on one row; the menu holds the rest.
  for (const width of [725, 375]) {
    await page.setViewportSize({ width, height: 800 });
    const toggle = page.getByRole('button', { name: 'Menu' });
    await expect(toggle).toBeVisible();
    await expect(nav(page)).toBeHidden();
    const bar = await page.locator('.site-header__bar').boundingBox();
    expect(bar!.height).toBeLessThan(80);
    await toggle.click();
    await expect(nav(page).getByRole('button', { name: 'LOGOUT' })).toBeVisible();
    await expect(nav(page).getByRole('link', { name: /on Instagram$/ })).toBeVisible();
    await toggle.click();
  }
});

test("the admin's header is one row too", async ({ page }) => {
  await logIn(page, DEMO_ADMIN);
  for (const width of [1920, 1280, 1024, 900, 726]) await expectOneRowHeader(page, width);
});

// Words of a developer's note to the label, not of the label's own text.
const INSTRUCTIONS = /\bsample (content|text|entry|product|release|artist|song)|\(sample|replace (it|the|in)|content\/|\.json|admin pages|lorem ipsum/i;

test("content pages, the shop and a product read like the label's, with no instructions", async ({ page }) => {
  for (const path of ['/home', '/about', '/history', '/privacy-policy', '/contact', '/shop']) {
    await page.goto(path);
    await expect(page.locator('main h1')).toBeVisible();
    await expect(page.locator('main [aria-busy="true"], main .skeleton')).toHaveCount(0);
    const text = await page.locator('body').innerText();
    expect(text, path).not.toMatch(INSTRUCTIONS);
  }
  // The footer asks for the label's line as it comes near the screen (a server-rendered shop is tall at once).
  await page.locator('.site-footer').scrollIntoViewIfNeeded();
  await expect(page.locator('.site-footer__copyright')).toContainText('Street Flavor Records. All rights reserved.');
  // The seeded tee, found by the shop's search: earlier browser tests release products of their
  // own, which may push it past the shop's first page.
  await page.goto('/shop?q=Logo%20Tee');
  await page
    .getByRole('link', { name: /^Logo Tee/ })
    .first()
    .click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Logo Tee');
  await expect(page.locator('main')).toContainText('Heavyweight black cotton tee');
  expect(await page.locator('body').innerText()).not.toMatch(INSTRUCTIONS);
});

test('a shop with no content yet shows designed empty states, and a failure still says it failed', async ({ page, consoleErrors }) => {
  consoleErrors.allow(/status of (404|500)/);
  // The pages carry their text in the HTML (decisions 058, 062); without it, as after a click from
  // another page, the web app asks /api/pages/<slug>, which these routes answer. The server's
  // rendering goes too: the page is then rendered in the browser, as one the server did not render.
  await page.route(
    (url) => ['/home', '/about', '/privacy-policy'].includes(url.pathname),
    async (route) => {
      const response = await route.fetch();
      const html = (await response.text())
        .replace(/<script type="application\/json" id="page-data">[\s\S]*?<\/script>/, '')
        .replace(/<div id="root" data-server-rendered[^>]*>/, '<div id="root">');
      await route.fulfill({ response, body: html });
    },
  );
  const notWritten = { status: 404, contentType: 'application/json', body: JSON.stringify({ error: { status: 'NOT_FOUND', message: 'There is no page named home.' } }) };
  await page.route('**/api/pages/*', (route) => route.fulfill(notWritten));
  await page.route('**/fn/listHistory', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ data: { entries: [] } }) }));

  for (const [path, empty] of [
    ['/home', COMING_SOON.home],
    ['/about', COMING_SOON.about],
    ['/history', COMING_SOON.history],
    ['/privacy-policy', COMING_SOON['privacy-policy']],
  ] as const) {
    await page.goto(path);
    await expect(page.getByRole('heading', { name: empty.title })).toBeVisible();
    await expect(page.getByText(empty.message)).toBeVisible();
    await expect(page.locator('main').getByRole('link', { name: empty.action.label })).toHaveAttribute('href', empty.action.to);
    await expect(page.getByRole('alert')).toHaveCount(0);
    await expect(page.locator('main')).not.toContainText('could not be loaded');
  }
  await page.goto('/home');
  await expect(page.locator('.site-footer__copyright')).toHaveText('© Street Flavor Records');

  // A real failure is not an empty shop.
  await page.unroute('**/api/pages/*');
  await page.route('**/api/pages/*', (route) => route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":{"status":"INTERNAL","message":"internal"}}' }));
  await page.goto('/about');
  await expect(page.getByRole('alert')).toContainText('This content could not be loaded.');
  await expect(page.getByText(COMING_SOON.about.title)).toHaveCount(0);
});
