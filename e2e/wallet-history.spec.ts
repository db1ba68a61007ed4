// Wallet history (issue 17): every credit and debit with its date, amount, order link and
// the balance after it, live when credit arrives, and the order link leads to the order.
import { createVerifiedUser } from './support/accounts.ts';
import { runCli } from './support/cli.ts';
import { callAs, tokenOf } from './support/api.ts';
import { seriousAxeProblems } from './support/axe.ts';
import { test, expect, DEMO_ADMIN } from './support/fixtures.ts';
// The shop's one money formatter (issue 34): the texts the pages show.
import { formatUsd as usd } from '@storefront/domain/money.ts';

const COVER = '/content/covers/cover-01.svg';

test('the wallet lists credits and an order paid from it, with running balances, live', async ({ page, request }) => {
  const user = await createVerifiedUser(request);
  await runCli(['grant-credits', user.email, '100']);

  // A product, and a wallet-only order of it placed through the API as the user.
  const admin = await tokenOf(request, DEMO_ADMIN);
  const { id: productId } = await callAs(request, admin, 'releaseBizarreProduct', {
    name: `E2E History ${Date.now().toString(36)}`,
    description: 'For the wallet history test.',
    priceCents: 1500,
    images: [COVER],
  });
  const asUser = await tokenOf(request, user);
  const items = [{ id: productId, qty: 1 }];
  const quote = await callAs(request, asUser, 'quoteCheckout', { items, useWallet: true });
  const { orderId } = await callAs(request, asUser, 'completeWalletOnlyOrderStreetFlavor', {
    items,
    quote,
    checkoutId: `e2e-history-${Date.now()}`,
    contact: { name: user.name, email: user.email, phone: '' },
    shipping: { name: user.name, line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' },
  });
  const spent = quote.walletAppliedCents!;

  await page.goto('/login');
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Login', exact: true }).click();
  await expect(page).toHaveURL(/\/shop$/);
  await page.goto('/wallet');

  const history = page.getByRole('region', { name: 'History' });
  const rows = history.getByRole('row');
  await expect(rows).toHaveCount(3); // the header and two entries
  await expect(rows.nth(1)).toContainText('Paid from wallet');
  await expect(rows.nth(1)).toContainText(`-${usd(spent)}`);
  await expect(rows.nth(1)).toContainText(usd(10_000 - spent));
  await expect(rows.nth(1).getByRole('link', { name: `Order ${orderId}` })).toBeVisible();
  await expect(rows.nth(2)).toContainText('Credit');
  await expect(rows.nth(2)).toContainText('+$100.00');
  await expect(rows.nth(2).getByRole('cell').last()).toHaveText('$100.00');

  // Credit granted elsewhere appears at the top, with the new balance, without a reload.
  await runCli(['grant-credits', user.email, '5']);
  await expect(rows).toHaveCount(4);
  await expect(rows.nth(1)).toContainText('+$5.00');
  await expect(rows.nth(1).getByRole('cell').last()).toHaveText(usd(10_500 - spent));

  // The order link opens My Orders at that order.
  await rows
    .nth(2)
    .getByRole('link', { name: `Order ${orderId}` })
    .click();
  await expect(page).toHaveURL(new RegExp(`/my-orders#order-${orderId}$`));
  await expect(page.locator(`#order-${orderId}`)).toBeVisible();
});

// Issue 29 item 7: a hold is a line only while its card payment is open; a cancelled checkout
// leaves no "On hold" / "Hold released" pair behind, at 1366 px and on a 375 px phone.
for (const viewport of [
  { name: '1366 px', width: 1366, height: 900 },
  { name: 'a 375 px phone', width: 375, height: 740 },
]) {
  test(`a hold shows while its card payment is open and leaves no lines once it is cancelled, at ${viewport.name}`, async ({ page, request }) => {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    const user = await createVerifiedUser(request);
    await runCli(['grant-credits', user.email, '20']);
    const admin = await tokenOf(request, DEMO_ADMIN);
    const { id: productId } = await callAs(request, admin, 'releaseBizarreProduct', {
      name: `E2E Hold ${Date.now().toString(36)}`,
      description: 'For the wallet history hold test.',
      priceCents: 3000,
      images: [COVER],
    });
    const asUser = await tokenOf(request, user);
    const link = await callAs(request, asUser, 'createPaymentLinkStreetFlavorMerch', {
      items: [{ id: productId, qty: 1 }],
      useWallet: true,
      contact: { name: user.name, email: user.email, phone: '' },
      shipping: { name: user.name, line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' },
    });

    await page.goto('/login');
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Login', exact: true }).click();
    await expect(page).toHaveURL(/\/shop$/);
    await page.goto('/wallet');
    const history = page.getByRole('region', { name: 'History' });
    const rows = history.getByRole('row');
    await expect(rows).toHaveCount(3); // the header, the open hold and the credit
    await expect(rows.nth(1)).toContainText('On hold for a card payment');
    await expect(rows.nth(1)).toContainText('-$20.00');
    await expect(rows.nth(1).getByRole('cell').last()).toHaveText('$0.00');
    await expect(rows.nth(2)).toContainText('Credit');
    expect(await seriousAxeProblems(page), `wallet at ${viewport.name}`).toEqual([]);
    if (viewport.width === 375) expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);

    // Cancelled: the hold is released; neither it nor its release is a line, the balance is back.
    expect(await callAs(request, asUser, 'cancelOpenPayment', { checkoutId: link.checkoutId })).toEqual({ cancelled: true });
    await page.reload();
    await expect(rows).toHaveCount(2);
    await expect(rows.nth(1)).toContainText('Credit');
    await expect(rows.nth(1).getByRole('cell').last()).toHaveText('$20.00');
    await expect(history).not.toContainText('Hold released');
    await expect(history).not.toContainText('On hold');
  });
}
