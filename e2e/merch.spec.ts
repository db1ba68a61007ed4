// Merch with sizes and stock in a real browser (issue 15): a shopper picks a size (sold-out
// sizes disabled, "Only N left", Add to Cart never past what is left); the last units bought
// in another session turn the open page Sold out live; the checkout names the line that ran
// out and reduces it; the chosen variant is named on the payment page, in My Orders and in
// the admin's View Orders; the shop grid says Sold out; an admin creates a product with sizes.
import { type APIRequestContext, type Browser, type Page } from '@playwright/test';
import { quotedTotals } from '@storefront/domain/pricing.ts';
import sharp from 'sharp';
import { lineRanOutMessage, noMoreMessage, onlyLeftMessage, STOCK_MESSAGES } from '@storefront/domain/variants.ts';
import { WALLET_PREFERENCE_KEY } from '@storefront/domain/cart.ts';
import { RELEASE_PAGE_TEXTS } from '../apps/web/src/features/admin/messages.ts';
import { callAs, tokenOf } from './support/api.ts';
import { test, expect, DEMO_ADMIN, DEMO_SHOPPER, type ConsoleGuard } from './support/fixtures.ts';
import { runCli } from './support/cli.ts';
import { rememberingLogIn } from './support/login.ts';

const COVER = '/content/covers/cover-01.svg';
const SHIPPING = { name: 'Demo Shopper', line1: '1 Record Row', line2: '', city: 'London', state: '', postal_code: 'N1 9GU', country: 'GB' };
const uniqueName = (what: string) => `E2E ${what} ${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const logIn = rememberingLogIn();

// Sign-ins are rate limited: the admin's token is taken once per run.
let cachedAdminToken: string | undefined;
async function adminToken(request: APIRequestContext): Promise<string> {
  cachedAdminToken ??= await tokenOf(request, DEMO_ADMIN);
  return cachedAdminToken;
}

interface Tee {
  id: string;
  name: string;
  variant: (size: string) => string;
}

/** A tee in S, M, L (one colour, Black): S sold out, M 2 left, L unlimited at $27. */
async function releaseTee(request: APIRequestContext): Promise<Tee> {
  const name = uniqueName('Logo Tee');
  const token = await adminToken(request);
  const stock: Record<string, number | null> = { S: 0, M: 2, L: null };
  const { id } = await callAs(request, token, 'releaseBizarreProduct', {
    name,
    description: `${name}, made for a browser test.`,
    priceCents: 2500,
    images: [COVER],
    options: [
      { name: 'Size', values: ['S', 'M', 'L'] },
      { name: 'Colour', values: ['Black'] },
    ],
    variants: ['S', 'M', 'L'].map((size) => ({ options: [size, 'Black'], sku: `TEE-${size}-BLK`, priceCents: size === 'L' ? 2700 : null, stock: stock[size] ?? null })),
  });
  const { products } = await callAs(request, token, 'listAllProducts', null);
  const variants = products.find((product) => product.id === id)!.variants;
  return { id, name, variant: (size) => variants.find((v) => v.options[0] === size)!.id };
}

/** A wallet-only order placed through the functions (another buyer's session). */
async function walletOrder(request: APIRequestContext, token: string, items: { id: string; variantId: string; qty: number }[]) {
  const quote = await callAs(request, token, 'quoteCheckout', { items, useWallet: true });
  await callAs(request, token, 'completeWalletOnlyOrderStreetFlavor', {
    items,
    contact: { name: 'Other Fan', email: DEMO_ADMIN.email, phone: '' },
    shipping: SHIPPING,
    quote: quotedTotals(quote),
    checkoutId: `merch${Date.now()}${Math.random().toString(36).slice(2, 8)}`,
  });
}

async function otherBrowser(browser: Browser, consoleErrors: ConsoleGuard): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  consoleErrors.watch(page);
  return page;
}

const toast = (page: Page, text: string) => page.locator('.Toastify').getByText(text, { exact: true });
const cartButton = (page: Page) => page.getByRole('button', { name: /^Cart, \d+ items?$/ });
const sizeRadio = (page: Page, size: string) => page.getByRole('group', { name: 'Size' }).getByRole('radio', { name: new RegExp(`^${size}( \\(sold out\\))?$`) });
const stockNote = (page: Page) => page.locator('.product__stock');

test('a shopper picks a size; sold-out sizes are disabled, few left are counted, and the last units sold elsewhere turn the page Sold out live', async ({
  page,
  request,
  consoleErrors,
}) => {
  // The checkout's quote is refused (400) while a line asks for more than is left.
  consoleErrors.allow(/status of 400 .*\/fn\/quoteCheckout\]$/);
  // The admin plays the other buyer: wallet credit for it.
  await runCli(['grant-credits', DEMO_ADMIN.email, '500']);
  const tee = await releaseTee(request);
  await logIn(page, DEMO_SHOPPER);
  await page.goto(`/product/${tee.id}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(tee.name);

  // S is sold out: disabled. The first size with stock (M) is chosen, with its note.
  await expect(sizeRadio(page, 'S')).toBeDisabled();
  await expect(sizeRadio(page, 'M')).toBeChecked();
  await expect(stockNote(page)).toHaveText(onlyLeftMessage(2));
  // L: its own price, unlimited (no note).
  await sizeRadio(page, 'L').check();
  await expect(page.locator('.product__price')).toHaveText('$27.00');
  await expect(stockNote(page)).toHaveText('');
  await sizeRadio(page, 'M').check();
  await expect(page.locator('.product__price')).toHaveText('$25.00');

  // Add to Cart never adds more than is left.
  const add = page.getByRole('button', { name: 'Add to Cart' });
  await add.click();
  await add.click();
  await expect(cartButton(page)).toHaveAccessibleName('Cart, 2 items');
  await add.click();
  await expect(toast(page, noMoreMessage(2))).toBeVisible();
  await expect(cartButton(page)).toHaveAccessibleName('Cart, 2 items');
  await cartButton(page).click();
  const panel = page.getByRole('dialog', { name: 'Cart' });
  await expect(panel).toContainText(`${tee.name} - M / Black`);
  await page.keyboard.press('Escape');

  // Another buyer takes both Ms: this page follows without a reload.
  await walletOrder(request, await adminToken(request), [{ id: tee.id, variantId: tee.variant('M'), qty: 2 }]);
  await expect(stockNote(page)).toHaveText(STOCK_MESSAGES.soldOut);
  await expect(sizeRadio(page, 'M')).toBeDisabled();
  await expect(add).toBeDisabled();
  // The cart says which line ran out, at once.
  await cartButton(page).click();
  await expect(panel.getByRole('alert')).toHaveText(lineRanOutMessage(`${tee.name} - M / Black`, 0));
  await expect(panel.getByRole('button', { name: `Increase quantity of ${tee.name} - M / Black` })).toBeDisabled();
  await page.keyboard.press('Escape');

  // The checkout names the line that ran out and offers to remove it.
  await page.goto('/checkout');
  const alert = page.getByRole('alert').filter({ hasText: lineRanOutMessage(`${tee.name} - M / Black`, 0) });
  await expect(alert).toBeVisible();
  await expect(alert.getByRole('button', { name: `Remove ${tee.name} - M / Black from the cart` })).toBeVisible();
});

test('the checkout reduces a line to what is left; the variant is named on the payment page, in My Orders and in View Orders', async ({
  page,
  request,
  browser,
  consoleErrors,
}) => {
  consoleErrors.allow(/status of 404 .*\[.*\/favicon\.ico\]$/);
  consoleErrors.allow(/status of 400 .*\/fn\/quoteCheckout\]$/);
  const tee = await releaseTee(request);
  const token = await adminToken(request);
  // The cart holds 2 of M from before; then one is sold elsewhere: 1 left.
  await logIn(page, DEMO_SHOPPER);
  await page.goto(`/product/${tee.id}`);
  await page.getByRole('button', { name: 'Add to Cart' }).click();
  await page.getByRole('button', { name: 'Add to Cart' }).click();
  await expect(cartButton(page)).toHaveAccessibleName('Cart, 2 items');
  await callAs(request, token, 'setVariantStock', { variantId: tee.variant('M'), stock: 1, reason: 'damaged in the post' });
  await expect(stockNote(page)).toHaveText(onlyLeftMessage(1));
  // The cart offers to reduce the line to what is left; the checkout too (below, after adding it back).
  await cartButton(page).click();
  const panel = page.getByRole('dialog', { name: 'Cart' });
  await expect(panel.getByRole('alert')).toHaveText(`${lineRanOutMessage(`${tee.name} - M / Black`, 1)} Reduce to 1`);
  await panel.getByRole('button', { name: 'Reduce to 1' }).click();
  await expect(panel.getByRole('alert')).toHaveCount(0);
  await expect(cartButton(page)).toHaveAccessibleName('Cart, 1 item');
  await page.keyboard.press('Escape');
  // Back to 2 in the saved cart (as a cart saved earlier would be): the checkout must catch it.
  // Card, not wallet: the cart's "No" answer, saved as the checkout reads it.
  await page.evaluate((key) => {
    localStorage.setItem(key, 'stripe');
    const saved = JSON.parse(localStorage.getItem('sf_cart_v1')!) as { qty: number; lines: { qty: number }[] };
    saved.lines[0]!.qty = 2;
    saved.qty = 2;
    localStorage.setItem('sf_cart_v1', JSON.stringify(saved));
  }, WALLET_PREFERENCE_KEY);

  await page.goto('/checkout');
  const line = `${tee.name} - M / Black`;
  const alert = page.getByRole('alert').filter({ hasText: lineRanOutMessage(line, 1) });
  await expect(alert).toBeVisible();
  await alert.getByRole('button', { name: 'Reduce to 1' }).click();
  await expect(alert).toHaveCount(0);
  await expect(cartButton(page)).toHaveAccessibleName('Cart, 1 item');
  const summary = page.getByRole('complementary', { name: 'Order summary' });
  await expect(summary).toContainText(line);

  // By card (wallet off): the payment page names the variant.
  await expect(page.getByRole('switch', { name: 'Pay with my wallet credit first' })).not.toBeChecked();
  await expect(summary).toContainText('Charged to card');
  await page.getByLabel('Address line 1').fill(SHIPPING.line1);
  await page.getByLabel('City').fill(SHIPPING.city);
  await page.getByLabel('Postal code').fill(SHIPPING.postal_code);
  await page.getByLabel('Country').selectOption(SHIPPING.country);
  await page.getByRole('button', { name: 'Place order' }).click();
  await expect(page).toHaveURL(/\/pay\/[^/]+$/);
  await expect(page.locator('body')).toContainText(`1 × ${line}`);
  await page.getByLabel('Card number').fill('4242 4242 4242 4242');
  await page.getByRole('button', { name: /^Pay / }).click();
  await expect(page).toHaveURL(/\/order-confirmation\?payment_intent=pi_[^&]+&redirect_status=succeeded$/);
  await expect(page.getByRole('region', { name: 'Your order' })).toContainText(line);

  await page.goto('/my-orders');
  await expect(page.getByRole('article').filter({ hasText: line })).toContainText('Processing');

  // The admin's View Orders, and the order's details.
  const admin = await otherBrowser(browser, consoleErrors);
  await logIn(admin, DEMO_ADMIN);
  await admin.goto('/release');
  await admin.getByRole('tab', { name: 'View Orders' }).click();
  await admin.getByLabel('Search orders').fill(tee.name);
  await admin.getByLabel('Search orders').press('Enter');
  const card = admin.getByRole('list', { name: 'Orders' }).getByRole('article').filter({ hasText: line });
  await expect(card).toHaveCount(1);
  await card.getByRole('button', { name: /^Details of order / }).click();
  await expect(admin.getByRole('dialog', { name: /^Order / })).toContainText(line);
  await admin.context().close();
});

test('the shop grid says Sold out when no variant has stock left, live', async ({ page, request }) => {
  const tee = await releaseTee(request);
  const token = await adminToken(request);
  await page.goto(`/shop?q=${encodeURIComponent(tee.name)}`);
  const card = page.getByRole('list', { name: 'Products' }).getByRole('listitem').filter({ hasText: tee.name });
  await expect(card).toBeVisible();
  await expect(card).not.toContainText(STOCK_MESSAGES.soldOut);
  await callAs(request, token, 'setVariantStock', { variantId: tee.variant('M'), stock: 0, reason: 'count' });
  await callAs(request, token, 'setVariantStock', { variantId: tee.variant('L'), stock: 0, reason: 'count' });
  await expect(card).toContainText(STOCK_MESSAGES.soldOut);
  // A restock brings it back.
  await callAs(request, token, 'setVariantStock', { variantId: tee.variant('L'), stock: 10, reason: 'restock' });
  await expect(card).not.toContainText(STOCK_MESSAGES.soldOut);
});

test('an admin creates a product with sizes and stock on /release, by keyboard where it counts', async ({ page }) => {
  const name = uniqueName('Sized Hoodie');
  await logIn(page, DEMO_ADMIN);
  await page.goto('/release');
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel('Price (USD)').fill('45');
  await page.getByLabel('Description').fill('A hoodie in sizes, released by a browser test.');
  const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#202020' } })
    .png()
    .toBuffer();
  await page.getByLabel('Add images').setInputFiles([{ name: 'hoodie.png', mimeType: 'image/png', buffer: png }]);

  // Without options there is one default row.
  const variants = page.getByRole('table', { name: 'Variants' });
  await expect(variants.getByRole('row')).toHaveCount(2);
  await page.getByRole('button', { name: 'Add option' }).focus();
  await page.keyboard.press('Enter');
  await page.getByLabel('Option 1 name').fill('Size');
  await page.getByLabel('Option 1 values').fill('S, M, L');
  await expect(variants.getByRole('row')).toHaveCount(4);
  await page.getByLabel('SKU of S').fill('HOOD-S');
  await page.getByLabel('Stock of S').fill('3');
  await page.getByLabel('SKU of M').fill('HOOD-M');
  await page.getByLabel('Stock of M').fill('0');
  await page.getByLabel('Price of L').fill('49.00');
  // On a phone the rows stack: nothing wider than the screen.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByLabel('Stock of L')).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  await page.setViewportSize({ width: 1280, height: 720 });
  // A bad stock is refused with a sentence, before anything is sent.
  await page.getByLabel('Stock of L').fill('many');
  await page.getByRole('button', { name: 'Release Product' }).click();
  await expect(page.getByRole('form', { name: 'Release a product' }).getByRole('alert')).toHaveText(STOCK_MESSAGES.stock);
  await page.getByLabel('Stock of L').fill('');
  await page.getByRole('button', { name: 'Release Product' }).click();

  const released = page.getByRole('status').filter({ hasText: RELEASE_PAGE_TEXTS.released });
  await expect(released).toContainText(name);
  await released.getByRole('link', { name: RELEASE_PAGE_TEXTS.viewReleased }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(name);
  await expect(sizeRadio(page, 'M')).toBeDisabled();
  await expect(sizeRadio(page, 'S')).toBeChecked();
  await expect(stockNote(page)).toHaveText(onlyLeftMessage(3));
  await sizeRadio(page, 'L').check();
  await expect(page.locator('.product__price')).toHaveText('$49.00');

  // The edit mode shows the same options and rows; a stock edit there is saved.
  await page.getByRole('button', { name: 'Edit', exact: true }).click();
  await expect(page.getByLabel('Option 1 values')).toHaveValue('S, M, L');
  await expect(page.getByLabel('SKU of S')).toHaveValue('HOOD-S');
  await expect(page.getByLabel('Price of L')).toHaveValue('49.00');
  await page.getByLabel('Stock of M').fill('4');
  await page.getByRole('button', { name: 'Save Changes' }).click();
  await expect(toast(page, 'Product updated')).toBeVisible();
  await expect(sizeRadio(page, 'M')).toBeEnabled();
  await sizeRadio(page, 'M').check();
  await expect(stockNote(page)).toHaveText(onlyLeftMessage(4));
});
