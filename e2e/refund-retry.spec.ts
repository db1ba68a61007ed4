// A card refund that the payment provider accepts and then fails (issue 16, decision 034), in a
// real browser: the admin reads why on the order and presses Retry refund, the refund completes
// and the order shows Refunded; the buyer's My Orders follows each step live. The failure comes
// from the local provider's test switch LOCAL_REFUND_FAILURES=1 (server.mjs): the run's first
// card refund fails with a signed refund.failed, as Stripe's would. No spec that runs before it
// (files run in name order on one worker) refunds a card; refunds-by-amount.spec.ts runs after it.
import { callAs, releaseProductAs, tokenOf } from './support/api.ts';
import { test, expect, DEMO_ADMIN, DEMO_SHIPPING, DEMO_SHOPPER, ORIGIN } from './support/fixtures.ts';
import { logIn } from './support/login.ts';
import { formatUsd } from '@storefront/domain/money.ts';

test('a card refund the provider fails: the admin sees why, retries it, and the buyer sees Refunded live', async ({ page, request, browser }) => {
  const admin = await tokenOf(request, DEMO_ADMIN);
  const shopper = await tokenOf(request, DEMO_SHOPPER);
  const name = `E2E Retry Tee ${Date.now().toString(36)}`;
  const productId = await releaseProductAs(request, admin, { name, description: 'For the refund retry test.', priceCents: 900 });
  // Paid by card on the local payment page (no wallet credit), as the buyer.
  const link = await callAs(request, shopper, 'createPaymentLinkStreetFlavorMerch', {
    items: [{ id: productId, qty: 1 }],
    useWallet: false,
    contact: { name: 'Demo Shopper', email: DEMO_SHOPPER.email, phone: '' },
    shipping: DEMO_SHIPPING,
  });
  const paid = await request.post(link.url, {
    form: { card: '4242 4242 4242 4242' },
    headers: { authorization: `Bearer ${shopper}`, origin: ORIGIN },
    maxRedirects: 0,
  });
  expect(paid.status()).toBe(302);
  const { items: placed } = await callAs(request, admin, 'listOrders', { status: 'all', q: name });
  expect(placed).toHaveLength(1);
  const order = placed[0]!;
  expect(order.totals.chargedCents).toBeGreaterThan(0);
  const card = formatUsd(order.totals.chargedCents);

  // The buyer watches My Orders in their own browser.
  const buyerContext = await browser.newContext();
  const buyer = await buyerContext.newPage();
  await logIn(buyer, DEMO_SHOPPER);
  await buyer.goto('/my-orders');
  const buyerCard = buyer.getByRole('article').filter({ hasText: `Order ${order.id}` });
  await expect(buyerCard).toContainText('Processing');

  await logIn(page, DEMO_ADMIN);
  await page.goto('/release');
  await page.getByRole('tab', { name: 'View Orders' }).click();
  await page.getByLabel('Search orders').fill(name);
  await page.getByLabel('Search orders').press('Enter');
  const orderCard = page.getByRole('article').filter({ has: page.getByRole('heading', { name: `Order ${order.id}` }) });
  await expect(orderCard).toBeVisible();

  // A full refund: the provider accepts it, then fails it (its refund.failed comes a moment later).
  await orderCard.getByRole('button', { name: `Refund order ${order.id}` }).click();
  await page
    .getByRole('dialog', { name: `Refund order ${order.id}` })
    .getByRole('button', { name: 'Issue refund' })
    .click();
  await expect(page.getByText('Refund issued.').first()).toBeVisible();
  // Nothing went back to the card: the buyer is not told Refunded, but that a refund is in progress.
  await expect(buyerCard).toContainText('Refund in progress');

  // The admin reads why on the order, and retries.
  await orderCard.getByRole('button', { name: `Details of order ${order.id}` }).click();
  const details = page.getByRole('dialog', { name: `Order ${order.id}` });
  const refunds = details.getByRole('list', { name: 'Refunds' });
  // The exact text the desk shows for it:
  await expect(refunds.getByRole('listitem')).toContainText(
    `${card} to the card, $0.00 to the wallet — Failed: The payment provider could not return the card refund (the card has expired or was canceled), so nothing was refunded to the card. Retry sends it as a new card refund.`,
  );
  await expect(details.getByRole('list', { name: 'History' })).toContainText('Refund failed');
  await refunds.getByRole('button', { name: 'Retry refund' }).click();
  await expect(page.getByText('Refund issued.').first()).toBeVisible();
  await expect(refunds.getByRole('listitem')).toHaveText(`${card} to the card, $0.00 to the wallet — Refunded`);
  await expect(refunds.getByRole('button', { name: 'Retry refund' })).toHaveCount(0);
  await expect(details.getByRole('list', { name: 'History' })).toContainText('Card refund retried');
  await details.getByRole('button', { name: 'Close' }).first().click();
  await expect(orderCard).toContainText('Refunded');
  // The buyer's page follows without a reload.
  await expect(buyerCard).toContainText('Refunded');
  await expect(buyerCard).not.toContainText('Refund in progress');
  await buyerContext.close();
});
