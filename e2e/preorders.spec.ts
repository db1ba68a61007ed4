// Preorders (issue 27, decision 054) in a real browser: the label releases an LP with a street date
// a year ahead beside a tee that is out; a new shopper sees "Preorder - ships <date>" on the shop
// card, the product page and in the cart, buys both in one order (checkout says when it ships),
// and sees the preorder in My Orders. The order desk leaves it out of Ready to ship, ships the tee
// as a first parcel with its tracking, refuses the LP before its date until the admin confirms,
// and the buyer then sees both parcels in My Orders and got the part's shipped email.
import type { Page } from '@playwright/test';
import { WALLET_PREFERENCE_KEY } from '@storefront/domain/cart.ts';
import { preorderLabel, PREORDER_MESSAGES, formatShipDate } from '@storefront/domain/preorders.ts';
import { CHECKOUT_MESSAGES } from '@storefront/domain/pricing.ts';
import { createVerifiedUser, mailLink } from './support/accounts.ts';
import { callAs, tokenOf } from './support/api.ts';
import { seriousAxeProblems } from './support/axe.ts';
import { runCli } from './support/cli.ts';
import { test, expect, DEMO_ADMIN } from './support/fixtures.ts';
import { rememberingLogIn } from './support/login.ts';

const COVER = '/content/covers/cover-01.svg';
const logIn = rememberingLogIn();
const cartButton = (page: Page) => page.getByRole('button', { name: /^Cart, \d+ items?$/ });

test('a mixed cart with a preorder is one order, shipped in two parcels', async ({ page, request, consoleErrors }) => {
  // The desk's refused early Mark Fulfilled is a 400 the browser logs.
  consoleErrors.allow(/status of 400 .*\/fn\/markOrderFulfilled/);
  // Two accounts, a purchase and the desk, on a shared machine.
  test.setTimeout(150_000);
  const next = new Date();
  next.setUTCFullYear(next.getUTCFullYear() + 1);
  const streetDate = next.toISOString().slice(0, 10);
  const label = preorderLabel(streetDate);
  const suffix = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 5)}`;
  const admin = await tokenOf(request, DEMO_ADMIN);
  const lpName = `E2E Preorder LP ${suffix}`;
  const teeName = `E2E Preorder Tee ${suffix}`;
  const { id: lp } = await callAs(request, admin, 'releaseBizarreProduct', {
    name: lpName,
    description: 'A pressing of 300.',
    priceCents: 3000,
    images: [COVER],
    releaseDate: streetDate,
    variants: [{ options: [], sku: '', priceCents: null, stock: 300 }],
  });
  const { id: tee } = await callAs(request, admin, 'releaseBizarreProduct', { name: teeName, description: 'A tee.', priceCents: 1500, images: [COVER] });

  const buyer = await createVerifiedUser(request);
  await runCli(['grant-credits', buyer.email, '100']);
  await logIn(page, buyer);

  // The shop card and the product page say it; the tee says nothing.
  await page.goto(`/shop?q=${encodeURIComponent(suffix)}`);
  await expect(page.getByRole('link').filter({ hasText: lpName })).toContainText(label);
  await expect(page.getByRole('link').filter({ hasText: teeName })).not.toContainText('Preorder - ships');
  await page.goto(`/product/${lp}`);
  await expect(page.getByText(label)).toBeVisible();
  await page.getByRole('button', { name: 'Add to Cart' }).click();
  await page.goto(`/product/${tee}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(teeName);
  await page.getByRole('button', { name: 'Add to Cart' }).click();
  await expect(cartButton(page)).toHaveAccessibleName('Cart, 2 items');
  await cartButton(page).click();
  const panel = page.getByRole('dialog', { name: 'Cart' });
  await expect(panel.getByRole('listitem').filter({ hasText: lpName })).toContainText(label);
  await page.keyboard.press('Escape');

  // Checkout: one order, and when it ships, said plainly.
  await page.evaluate((key) => localStorage.setItem(key, 'wallet'), WALLET_PREFERENCE_KEY);
  await page.goto('/checkout');
  const summary = page.getByRole('complementary', { name: 'Order summary' });
  await expect(summary.getByRole('listitem').filter({ hasText: lpName })).toContainText(label);
  await expect(summary).toContainText(`It is one order, paid now; it ships on ${formatShipDate(streetDate)}, when its last preorder is out`);
  expect(await seriousAxeProblems(page)).toEqual([]);
  await page.getByLabel('Full name').fill('Preorder Fan');
  await page.getByLabel('Address line 1').fill('1 Record Row');
  await page.getByLabel('City').fill('London');
  await page.getByLabel('Postal code').fill('N1 9GU');
  await page.getByLabel('Country').selectOption('GB');
  await page.getByRole('button', { name: 'Place order' }).click();
  await expect(page.getByText(CHECKOUT_MESSAGES.placedWithWallet)).toBeVisible();
  await expect(page).toHaveURL(/\/order-confirmation\?/);

  await page.goto('/my-orders');
  const card = page.getByRole('article').filter({ hasText: lpName });
  await expect(card.getByRole('listitem').filter({ hasText: lpName })).toContainText(label);
  const orderId = /Order (o_[\w-]{12})/.exec((await card.textContent()) ?? '')![1]!;

  // The desk: not ready to ship while the LP waits; the tee goes first as its own parcel.
  await page.context().clearCookies();
  await logIn(page, DEMO_ADMIN);
  await page.goto('/release/orders');
  await page.getByLabel('Search orders').fill(orderId);
  await page.getByRole('button', { name: 'Search' }).click();
  const order = page.getByRole('article').filter({ hasText: `Order ${orderId}` });
  await expect(order).toBeVisible();
  await page.getByLabel('Ready to ship').check();
  await expect(order).toHaveCount(0);
  await page.getByLabel('Unfulfilled').check();
  await order.getByRole('button', { name: `Ship part of order ${orderId}` }).click();
  const dialog = page.getByRole('dialog', { name: `Ship part of order ${orderId}` });
  await dialog.getByRole('checkbox', { name: new RegExp(teeName) }).check();
  await dialog.getByLabel('Carrier (optional)').selectOption('UPS');
  await dialog.getByLabel('Tracking number (optional)').fill('1Z999AA10123456784');
  expect(await seriousAxeProblems(page)).toEqual([]);
  await dialog.getByRole('button', { name: 'Ship this parcel' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(order).toContainText('Parcel 1');
  await expect(order).toContainText(`Still to ship: ${lpName}`);

  // One line left: it can still go as a parcel of its own (issue 39).
  await expect(order.getByRole('button', { name: `Ship part of order ${orderId}` })).toBeVisible();

  // The LP before its date: refused without the confirmation, and the dialog keeps what was
  // typed (issue 39); shipped with the confirmation.
  const notYet = PREORDER_MESSAGES.notYetOut(formatShipDate(streetDate));
  await order.getByRole('button', { name: 'Mark Fulfilled' }).click();
  const fulfil = page.getByRole('dialog', { name: 'Mark this order fulfilled?' });
  await expect(fulfil).toContainText(notYet);
  await fulfil.getByLabel('Carrier (optional)').selectOption('UPS');
  await fulfil.getByLabel('Tracking number (optional)').fill('1Z999AA10123456792');
  await fulfil.getByRole('button', { name: 'Yes, Mark Fulfilled' }).click();
  await expect(page.getByText(notYet).last()).toBeVisible();
  await expect(fulfil).toBeVisible();
  await expect(fulfil.getByLabel('Carrier (optional)')).toHaveValue('UPS');
  await expect(fulfil.getByLabel('Tracking number (optional)')).toHaveValue('1Z999AA10123456792');
  await fulfil.getByLabel('Ship before the release date').check();
  await fulfil.getByRole('button', { name: 'Yes, Mark Fulfilled' }).click();
  await expect(page.getByRole('status').filter({ hasText: `Order ${orderId} marked fulfilled.` })).toBeAttached();

  // The desk shows every parcel's tracking number, on the order and in its details.
  await page.getByRole('radio', { name: 'All', exact: true }).check();
  await expect(order).toContainText('1Z999AA10123456784');
  await expect(order).toContainText('1Z999AA10123456792');
  await order.getByRole('button', { name: `Details of order ${orderId}` }).click();
  const details = page.getByRole('dialog').filter({ hasText: orderId });
  await expect(details).toContainText('1Z999AA10123456784');
  await expect(details).toContainText('1Z999AA10123456792');
  expect(await seriousAxeProblems(page)).toEqual([]);
  await page.keyboard.press('Escape');

  // The buyer sees both parcels, and got the first parcel's own email.
  await page.context().clearCookies();
  await logIn(page, buyer);
  await page.goto('/my-orders');
  const mine = page.getByRole('article').filter({ hasText: orderId });
  await expect(mine).toContainText(`Parcel 1`);
  await expect(mine).toContainText(`${teeName} × 1`);
  await expect(mine).toContainText('1Z999AA10123456784');
  await expect(mine).toContainText(`Parcel 2`);
  await expect(mine).not.toContainText('Still to ship');
  // The part's own mail, with its parcel's tracking link.
  expect(await mailLink(request, buyer.email, `Part of your Street Flavor Records order ${orderId} has shipped`)).toContain('tracknum=1Z999AA10123456784');
});
