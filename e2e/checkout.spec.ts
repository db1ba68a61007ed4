// Cart, checkout, payments and orders in a real browser (issue 5): a wallet-only
// purchase, a card purchase through the local payment page (declined, then paid), an
// admin marking an order fulfilled while the buyer watches My Orders, the cart's
// Checkout button for an empty cart and a signed-out visitor, and withdrawn items.
import { type APIRequestContext, type Browser, type Locator, type Page } from '@playwright/test';
import type { FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { test, expect, DEMO_ADMIN, DEMO_SHOPPER, ORIGIN, type ConsoleGuard } from './support/fixtures.ts';
import { rememberingLogIn } from './support/login.ts';
import { CART_STORAGE_KEY, WALLET_PREFERENCE_KEY } from '@storefront/domain/cart.ts';
import { CHECKOUT_MESSAGES, quotedTotals } from '@storefront/domain/pricing.ts';
// The shop's one money formatter (issue 34): the texts the pages show.
import { formatUsd as usd } from '@storefront/domain/money.ts';

const COVER = '/content/covers/cover-01.svg';
const SHIPPING = { line1: '1 Record Row', city: 'London', postal: 'N1 9GU', country: 'GB' };

interface ProductRef {
  id: string;
  name: string;
  priceCents: number;
}

// Money, worked out here and not by the code under test (spec section 9).
const taxOf = (cents: number) => Math.round((cents * 925) / 10_000);
const grossUp = (cents: number) => Math.ceil(((cents + 30) * 1000) / 971);

function totalsOf(subtotal: number) {
  const shipping = 999;
  const tax = taxOf(subtotal + shipping);
  return { subtotal, shipping, tax, total: subtotal + shipping + tax };
}

const uniqueName = (what: string) => `E2E ${what} ${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

// Sign-ins are rate limited (10 a minute), so each account signs in once per run.
let cachedAdminToken: string | undefined;

async function adminToken(request: APIRequestContext): Promise<string> {
  if (cachedAdminToken) return cachedAdminToken;
  const response = await request.post('/api/auth/sign-in/email', { data: DEMO_ADMIN, headers: { origin: ORIGIN } });
  expect(response.ok(), await response.text()).toBe(true);
  const token = response.headers()['set-auth-token'];
  expect(token, 'bearer token from sign-in').toBeTruthy();
  cachedAdminToken = token!;
  return cachedAdminToken;
}

async function callAsAdmin<T>(request: APIRequestContext, name: string, data: unknown): Promise<T> {
  const response = await request.post(`/fn/${name}`, {
    headers: { authorization: `Bearer ${await adminToken(request)}` },
    data: { data },
  });
  expect(response.ok(), await response.text()).toBe(true);
  return ((await response.json()) as { data: T }).data;
}

/** A product released by the demo admin, as the release page would. */
async function releaseProduct(request: APIRequestContext, what: string, priceCents: number): Promise<ProductRef> {
  const name = uniqueName(what);
  const { id } = await callAsAdmin<{ id: string }>(request, 'releaseBizarreProduct', {
    name,
    description: `${name}, made for a browser test.`,
    priceCents,
    images: [COVER],
  });
  return { id, name, priceCents };
}

/** Puts lines into the saved cart, as Add to Cart on product pages would; the next page load reads it. */
async function seedCart(page: Page, lines: { product: ProductRef; qty: number }[]) {
  if (page.url() === 'about:blank') await page.goto('/home');
  const cart = {
    id: 'cart',
    qty: lines.reduce((sum, line) => sum + line.qty, 0),
    url: '/checkout',
    lines: lines.map(({ product, qty }) => ({ lineId: product.id, title: product.name, image: COVER, priceCents: product.priceCents, qty })),
  };
  await page.evaluate(([key, value]) => localStorage.setItem(key, value), [CART_STORAGE_KEY, JSON.stringify(cart)] as const);
}

const logIn = rememberingLogIn();

const cartButton = (page: Page) => page.getByRole('button', { name: /^Cart, \d+ items?$/ });
const cartPanel = (page: Page) => page.getByRole('dialog', { name: 'Cart' });

async function openCart(page: Page): Promise<Locator> {
  await cartButton(page).click();
  const panel = cartPanel(page);
  await expect(panel).toBeVisible();
  return panel;
}

/** The amount shown next to a label in a list of totals. */
const amount = (scope: Locator, label: string) => scope.locator('dt', { hasText: new RegExp(`^${label}$`) }).locator('xpath=following-sibling::dd[1]');

async function fillShipping(page: Page) {
  await page.getByLabel('Address line 1').fill(SHIPPING.line1);
  await page.getByLabel('City').fill(SHIPPING.city);
  await page.getByLabel('Postal code').fill(SHIPPING.postal);
  await page.getByLabel('Country').selectOption(SHIPPING.country);
}

const orderCard = (page: Page, product: ProductRef) => page.getByRole('article').filter({ hasText: product.name });

test('a signed-in shopper buys with wallet credit only and sees the order as Processing', async ({ page, request }) => {
  const product = await releaseProduct(request, 'Wallet Tee', 2500);
  await logIn(page, DEMO_SHOPPER);
  await page.goto(`/product/${product.id}`);
  await expect(cartButton(page)).toHaveAccessibleName('Cart, 0 items');
  await page.getByRole('button', { name: 'Add to Cart' }).click();
  await page.getByRole('button', { name: 'Add to Cart' }).click();
  await expect(cartButton(page)).toHaveAccessibleName('Cart, 2 items');
  // The cart is saved in the browser and read again on the next load.
  await page.reload();
  await expect(cartButton(page)).toHaveAccessibleName('Cart, 2 items');
  const panel = await openCart(page);
  await expect(panel.getByRole('heading', { name: 'Cart' })).toBeFocused();
  await expect(panel.locator('img')).toHaveAttribute('width', '56');
  await expect(panel).toContainText(product.name);
  await expect(panel).toContainText(usd(2500));
  await panel.getByRole('button', { name: `Increase quantity of ${product.name}` }).click();
  await expect(cartButton(page)).toHaveAccessibleName('Cart, 3 items');
  await expect(panel).toContainText(usd(7500));
  await panel.getByRole('button', { name: `Decrease quantity of ${product.name}` }).click();
  await expect(cartButton(page)).toHaveAccessibleName('Cart, 2 items');

  await panel.getByRole('button', { name: 'Checkout' }).click();
  const prompt = page.getByRole('dialog', { name: CHECKOUT_MESSAGES.walletPrompt });
  await expect(prompt).toBeVisible();
  await prompt.getByRole('button', { name: 'Yes' }).click();
  await expect(page).toHaveURL(/\/checkout$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Checkout');
  expect(await page.evaluate((key) => localStorage.getItem(key), WALLET_PREFERENCE_KEY)).toBe('wallet');
  await expect(page.getByRole('switch', { name: 'Pay with my wallet credit first' })).toBeChecked();

  // The spec's messages, in its order.
  await page.getByLabel('Full name').fill('  ');
  await page.getByRole('button', { name: 'Place order' }).click();
  await expect(page.getByRole('alert').filter({ hasText: CHECKOUT_MESSAGES.fullName })).toBeVisible();
  await expect(page.getByLabel('Full name')).toBeFocused();
  await page.getByLabel('Full name').fill('Demo Shopper');
  await page.getByLabel('Email').fill('not-an-email');
  await page.getByRole('button', { name: 'Place order' }).click();
  await expect(page.getByRole('alert').filter({ hasText: CHECKOUT_MESSAGES.email })).toBeVisible();
  await page.getByLabel('Email').fill(DEMO_SHOPPER.email);
  await fillShipping(page);

  const money = totalsOf(5000);
  const summary = page.getByRole('complementary', { name: 'Order summary' });
  await expect(amount(summary, 'Subtotal')).toHaveText(usd(money.subtotal));
  await expect(amount(summary, 'Shipping')).toHaveText(usd(money.shipping));
  await expect(amount(summary, 'Tax')).toHaveText(usd(money.tax));
  await expect(amount(summary, 'Total')).toHaveText(usd(money.total));
  await expect(amount(summary, 'Wallet applied')).toHaveText(usd(-money.total));
  await expect(amount(summary, 'Charged to card')).toHaveCount(0);
  await expect(summary).toContainText('Your wallet credit covers this order.');

  await page.getByRole('button', { name: 'Place order' }).click();
  await expect(page.getByText(CHECKOUT_MESSAGES.placedWithWallet)).toBeVisible();
  await expect(page).toHaveURL(/\/order-confirmation\?payment_intent=[^&]+&redirect_status=succeeded$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Order confirmation');
  await expect(page.getByRole('status').filter({ hasText: 'Thank you!' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Your order' })).toContainText(product.name);
  await expect(cartButton(page)).toHaveAccessibleName('Cart, 0 items');

  await page.getByRole('link', { name: 'View My Orders' }).click();
  await expect(page).toHaveURL(/\/my-orders$/);
  const card = orderCard(page, product);
  await expect(card).toContainText('Processing');
  await expect(card).toContainText('× 2');
  await expect(amount(card, 'Wallet applied')).toHaveText(usd(-money.total));
  await expect(card).toContainText(SHIPPING.line1);
});

test('a card purchase with the wallet off goes through the payment page: declined, then paid', async ({ page, request, consoleErrors }) => {
  consoleErrors.allow(/status of 402/);
  // The server-rendered payment page names no icon, so Chromium asks for /favicon.ico.
  consoleErrors.allow(/status of 404 .*\[.*\/favicon\.ico\]$/);
  const product = await releaseProduct(request, 'Card Vinyl', 1234);
  await logIn(page, DEMO_SHOPPER);
  await seedCart(page, [{ product, qty: 1 }]);
  await page.goto('/shop');

  const panel = await openCart(page);
  await panel.getByRole('button', { name: 'Checkout' }).click();
  await page.getByRole('dialog', { name: CHECKOUT_MESSAGES.walletPrompt }).getByRole('button', { name: 'No' }).click();
  await expect(page).toHaveURL(/\/checkout$/);
  expect(await page.evaluate((key) => localStorage.getItem(key), WALLET_PREFERENCE_KEY)).toBe('stripe');
  await expect(page.getByRole('switch', { name: 'Pay with my wallet credit first' })).not.toBeChecked();

  const money = totalsOf(1234);
  const charge = grossUp(money.total);
  const summary = page.getByRole('complementary', { name: 'Order summary' });
  await expect(amount(summary, 'Total')).toHaveText(usd(money.total));
  await expect(amount(summary, 'Wallet applied')).toHaveCount(0);
  await expect(amount(summary, 'Card processing fee')).toHaveText(usd(charge - money.total));
  await expect(amount(summary, 'Charged to card')).toHaveText(usd(charge));

  await fillShipping(page);
  await page.getByRole('button', { name: 'Place order' }).click();
  await expect(page).toHaveURL(/\/pay\/[^/]+$/);
  await expect(page.getByRole('button', { name: `Pay ${usd(charge)}` })).toBeVisible();

  await page.getByLabel('Card number').fill('4000 0000 0000 0002');
  await page.getByRole('button', { name: `Pay ${usd(charge)}` }).click();
  await expect(page.getByRole('alert')).toHaveText(CHECKOUT_MESSAGES.cardDeclined);

  await page.getByLabel('Card number').fill('4242 4242 4242 4242');
  await page.getByRole('button', { name: `Pay ${usd(charge)}` }).click();
  await expect(page).toHaveURL(/\/order-confirmation\?payment_intent=pi_[^&]+&redirect_status=succeeded$/);
  await expect(page.getByRole('status').filter({ hasText: 'Thank you!' })).toBeVisible();
  const paymentIntent = new URL(page.url()).searchParams.get('payment_intent')!;
  await expect(page.getByText(paymentIntent, { exact: true })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Your order' })).toContainText(product.name);
  await expect(cartButton(page)).toHaveAccessibleName('Cart, 0 items');

  await page.getByRole('link', { name: 'View My Orders' }).click();
  const card = orderCard(page, product);
  await expect(card).toContainText('Processing');
  await expect(amount(card, 'Charged to card')).toHaveText(usd(charge));
});

test('a shopper who leaves the payment page another way finds the open payment on /checkout with its wallet part, and can resume or cancel it', async ({
  page,
  request,
  consoleErrors,
}) => {
  consoleErrors.allow(/status of 404 .*\[.*\/favicon\.ico\]$/);
  // Dearer than the demo shopper's credit: a card checkout with a wallet part.
  const product = await releaseProduct(request, 'Open Payment Box Set', 5_000_000);
  await logIn(page, DEMO_SHOPPER);
  await seedCart(page, [{ product, qty: 1 }]);
  await page.goto('/shop');
  const panel = await openCart(page);
  await panel.getByRole('button', { name: 'Checkout' }).click();
  await page.getByRole('dialog', { name: CHECKOUT_MESSAGES.walletPrompt }).getByRole('button', { name: 'Yes' }).click();
  await expect(page).toHaveURL(/\/checkout$/);
  const summary = page.getByRole('complementary', { name: 'Order summary' });
  // Shown as a deduction ("-$500.00") in the totals.
  const walletShown = (await amount(summary, 'Wallet applied').textContent())!;
  const walletPart = walletShown.replace(/^-/, '');
  const charge = (await amount(summary, 'Charged to card').textContent())!;
  expect(walletPart).not.toBe('$0.00');
  await fillShipping(page);
  await page.getByRole('button', { name: 'Place order' }).click();
  await expect(page).toHaveURL(/\/pay\/[^/]+$/);
  const payUrl = page.url();

  // Not "Back to checkout": the address bar.
  await page.goto('/checkout');
  const open = page.getByRole('region', { name: CHECKOUT_MESSAGES.openPayment });
  await expect(open).toBeVisible();
  await expect(open).toContainText(product.name);
  await expect(amount(open, 'Wallet credit held')).toHaveText(walletPart);
  await expect(amount(open, 'Card')).toHaveText(charge);
  // The summary under it counts the credit it holds (issue 39, item 11): placing this order
  // would end the open payment first, so its wallet line and card part are the same again.
  await expect(amount(summary, 'Wallet applied')).toHaveText(walletShown);
  await expect(amount(summary, 'Charged to card')).toHaveText(charge);

  await open.getByRole('button', { name: 'Resume payment' }).click();
  await expect(page).toHaveURL(payUrl);
  await page.goto('/checkout');
  await page.getByRole('region', { name: CHECKOUT_MESSAGES.openPayment }).getByRole('button', { name: 'Cancel payment' }).click();
  await expect(page.getByText(CHECKOUT_MESSAGES.openPaymentCancelled)).toBeVisible();
  await expect(page.getByRole('region', { name: CHECKOUT_MESSAGES.openPayment })).toHaveCount(0);
  // The credit is free again: the quote applies it.
  await expect(amount(summary, 'Wallet applied')).toHaveText(walletShown);
  // And the payment page is closed.
  await page.goto(payUrl);
  await expect(page.getByText('This payment is closed.')).toBeVisible();
});

/** A wallet-only order placed through the functions, as the checkout page does, in the page's session. */
async function placeWalletOrder(page: Page, product: ProductRef) {
  const items = [{ id: product.id, qty: 1 }];
  const quoted = await page.request.post('/fn/quoteCheckout', { data: { data: { items, useWallet: true } } });
  expect(quoted.ok(), await quoted.text()).toBe(true);
  const { data: quote } = (await quoted.json()) as { data: FunctionOutput<'quoteCheckout'> };
  const placed = await page.request.post('/fn/completeWalletOnlyOrderStreetFlavor', {
    data: {
      data: {
        items,
        contact: { name: 'Demo Shopper', email: DEMO_SHOPPER.email, phone: '' },
        shipping: { name: 'Demo Shopper', line1: SHIPPING.line1, line2: '', city: SHIPPING.city, state: '', postal_code: SHIPPING.postal, country: SHIPPING.country },
        quote: quotedTotals(quote),
        checkoutId: `e2e${Date.now()}${Math.random().toString(36).slice(2, 8)}`,
      },
    },
  });
  expect(placed.ok(), await placed.text()).toBe(true);
}

async function buyerPage(browser: Browser, consoleErrors: ConsoleGuard): Promise<Page> {
  const context = await browser.newContext();
  const buyer = await context.newPage();
  consoleErrors.watch(buyer);
  return buyer;
}

test('an admin marks an order fulfilled and the buyer sees Shipped without reloading', async ({ page, request, browser, consoleErrors }) => {
  const product = await releaseProduct(request, 'Fulfil Cap', 1500);
  const buyer = await buyerPage(browser, consoleErrors);
  await logIn(buyer, DEMO_SHOPPER);
  await placeWalletOrder(buyer, product);
  await buyer.goto('/my-orders');
  const buyerCard = orderCard(buyer, product);
  await expect(buyerCard).toContainText('Processing');

  await logIn(page, DEMO_ADMIN);
  await page.goto('/release');
  await page.getByRole('tab', { name: 'View Orders' }).click();
  const adminCard = orderCard(page, product);
  await expect(adminCard).toContainText('Demo Shopper');
  await expect(adminCard).toContainText(DEMO_SHOPPER.email);
  await expect(adminCard).toContainText(SHIPPING.line1);
  await adminCard.getByRole('button', { name: 'Mark Fulfilled' }).click();
  const confirm = page.getByRole('dialog', { name: 'Mark this order fulfilled?' });
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(confirm).toBeHidden();
  await expect(adminCard).toBeVisible();
  await adminCard.getByRole('button', { name: 'Mark Fulfilled' }).click();
  await confirm.getByRole('button', { name: 'Yes, Mark Fulfilled' }).click();
  await expect(adminCard).toHaveCount(0);

  // Live: the buyer's open page follows without a reload.
  await expect(buyerCard).toContainText('Shipped');
  await expect(buyerCard).not.toContainText('Processing');
  await buyer.context().close();
});

test('the cart Checkout button does nothing for an empty cart and sends a signed-out visitor to log in', async ({ page, request }) => {
  await page.goto('/home');
  let panel = await openCart(page);
  await expect(panel).toContainText(CHECKOUT_MESSAGES.emptyCart);
  await panel.getByRole('button', { name: 'Checkout' }).click({ force: true });
  await expect(page).toHaveURL(/\/home$/);
  await expect(panel).toBeVisible();
  await expect(page.getByRole('dialog', { name: CHECKOUT_MESSAGES.walletPrompt })).toHaveCount(0);
  // Escape closes the panel and gives focus back to the cart button.
  await page.keyboard.press('Escape');
  await expect(panel).toBeHidden();
  await expect(cartButton(page)).toBeFocused();

  // Signed out, the checkout page itself sends visitors to log in.
  await page.goto('/checkout');
  await expect(page).toHaveURL(/\/login$/);
  await page.goto('/my-orders');
  await expect(page).toHaveURL(/\/login$/);

  const product = await releaseProduct(request, 'Login Poster', 900);
  await seedCart(page, [{ product, qty: 1 }]);
  await page.goto('/shop');
  panel = await openCart(page);
  await panel.getByRole('button', { name: 'Checkout' }).click();
  await expect(page).toHaveURL(/\/login$/);
  await page.getByLabel('Email').fill(DEMO_SHOPPER.email);
  await page.getByLabel('Password').fill(DEMO_SHOPPER.password);
  await page.getByRole('button', { name: 'Login', exact: true }).click();
  await expect(page).toHaveURL(/\/checkout$/);
  await expect(page.getByRole('complementary', { name: 'Order summary' })).toContainText(product.name);

  // Clear empties the cart; the checkout page then says so.
  panel = await openCart(page);
  await panel.getByRole('button', { name: 'Clear' }).click();
  await expect(panel).toContainText(CHECKOUT_MESSAGES.emptyCart);
  await page.keyboard.press('Escape');
  await expect(panel).toBeHidden();
  await expect(page.getByRole('main')).toContainText(CHECKOUT_MESSAGES.emptyCart);
  await page.getByRole('main').getByRole('link', { name: 'Back to Shop' }).click();
  await expect(page).toHaveURL(/\/shop$/);
});

test('a withdrawn item is named at checkout and the order waits until it is removed', async ({ page, request, consoleErrors }) => {
  consoleErrors.allow(/status of 400/);
  const kept = await releaseProduct(request, 'Kept Mug', 1100);
  const withdrawn = await releaseProduct(request, 'Withdrawn Mug', 1300);
  await logIn(page, DEMO_SHOPPER);
  await seedCart(page, [
    { product: kept, qty: 1 },
    { product: withdrawn, qty: 1 },
  ]);
  await page.goto('/checkout');
  const summary = page.getByRole('complementary', { name: 'Order summary' });
  await expect(amount(summary, 'Subtotal')).toHaveText(usd(2400));

  // The admin withdraws one of them while the shopper is on the page: it is named at once.
  await callAsAdmin(request, 'editBizarreProduct', {
    id: withdrawn.id,
    name: withdrawn.name,
    description: 'Withdrawn.',
    priceCents: withdrawn.priceCents,
    images: [COVER],
    isActive: false,
  });
  const notice = summary.getByRole('alert').filter({ hasText: 'no longer available' });
  await expect(notice).toContainText(withdrawn.name);
  await expect(notice).not.toContainText(kept.name);
  await page.getByRole('button', { name: `Remove ${withdrawn.name} from the cart` }).click();
  await expect(notice).toHaveCount(0);
  await expect(amount(summary, 'Subtotal')).toHaveText(usd(1100));
  await expect(cartButton(page)).toHaveAccessibleName('Cart, 1 item');
});

test.describe('on a small phone', () => {
  test.use({ viewport: { width: 320, height: 640 } });

  test('the cart, checkout and My Orders fit the screen', async ({ page, request }) => {
    const product = await releaseProduct(request, 'Phone Sticker With A Rather Long Name For Wrapping', 500);
    await logIn(page, DEMO_SHOPPER);
    await seedCart(page, [{ product, qty: 1 }]);
    await page.goto('/home');
    // The cart, the logo and the menu button share the header's one row.
    const cartBox = await cartButton(page).boundingBox();
    const menuBox = await page.getByRole('button', { name: 'Menu' }).boundingBox();
    const middle = (box: { y: number; height: number } | null) => (box ? box.y + box.height / 2 : Number.NaN);
    expect(middle(menuBox), 'menu button on the cart button row').toBeCloseTo(middle(cartBox), 0);
    for (const path of ['/home', '/checkout', '/my-orders', '/order-confirmation?payment_intent=pi_test&redirect_status=failed']) {
      await page.goto(path);
      await expect(page.locator('h1')).toHaveCount(1);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, `horizontal overflow on ${path}`).toBeLessThanOrEqual(0);
    }
    // A payment that did not go through keeps the cart and offers the way back.
    await expect(page.getByRole('alert')).toContainText('did not go through');
    await expect(page.getByRole('link', { name: 'Back to checkout' })).toBeVisible();
    const panel = await openCart(page);
    await expect(panel).toContainText(product.name);
    const box = await panel.boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 320, 'cart panel inside the screen').toBe(true);
  });
});
