// The parties' portal (issue 36 part 6, decision 080) in a real browser: the label sets a 50/50
// split between itself and the artist with a $2,000 recoup; two fans buy the release and one's
// line is refunded; the label issues the artist's statement, runs the month's payouts and invites
// the artist by email from the console. The artist opens the mail's link, logs in with their shop
// account, accepts, and sees the statement, the recoup progress and their sales (nothing of the
// label's other figures), then connects payouts through the payout provider's onboarding.
import { formatUsd } from '@storefront/domain/money.ts';
import { createVerifiedUser, mailLink } from './support/accounts.ts';
import { callAs, tokenOf } from './support/api.ts';
import { seriousAxeProblems } from './support/axe.ts';
import { runCli } from './support/cli.ts';
import { test, expect, DEMO_ADMIN } from './support/fixtures.ts';
import { fillLogin, rememberingLogIn } from './support/login.ts';

const logIn = rememberingLogIn();

test('the label invites its artist, who signs in and sees their statement and recoup, and connects payouts', async ({ page, request, browser, consoleErrors }) => {
  const suffix = Date.now().toString(36);
  const artistName = `E2E Portal Artist ${suffix}`;
  const title = `E2E Portal EP ${suffix}`;
  const admin = await tokenOf(request, DEMO_ADMIN);
  const { id: releaseId } = await callAs(request, admin, 'saveRelease', {
    kind: 'ep',
    title,
    artist: artistName,
    releaseDate: '2026-05-01',
    priceCents: 2000,
    published: true,
    tracks: [{ title: 'Portal one' }],
  });
  const { id: artistId } = await callAs(request, admin, 'saveArtist', { name: artistName, links: [] });
  await callAs(request, admin, 'linkArtist', { artistId, subject: { kind: 'release', id: releaseId }, linked: true });

  // The label: the artist's party, a 50/50 split with the label, $2,000 to recoup from the artist.
  await logIn(page, DEMO_ADMIN);
  await page.goto('/release/roster');
  const section = page.getByRole('region', { name: 'Royalties' });
  const party = section.getByRole('form', { name: 'New party' });
  await party.getByLabel('New party').selectOption('artist');
  await party.getByLabel('Roster artist').selectOption({ label: artistName });
  await party.getByRole('button', { name: 'Add party' }).click();
  const artistRow = section.getByTestId('royalty-balance').filter({ hasText: artistName });
  await expect(artistRow).toBeVisible();
  const split = section.getByRole('form', { name: 'Set a split' });
  await split.getByLabel('Split for').selectOption({ label: `Release: ${title}` });
  await split.getByLabel('Party 1', { exact: true }).selectOption({ label: 'The label' });
  await split.getByLabel('Share 1 (%)').fill('50');
  await split.getByLabel('Party 2', { exact: true }).selectOption({ label: artistName });
  await split.getByLabel('Share 2 (%)').fill('50');
  await split.getByRole('button', { name: 'Save split' }).click();
  await expect(section.getByTestId('royalty-split').filter({ hasText: title })).toContainText(`The label 50%, ${artistName} 50%`);
  const recoup = section.getByRole('form', { name: 'Add a recoupable cost' });
  await recoup.getByLabel('Release').selectOption({ label: title });
  await recoup.getByLabel('Recouped from').selectOption({ label: artistName });
  await recoup.getByLabel('Kind of cost').selectOption('advance');
  await recoup.getByLabel('Amount ($)').fill('2000');
  await recoup.getByRole('button', { name: 'Add cost' }).click();
  await expect(section.getByTestId('royalty-cost').filter({ hasText: artistName })).toContainText('$2,000.00, recouped $0.00');

  // Two fans buy the download ($40.00: $20.00 to the artist, recouped); one's line is refunded ($10.00 back).
  const { release } = await callAs(request, admin, 'getRelease', { id: releaseId });
  const orderIds: string[] = [];
  for (const round of [1, 2]) {
    const fan = await createVerifiedUser(request);
    await runCli(['grant-credits', fan.email, '100']);
    const shopper = await tokenOf(request, fan);
    const items = [{ id: release!.productId!, qty: 1 }];
    const quote = await callAs(request, shopper, 'quoteCheckout', { items, useWallet: true });
    const { orderId } = await callAs(request, shopper, 'completeWalletOnlyOrderStreetFlavor', {
      items,
      quote,
      checkoutId: `e2e-portal-${suffix}-${round}`,
      contact: { name: fan.name, email: fan.email, phone: '' },
      shipping: { name: fan.name, line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' },
    });
    orderIds.push(orderId);
  }
  const { order } = await callAs(request, admin, 'getOrder', { orderId: orderIds[1]! });
  await callAs(request, admin, 'refundOrder', { orderId: orderIds[1]!, lines: [{ lineId: order.lines[0]!.lineId, quantity: 1 }], idempotencyKey: `e2e-portal-refund-${suffix}` });
  await page.reload();
  await expect(artistRow.getByRole('cell')).toHaveText([formatUsd(1000), formatUsd(1000), formatUsd(0), formatUsd(0)]);

  // The label issues the artist's statement of the month and runs payouts (the artist, all recouped, gets nothing).
  const month = new Date().toISOString().slice(0, 7);
  const statements = section.getByRole('region', { name: 'Statements' });
  const form = statements.getByRole('form', { name: 'Statement' });
  await form.getByLabel('Statement party').selectOption({ label: artistName });
  await form.getByLabel('Month or quarter').fill(month);
  await form.getByRole('button', { name: 'Show statement' }).click();
  await statements.getByRole('button', { name: 'Issue statement' }).click();
  await expect(statements.getByTestId('royalty-statement')).toContainText(`Issued ${new Date().toISOString().slice(0, 10)}`);
  // Last month's run: a run's cut-off is fixed by its first call, and this month's belongs to royalty-statements.spec.ts.
  const lastMonth = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() - 1, 1)).toISOString().slice(0, 7);
  const payouts = section.getByRole('region', { name: 'Payouts' });
  await payouts.getByLabel('Pay balances up to the end of (month or quarter)').fill(lastMonth);
  await payouts.getByRole('button', { name: 'Run payouts' }).click();
  await expect(payouts.getByTestId('payout-run-result')).toContainText(new RegExp(`^Payout run ${lastMonth}: \\d+ paid, 0 waiting, 0 failed\\.`));

  // The label invites the artist by email.
  const artist = await createVerifiedUser(request);
  const invitations = section.getByRole('region', { name: 'Portal invitations' });
  const invite = invitations.getByRole('form', { name: 'Invite a party' });
  await invite.getByLabel('Invite party').selectOption({ label: artistName });
  await invite.getByLabel('Their email').fill(artist.email);
  await invite.getByRole('button', { name: 'Invite' }).click();
  const invitation = invitations.getByTestId('royalty-invitation').filter({ hasText: artistName });
  await expect(invitation).toHaveText(new RegExp(`^${artistName} · ${artist.email.replace(/[.+]/g, '\\$&')} · Invited, not accepted yet`));
  expect(await seriousAxeProblems(page)).toEqual([]);

  // The artist, in a browser of their own, opens the mail's link signed out, logs in and accepts.
  const context = await browser.newContext({ viewport: { width: 375, height: 800 } });
  const artistPage = await context.newPage();
  consoleErrors.watch(artistPage);
  const link = await mailLink(request, artist.email, 'Your royalties', '/portal/accept');
  await artistPage.goto(link);
  await artistPage.getByRole('link', { name: 'Log in to accept' }).click();
  await expect(artistPage.getByRole('heading', { level: 1 })).toHaveText('Login');
  await fillLogin(artistPage, artist);
  await expect(artistPage).toHaveURL(/\/portal\/accept\?token=/);
  await artistPage.getByRole('button', { name: 'Accept the invitation' }).click();
  await expect(artistPage).toHaveURL(/\/portal$/);

  // The portal: the artist's party only, its recoup progress, sales and issued statement.
  const mine = artistPage.getByTestId('portal-party');
  await expect(mine).toHaveCount(1);
  await expect(mine.getByRole('heading', { level: 2 })).toContainText(artistName);
  await expect(mine.getByTestId('portal-recoup')).toContainText(`${title}: ${formatUsd(1000)} of ${formatUsd(200000)} recouped (under 1%), ${formatUsd(199000)} to go`);
  await expect(mine.getByRole('progressbar', { name: `Recouped of ${title}` })).toHaveAttribute('aria-valuenow', '0');
  await expect(mine.getByTestId('portal-sale').getByRole('cell')).toHaveText(['2', formatUsd(2000), formatUsd(-1000), formatUsd(1000)]);
  await expect(mine.getByTestId('portal-balance')).toHaveText(`Balance now: ${formatUsd(0)}`);
  await expect(mine).not.toContainText('The label');
  await mine.getByRole('button', { name: `Statement ${month}` }).click();
  const sheet = mine.getByTestId('royalty-statement');
  await expect(sheet).toContainText(`Statement · ${artistName} · ${month}`);
  await expect(sheet.getByRole('row', { name: /^Earnings/ })).toContainText(formatUsd(1000));
  await expect(sheet.getByRole('row', { name: /^Recouped costs/ })).toContainText(formatUsd(-1000));
  await expect(sheet.getByTestId('statement-closing')).toHaveText(formatUsd(0));
  // Nothing wider than the phone's screen.
  expect(await artistPage.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  expect(await seriousAxeProblems(artistPage)).toEqual([]);

  // Connect payouts with the keyboard: the provider's onboarding (the local stand-in), then back to the portal.
  await expect(mine.getByTestId('portal-payouts')).toHaveText('No payout account yet: your balance waits (accrues) until you connect one.');
  await mine.getByRole('button', { name: 'Connect payouts' }).focus();
  await artistPage.keyboard.press('Enter');
  await expect(artistPage).toHaveURL(/\/payouts\/onboard\?return=portal$/);
  await artistPage.getByRole('button', { name: 'Enable payouts' }).click();
  await expect(artistPage).toHaveURL(/\/portal$/);
  await expect(artistPage.getByTestId('portal-payouts')).toHaveText("Payouts connected: the label's payout runs pay your balance to your account.");
  await context.close();

  // In the label's records: the invitation accepted by the artist's account, the party's account theirs.
  const { invitations: rows } = await callAs(request, admin, 'listRoyaltyInvitations', null);
  expect(rows.find((row) => row.partyName === artistName)).toMatchObject({ status: 'accepted', acceptedBy: artist.email });
  const { parties } = await callAs(request, admin, 'listRoyalties', null);
  expect(parties.find((row) => row.name === artistName)?.payoutAccountId).toMatch(/^acct_local_/);
});
