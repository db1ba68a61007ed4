// The wallet as a live read, and a card payment left behind (issue 17, items 9 and 3): an
// open /wallet page shows credit granted with the CLI without a reload; "Back to checkout"
// on the payment page releases the wallet hold at once, and the next checkout uses the
// whole wallet again.
import { type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { CART_STORAGE_KEY, WALLET_PREFERENCE_KEY } from '@storefront/domain/cart.ts';
import { createVerifiedUser } from './support/accounts.ts';
import { runCli } from './support/cli.ts';
import { test, expect, DEMO_ADMIN, ORIGIN } from './support/fixtures.ts';
import { logIn } from './support/login.ts';
// The shop's one money formatter (issue 34): the texts the pages show.
import { formatUsd as usd } from '@storefront/domain/money.ts';

const COVER = '/content/covers/cover-01.svg';

// Money, worked out here and not by the code under test (spec section 9).
const totalOf = (subtotal: number) => subtotal + 999 + Math.round(((subtotal + 999) * 925) / 10_000);
const grossUp = (cents: number) => Math.ceil(((cents + 30) * 1000) / 971);

const balanceCard = (page: Page): Locator => page.getByRole('listitem', { name: 'Balance', exact: true });
const amount = (scope: Locator, label: string) => scope.locator('dt', { hasText: new RegExp(`^${label}$`) }).locator('xpath=following-sibling::dd[1]');

async function releaseProduct(request: APIRequestContext, priceCents: number) {
  const signIn = await request.post('/api/auth/sign-in/email', { data: DEMO_ADMIN, headers: { origin: ORIGIN } });
  expect(signIn.ok(), await signIn.text()).toBe(true);
  const name = `E2E Left Behind ${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const response = await request.post('/fn/releaseBizarreProduct', {
    headers: { authorization: `Bearer ${signIn.headers()['set-auth-token']}` },
    data: { data: { name, description: `${name}, made for a browser test.`, priceCents, images: [COVER] } },
  });
  expect(response.ok(), await response.text()).toBe(true);
  return { id: ((await response.json()) as { data: { id: string } }).data.id, name, priceCents };
}

test('an open wallet page shows credit granted with the CLI, without a reload', async ({ page, request }) => {
  const user = await createVerifiedUser(request);
  await logIn(page, user);
  await page.goto('/wallet');
  await expect(balanceCard(page)).toContainText('$0.00');
  await page.evaluate(() => Object.assign(window, { e2eSameDocument: true }));

  expect(await runCli(['grant-credits', user.email, '7.50'])).toContain(user.email);
  await expect(balanceCard(page)).toContainText('$7.50');
  expect(await page.evaluate(() => 'e2eSameDocument' in window), 'the page was not reloaded').toBe(true);
});

// The interleaving behind a console-products failure in CI: the page fetched its data, a change
// was committed, and only then did the live stream start listening; the change was announced to
// no one and the page kept the old figure. The stream is held back here until after the change.
test('a change committed before the live stream opens still reaches the open page', async ({ page, request }) => {
  const user = await createVerifiedUser(request);
  await logIn(page, user);
  let openStream = () => {};
  const streamHeld = new Promise<void>((resolve) => (openStream = resolve));
  await page.route('**/api/live**', async (route) => {
    await streamHeld;
    await route.continue();
  });
  await page.goto('/wallet');
  await expect(balanceCard(page)).toContainText('$0.00');
  expect(await runCli(['grant-credits', user.email, '3.25'])).toContain(user.email);
  openStream();
  await expect(balanceCard(page)).toContainText('$3.25');
});

test('back from the payment page, the wallet shows no hold and the next checkout uses the full wallet', async ({ page, request, consoleErrors }) => {
  // The server-rendered payment page names no icon, so Chromium asks for /favicon.ico.
  consoleErrors.allow(/status of 404 .*\[.*\/favicon\.ico\]$/);
  const user = await createVerifiedUser(request);
  await runCli(['grant-credits', user.email, '10']);
  const product = await releaseProduct(request, 4000);
  await logIn(page, user);
  const cart = { id: 'cart', qty: 1, url: '/checkout', lines: [{ lineId: product.id, title: product.name, image: COVER, priceCents: product.priceCents, qty: 1 }] };
  await page.evaluate(
    ([cartKey, cartValue, preferenceKey]) => {
      localStorage.setItem(cartKey, cartValue);
      localStorage.setItem(preferenceKey, 'wallet');
    },
    [CART_STORAGE_KEY, JSON.stringify(cart), WALLET_PREFERENCE_KEY] as const,
  );
  const charge = grossUp(totalOf(product.priceCents) - 1000);

  const placeOrder = async () => {
    await page.goto('/checkout');
    await expect(page.getByRole('switch', { name: 'Pay with my wallet credit first' })).toBeChecked();
    const summary = page.getByRole('complementary', { name: 'Order summary' });
    await expect(amount(summary, 'Wallet applied')).toHaveText(usd(-1000));
    await expect(amount(summary, 'Charged to card')).toHaveText(usd(charge));
    await page.getByLabel('Address line 1').fill('1 Record Row');
    await page.getByLabel('City').fill('London');
    await page.getByLabel('Postal code').fill('N1 9GU');
    await page.getByLabel('Country').selectOption('GB');
    await page.getByRole('button', { name: 'Place order' }).click();
    await expect(page).toHaveURL(/\/pay\/[^/]+$/);
    await expect(page.getByText('Wallet credit applied: -$10.00')).toBeVisible();
    await expect(page.getByRole('button', { name: `Pay ${usd(charge)}` })).toBeVisible();
  };

  await placeOrder();
  await page.getByRole('button', { name: 'Back to checkout' }).click();
  await expect(page).toHaveURL(/\/checkout$/);

  await page.goto('/wallet');
  await expect(balanceCard(page)).toContainText('$10.00');
  await expect(balanceCard(page)).not.toContainText('on hold');

  // The next checkout of the same cart applies the whole $10.00 again, and is paid.
  await placeOrder();
  await page.getByLabel('Card number').fill('4242 4242 4242 4242');
  await page.getByRole('button', { name: `Pay ${usd(charge)}` }).click();
  await expect(page).toHaveURL(/\/order-confirmation\?payment_intent=pi_[^&]+&redirect_status=succeeded$/);
  await page.goto('/wallet');
  await expect(balanceCard(page)).toContainText('$0.00');
  await expect(balanceCard(page)).not.toContainText('on hold');
});
