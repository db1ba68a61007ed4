// Refunds by amount and the wallet history (issue 29 items 2 and 7, decision 050), at 1366 px and
// on a 375 px phone. A buyer pays an order partly from the wallet and partly by card; the admin
// refunds an amount on the order desk, sees before confirming how it splits between card and
// wallet and why, and confirms; the buyer's My Orders and refund email say the same split, and
// the wallet history shows the credit, the purchase and the refund, each with its order, and no
// hold lines. axe finds nothing serious on the dialog, My Orders or the wallet.
// This spec refunds a card: it runs after refund-retry.spec.ts (files run in name order on one
// worker), whose test switch fails the run's first card refund. Run alone: LOCAL_REFUND_FAILURES=0.
import { formatUsd } from '@storefront/domain/catalog.ts';
import { planRefund } from '@storefront/domain/refunds.ts';
import { createVerifiedUser } from './support/accounts.ts';
import { callAs, releaseProductAs, tokenOf } from './support/api.ts';
import { seriousAxeProblems } from './support/axe.ts';
import { runCli } from './support/cli.ts';
import { test, expect, DEMO_ADMIN, DEMO_SHIPPING, ORIGIN } from './support/fixtures.ts';
import { logIn } from './support/login.ts';

const VIEWPORTS = [
  { name: '1366 px', width: 1366, height: 900 },
  { name: 'a 375 px phone', width: 375, height: 740 },
];

function decodeEntities(html: string): string {
  return html.replace(/&#(\d+);/g, (_match, code: string) => String.fromCharCode(Number(code))).replace(/&amp;/g, '&');
}

for (const viewport of VIEWPORTS) {
  test(`a refund by amount at ${viewport.name}: the desk shows the split and why, My Orders, the email and the wallet history say the same`, async ({ page, request, browser }) => {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    const admin = await tokenOf(request, DEMO_ADMIN);
    const buyer = await createVerifiedUser(request);
    await runCli(['grant-credits', buyer.email, '10']);
    const shopper = await tokenOf(request, buyer);
    const name = `E2E Amount Tee ${Date.now().toString(36)}`;
    const productId = await releaseProductAs(request, admin, { name, description: 'For the refund by amount test.', priceCents: 3000 });
    // $10 from the wallet, the rest by card on the local payment page.
    const link = await callAs(request, shopper, 'createPaymentLinkStreetFlavorMerch', {
      items: [{ id: productId, qty: 1 }],
      useWallet: true,
      contact: { name: buyer.name, email: buyer.email, phone: '' },
      shipping: DEMO_SHIPPING,
    });
    const paid = await request.post(link.url, { form: { card: '4242 4242 4242 4242' }, headers: { authorization: `Bearer ${shopper}`, origin: ORIGIN }, maxRedirects: 0 });
    expect(paid.status()).toBe(302);
    const found = await callAs(request, admin, 'listOrders', { status: 'all', q: name });
    expect(found.items).toHaveLength(1);
    const order = found.items[0]!;
    expect(order.totals.walletAppliedCents).toBe(1000);
    expect(order.totals.chargedCents).toBeGreaterThan(0);
    // The split the server will make, from what the desk reads: $12.34 of the order.
    const { refundable } = await callAs(request, admin, 'getOrder', { orderId: order.id });
    const plan = planRefund(refundable, { amountCents: 1234 });
    expect(plan.walletCents).toBeGreaterThan(0);
    expect(plan.cardCents).toBeGreaterThan(plan.walletCents);

    await logIn(page, DEMO_ADMIN);
    await page.goto('/release/orders');
    await page.getByLabel('Search orders').fill(name);
    await page.getByLabel('Search orders').press('Enter');
    const orderCard = page.getByRole('article').filter({ has: page.getByRole('heading', { name: `Order ${order.id}` }) });
    await orderCard.getByRole('button', { name: `Refund order ${order.id}` }).click();
    const dialog = page.getByRole('dialog', { name: `Refund order ${order.id}` });
    await dialog.getByRole('radio', { name: 'An amount' }).check();
    await dialog.getByLabel('Amount to refund (USD)').fill('12.34');
    const preview = dialog.getByTestId('refund-preview');
    await expect(preview).toContainText(`${formatUsd(plan.cardCents)} to the card, ${formatUsd(plan.walletCents)} to the wallet`);
    await expect(preview).toContainText('Split in proportion to what each part has left to give back');
    // More than is left is refused before it is sent, with the reason.
    await dialog.getByLabel('Amount to refund (USD)').fill('999.00');
    await expect(preview).toContainText('You cannot refund more than is left to refund');
    await dialog.getByLabel('Amount to refund (USD)').fill('12.34');
    await expect(preview).toContainText(`${formatUsd(plan.cardCents)} to the card`);
    expect(await seriousAxeProblems(page), `refund dialog at ${viewport.name}`).toEqual([]);
    if (viewport.width === 375) expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await dialog.getByRole('button', { name: 'Issue refund' }).click();
    await expect(page.getByText(`Refund issued. ${formatUsd(plan.cardCents)} to the card, ${formatUsd(plan.walletCents)} to the wallet.`).first()).toBeVisible();

    // The buyer: My Orders shows the same split, the email says it, the wallet names the order.
    const buyerContext = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
    const buyerPage = await buyerContext.newPage();
    await logIn(buyerPage, buyer);
    await buyerPage.goto('/my-orders');
    const mine = buyerPage.getByRole('article').filter({ hasText: `Order ${order.id}` });
    await expect(mine).toContainText('Partially refunded');
    await expect(mine).toContainText(`Refunded to card${formatUsd(plan.cardCents)}`);
    await expect(mine).toContainText(`Refunded to wallet${formatUsd(plan.walletCents)}`);
    expect(await seriousAxeProblems(buyerPage), `My Orders at ${viewport.name}`).toEqual([]);

    await expect(async () => {
      const html = decodeEntities(await (await request.get('/dev/mailbox')).text());
      const mail = [...html.matchAll(/<article><h2>(.*?)<\/h2><p>To: (.*?) · .*?<\/p><pre>([\s\S]*?)<\/pre><\/article>/g)].find(
        ([, subject = '', to = '']) => to === buyer.email && subject.includes(`order ${order.id} was partly refunded`),
      );
      expect(mail?.[3]).toContain(`${formatUsd(plan.cardCents)} back to your card`);
      expect(mail?.[3]).toContain(`${formatUsd(plan.walletCents)} back to your wallet`);
    }).toPass({ timeout: 20_000 });

    await buyerPage.goto('/wallet');
    const rows = buyerPage.getByRole('region', { name: 'History' }).getByRole('row');
    // The header, the refund, the wallet part of the purchase and the credit: no hold lines.
    await expect(rows).toHaveCount(4);
    await expect(rows.nth(1)).toContainText('Refund');
    await expect(rows.nth(1)).toContainText(`+${formatUsd(plan.walletCents)}`);
    await expect(rows.nth(1).getByRole('link', { name: `Order ${order.id}` })).toBeVisible();
    await expect(rows.nth(2)).toContainText('Paid from wallet');
    await expect(rows.nth(2)).toContainText('-$10.00');
    await expect(rows.nth(2).getByRole('link', { name: `Order ${order.id}` })).toBeVisible();
    await expect(rows.nth(3)).toContainText('Credit');
    await expect(rows.nth(1).getByRole('cell').last()).toHaveText(formatUsd(plan.walletCents));
    await expect(buyerPage.getByRole('region', { name: 'History' })).not.toContainText('Hold released');
    await expect(buyerPage.getByRole('region', { name: 'History' })).not.toContainText('On hold');
    expect(await seriousAxeProblems(buyerPage), `wallet at ${viewport.name}`).toEqual([]);
    if (viewport.width === 375) expect(await buyerPage.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await buyerContext.close();
  });
}
