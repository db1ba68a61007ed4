// Statements and payouts (issue 36 parts 4-5, decision 077) in a real browser: the label sets a
// 50/50 split of a release between its artist and its producer with a $2,000 advance recouped
// from the artist; two buyers buy it and one order is refunded. The producer's statement of the
// month shows the sale and the return by release and format; the label issues it (then it no
// longer changes), downloads it as CSV, connects the producer's payout account and runs the
// month's payouts: the producer is paid the $10.00 balance once, the artist (all recouped) nothing.
import fs from 'node:fs';
import { formatUsd } from '@storefront/domain/money.ts';
import { createVerifiedUser } from './support/accounts.ts';
import { callAs, tokenOf } from './support/api.ts';
import { seriousAxeProblems } from './support/axe.ts';
import { runCli } from './support/cli.ts';
import { test, expect, DEMO_ADMIN } from './support/fixtures.ts';
import { rememberingLogIn } from './support/login.ts';

const logIn = rememberingLogIn();

test('the label issues a statement and runs payouts: the producer is paid once, the recouping artist accrues', async ({ page, request }) => {
  const suffix = Date.now().toString(36);
  const artistName = `E2E Statement Artist ${suffix}`;
  const producerName = `E2E Statement Producer ${suffix}`;
  const title = `E2E Statement EP ${suffix}`;
  const admin = await tokenOf(request, DEMO_ADMIN);
  const { id: releaseId } = await callAs(request, admin, 'saveRelease', {
    kind: 'ep',
    title,
    artist: artistName,
    releaseDate: '2026-05-01',
    priceCents: 2000,
    published: true,
    tracks: [{ title: 'Statement one' }],
  });
  const { id: artistId } = await callAs(request, admin, 'saveArtist', { name: artistName, links: [] });
  await callAs(request, admin, 'linkArtist', { artistId, subject: { kind: 'release', id: releaseId }, linked: true });

  await logIn(page, DEMO_ADMIN);
  await page.goto('/release/roster');
  const section = page.getByRole('region', { name: 'Royalties' });
  await expect(section).toBeVisible();
  const party = section.getByRole('form', { name: 'New party' });
  await party.getByLabel('New party').selectOption('artist');
  await party.getByLabel('Roster artist').selectOption({ label: artistName });
  await party.getByRole('button', { name: 'Add party' }).click();
  await expect(section.getByTestId('royalty-balance').filter({ hasText: artistName })).toBeVisible();
  await party.getByLabel('New party').selectOption('producer');
  await party.getByLabel('Party name').fill(producerName);
  await party.getByRole('button', { name: 'Add party' }).click();
  const producerRow = section.getByTestId('royalty-balance').filter({ hasText: producerName });
  await expect(producerRow).toBeVisible();
  // 50/50 between the artist and the producer, $2,000 to recoup from the artist.
  const split = section.getByRole('form', { name: 'Set a split' });
  await split.getByLabel('Split for').selectOption({ label: `Release: ${title}` });
  await split.getByLabel('Party 1', { exact: true }).selectOption({ label: artistName });
  await split.getByLabel('Share 1 (%)').fill('50');
  await split.getByLabel('Party 2', { exact: true }).selectOption({ label: producerName });
  await split.getByLabel('Share 2 (%)').fill('50');
  await split.getByRole('button', { name: 'Save split' }).click();
  await expect(section.getByTestId('royalty-split').filter({ hasText: title })).toContainText(`${artistName} 50%, ${producerName} 50%`);
  const recoup = section.getByRole('form', { name: 'Add a recoupable cost' });
  await recoup.getByLabel('Release').selectOption({ label: title });
  await recoup.getByLabel('Recouped from').selectOption({ label: artistName });
  await recoup.getByLabel('Kind of cost').selectOption('advance');
  await recoup.getByLabel('Amount ($)').fill('2000');
  await recoup.getByRole('button', { name: 'Add cost' }).click();
  await expect(section.getByTestId('royalty-cost').filter({ hasText: artistName })).toContainText('$2,000.00, recouped $0.00');

  // Two buyers buy the release ($20.00 each: $10.00 to each party a sale); one order is refunded ($10.00 back from each).
  const { release } = await callAs(request, admin, 'getRelease', { id: releaseId });
  const orderIds: string[] = [];
  for (const round of [1, 2]) {
    const buyer = await createVerifiedUser(request);
    await runCli(['grant-credits', buyer.email, '100']);
    const shopper = await tokenOf(request, buyer);
    const items = [{ id: release!.productId!, qty: 1 }];
    const quote = await callAs(request, shopper, 'quoteCheckout', { items, useWallet: true });
    const { orderId } = await callAs(request, shopper, 'completeWalletOnlyOrderStreetFlavor', {
      items,
      quote,
      checkoutId: `e2e-statements-${suffix}-${round}`,
      contact: { name: buyer.name, email: buyer.email, phone: '' },
      shipping: { name: buyer.name, line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' },
    });
    orderIds.push(orderId);
  }
  await callAs(request, admin, 'refundOrder', { orderId: orderIds[1]!, idempotencyKey: `e2e-statements-refund-${suffix}` });
  await page.reload();
  await expect(producerRow.getByRole('cell')).toHaveText([formatUsd(1000), formatUsd(0), formatUsd(0), formatUsd(1000)]);

  // The producer's statement of this month: a draft, then issued.
  const month = new Date().toISOString().slice(0, 7);
  const statements = section.getByRole('region', { name: 'Statements' });
  const form = statements.getByRole('form', { name: 'Statement' });
  await form.getByLabel('Statement party').selectOption({ label: producerName });
  await form.getByLabel('Month or quarter').fill(month);
  await form.getByRole('button', { name: 'Show statement' }).click();
  const sheet = statements.getByTestId('royalty-statement');
  await expect(sheet).toContainText('Draft: not issued yet');
  await expect(sheet.getByRole('row', { name: /^Earnings/ })).toContainText(formatUsd(1000));
  await expect(sheet.getByRole('row', { name: new RegExp(title) })).toContainText(`${formatUsd(2000)}${formatUsd(-1000)}${formatUsd(1000)}`);
  await expect(sheet.getByTestId('statement-closing')).toHaveText(formatUsd(1000));
  await statements.getByRole('button', { name: 'Issue statement' }).click();
  await expect(sheet).toContainText(`Issued ${new Date().toISOString().slice(0, 10)}`);
  await expect(statements.getByRole('button', { name: 'Issue statement' })).toHaveCount(0);
  await expect(statements.getByTestId('issued-statement').filter({ hasText: producerName })).toContainText(`${producerName} · ${month} closing ${formatUsd(1000)}`);
  const [download] = await Promise.all([page.waitForEvent('download'), statements.getByRole('button', { name: 'Download CSV' }).click()]);
  expect(download.suggestedFilename()).toMatch(new RegExp(`^statement-e2e-statement-producer-${suffix}-${month}\\.csv$`));
  const csv = fs.readFileSync((await download.path())!, 'utf8');
  expect(csv).toContain('closing_balance,10.00\r\n');
  expect(csv).toContain(`${title},`);
  expect(await seriousAxeProblems(page)).toEqual([]);

  // The producer's connected account; then the month's payouts.
  const account = section.getByRole('form', { name: 'Payout account' });
  await account.getByLabel('Account party').selectOption({ label: producerName });
  await account.getByLabel('Connected account (acct_…, empty: none)').fill('not-an-account');
  await account.getByRole('button', { name: 'Save account' }).click();
  await expect(account.getByRole('alert')).toHaveText('A connected account id starts with acct_.');
  await account.getByLabel('Connected account (acct_…, empty: none)').fill(`acct_e2e_${suffix}`);
  await account.getByRole('button', { name: 'Save account' }).click();
  await expect(account.getByRole('listitem').filter({ hasText: producerName })).toHaveText(`${producerName}: acct_e2e_${suffix}`);
  const payouts = section.getByRole('region', { name: 'Payouts' });
  await payouts.getByLabel('Pay balances up to the end of (month or quarter)').fill(month);
  await payouts.getByRole('button', { name: 'Run payouts' }).click();
  await expect(payouts.getByTestId('payout-run-result')).toContainText(new RegExp(`^Payout run ${month}: \\d+ paid, 0 waiting, 0 failed\\.`));
  const paid = payouts.getByTestId('royalty-payout').filter({ hasText: producerName });
  await expect(paid).toHaveCount(1);
  await expect(paid.getByRole('cell')).toHaveText([month, formatUsd(1000), 'Paid', /^tr_local_rpo_/]);
  await expect(producerRow.getByRole('cell').last()).toHaveText(formatUsd(0));
  // Running the month again pays nobody twice.
  await payouts.getByRole('button', { name: 'Run payouts' }).click();
  await expect(payouts.getByTestId('royalty-payout').filter({ hasText: producerName })).toHaveCount(1);
  await expect(producerRow.getByRole('cell').last()).toHaveText(formatUsd(0));
});
