// The label's order desk in a real browser (issue 16): search, status filters, Mark Fulfilled
// with tracking, bulk fulfilment, the packing-list CSV download and a refund the buyer sees
// live on My Orders.
import fs from 'node:fs';
import { quotedTotals } from '@storefront/domain/pricing.ts';
import { callAs, releaseProductAs, tokenOf } from './support/api.ts';
import { test, expect, DEMO_ADMIN, DEMO_SHIPPING, DEMO_SHOPPER } from './support/fixtures.ts';
import { logIn } from './support/login.ts';

test('the order desk: search, filters, tracking, bulk fulfil, packing list and a refund seen live by the buyer', async ({ page, request, browser }) => {
  const admin = await tokenOf(request, DEMO_ADMIN);
  const shopper = await tokenOf(request, DEMO_SHOPPER);
  const name = `E2E Desk Tee ${Date.now().toString(36)}`;
  const productId = await releaseProductAs(request, admin, { name, description: 'For the desk test.', priceCents: 700 });
  for (let i = 0; i < 3; i += 1) {
    const items = [{ id: productId, qty: 1 }];
    const quote = await callAs(request, shopper, 'quoteCheckout', { items, useWallet: true });
    await callAs(request, shopper, 'completeWalletOnlyOrderStreetFlavor', {
      items,
      contact: { name: 'Demo Shopper', email: DEMO_SHOPPER.email, phone: '' },
      shipping: DEMO_SHIPPING,
      quote: quotedTotals(quote),
      checkoutId: `desk${Date.now()}${i}`,
    });
  }
  const { items: placed } = await callAs(request, admin, 'listOrders', { status: 'all', q: name });
  expect(placed).toHaveLength(3);
  const [first, second, third] = placed.map((order) => order.id) as [string, string, string];

  // The buyer watches My Orders in their own browser.
  const buyerContext = await browser.newContext();
  const buyer = await buyerContext.newPage();
  await logIn(buyer, DEMO_SHOPPER);
  await buyer.goto('/my-orders');
  const buyerCard = buyer.getByRole('article').filter({ hasText: `Order ${first}` });
  await expect(buyerCard).toContainText('Processing');

  await logIn(page, DEMO_ADMIN);
  await page.goto('/release');
  await page.getByRole('tab', { name: 'View Orders' }).click();
  await expect(page.getByRole('heading', { name: 'Open orders' })).toBeVisible();
  const card = (orderId: string) => page.getByRole('article').filter({ has: page.getByRole('heading', { name: `Order ${orderId}` }) });

  // Search by product, then filters.
  await page.getByLabel('Search orders').fill(name);
  await page.getByLabel('Search orders').press('Enter');
  await expect(page.getByRole('heading', { name: 'Orders', exact: true })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Orders' }).getByRole('article')).toHaveCount(3);
  await page.getByRole('radio', { name: 'Shipped' }).check();
  await expect(page.getByText('No orders match.')).toBeVisible();
  await page.getByRole('radio', { name: 'Unfulfilled' }).check();
  await expect(card(first)).toBeVisible();

  // Mark Fulfilled with a carrier and tracking number.
  await card(first).getByRole('button', { name: 'Mark Fulfilled' }).click();
  const confirm = page.getByRole('dialog', { name: 'Mark this order fulfilled?' });
  await confirm.getByLabel('Carrier (optional)').selectOption('UPS');
  await confirm.getByLabel('Tracking number (optional)').fill('1Z999AA10123456784');
  await confirm.getByRole('button', { name: 'Yes, Mark Fulfilled' }).click();
  await expect(card(first)).toHaveCount(0);
  await expect(buyerCard).toContainText('Shipped');
  await expect(buyerCard.getByRole('link', { name: '1Z999AA10123456784' })).toHaveAttribute('href', 'https://www.ups.com/track?tracknum=1Z999AA10123456784');

  // Bulk: the other two at once.
  await card(second)
    .getByRole('checkbox', { name: `Select order ${second}` })
    .check();
  await card(third)
    .getByRole('checkbox', { name: `Select order ${third}` })
    .check();
  await page.getByRole('button', { name: 'Mark selected fulfilled (2)' }).click();
  await page.getByRole('dialog', { name: 'Mark 2 orders fulfilled?' }).getByRole('button', { name: 'Yes, Mark Fulfilled' }).click();
  await expect(page.getByText('2 orders marked fulfilled.').first()).toBeVisible();
  await expect(page.getByText('No orders match.')).toBeVisible();

  // The packing list of the search, all statuses.
  await page.getByRole('radio', { name: 'All' }).check();
  await expect(card(first)).toBeVisible();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download packing list (CSV)' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^packing-list-all-\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = fs.readFileSync((await download.path())!, 'utf8');
  expect(csv).toContain('order_id,created_at,status,buyer_name');
  expect(csv.split('\r\n').filter((line) => line.includes(name))).toHaveLength(3);
  expect(csv).toContain('"1 Record Row, Flat 2"');

  // A full refund from the dialog, by keyboard; the buyer sees Refunded without reloading.
  await card(first)
    .getByRole('button', { name: `Refund order ${first}` })
    .click();
  const refund = page.getByRole('dialog', { name: `Refund order ${first}` });
  await expect(refund.getByRole('radio', { name: /Full refund/ })).toBeChecked();
  await refund.getByRole('button', { name: 'Issue refund' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByText(/Refund issued\./).first()).toBeVisible();
  await expect(buyerCard).toContainText('Refunded');
  await page.getByRole('radio', { name: 'Refunded' }).check();
  await expect(card(first)).toContainText('Refunded');
  await expect(card(second)).toHaveCount(0);

  // Details: history with who refunded.
  await card(first)
    .getByRole('button', { name: `Details of order ${first}` })
    .click();
  const details = page.getByRole('dialog', { name: `Order ${first}` });
  await expect(details.getByRole('list', { name: 'History' })).toContainText('Fulfilled');
  await expect(details.getByRole('list', { name: 'History' })).toContainText(`Refunded`);
  await expect(details.getByRole('list', { name: 'History' })).toContainText(DEMO_ADMIN.email);
  // Its refunds, each with its state (decision 034).
  await expect(details.getByRole('list', { name: 'Refunds' })).toContainText(/to the card, .* to the wallet — Refunded/);
  await buyerContext.close();
});
