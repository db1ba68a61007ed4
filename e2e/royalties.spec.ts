// Royalties (issue 36 parts 2-3, decisions 070 and 075) in a real browser: the label adds the
// artist as a party in the Roster tab's Royalties section, sets a 50/50 split on a release with a
// $2,000 advance to recoup, a buyer buys the release from the wallet, and the balances show the
// artist's half earned and recouped, the label's half earned; after a full refund both go back.
import { formatUsd } from '@storefront/domain/money.ts';
import { createVerifiedUser } from './support/accounts.ts';
import { callAs, tokenOf } from './support/api.ts';
import { seriousAxeProblems } from './support/axe.ts';
import { runCli } from './support/cli.ts';
import { test, expect, DEMO_ADMIN } from './support/fixtures.ts';
import { rememberingLogIn } from './support/login.ts';

const logIn = rememberingLogIn();

test('the label sets a 50/50 split with a $2,000 recoup; a sale and its refund reach the balances', async ({ page, request }) => {
  const suffix = Date.now().toString(36);
  const artistName = `E2E Split Artist ${suffix}`;
  const title = `E2E Split EP ${suffix}`;
  const admin = await tokenOf(request, DEMO_ADMIN);
  const { id: releaseId } = await callAs(request, admin, 'saveRelease', {
    kind: 'ep',
    title,
    artist: artistName,
    releaseDate: '2026-05-01',
    priceCents: 1000,
    published: true,
    tracks: [{ title: 'Split one' }],
  });
  const { id: artistId } = await callAs(request, admin, 'saveArtist', { name: artistName, links: [] });
  await callAs(request, admin, 'linkArtist', { artistId, subject: { kind: 'release', id: releaseId }, linked: true });

  await logIn(page, DEMO_ADMIN);
  await page.goto('/release/roster');
  const section = page.getByRole('region', { name: 'Royalties' });
  await expect(section).toBeVisible();
  // The artist as a party.
  const party = section.getByRole('form', { name: 'New party' });
  await party.getByLabel('New party').selectOption('artist');
  await party.getByLabel('Roster artist').selectOption({ label: artistName });
  await party.getByRole('button', { name: 'Add party' }).click();
  const artistRow = section.getByTestId('royalty-balance').filter({ hasText: artistName });
  await expect(artistRow).toBeVisible();
  // A split that does not add up is refused with the rule's sentence.
  const split = section.getByRole('form', { name: 'Set a split' });
  await split.getByLabel('Split for').selectOption({ label: `Release: ${title}` });
  await split.getByLabel('Party 1', { exact: true }).selectOption({ label: 'The label' });
  await split.getByLabel('Share 1 (%)').fill('50');
  await split.getByLabel('Party 2', { exact: true }).selectOption({ label: artistName });
  await split.getByLabel('Share 2 (%)').fill('40');
  await split.getByRole('button', { name: 'Save split' }).click();
  await expect(split.getByRole('alert')).toHaveText('The shares must add up to 100% (10,000 basis points).');
  await split.getByLabel('Share 2 (%)').fill('50');
  await split.getByRole('button', { name: 'Save split' }).click();
  await expect(split.getByRole('alert')).toHaveText('');
  await expect(section.getByTestId('royalty-split').filter({ hasText: title })).toContainText(`The label 50%, ${artistName} 50%`);
  // $2,000 to recoup from the artist.
  const recoup = section.getByRole('form', { name: 'Add a recoupable cost' });
  await recoup.getByLabel('Release').selectOption({ label: title });
  await recoup.getByLabel('Recouped from').selectOption({ label: artistName });
  await recoup.getByLabel('Kind of cost').selectOption('advance');
  await recoup.getByLabel('Amount ($)').fill('2000');
  await recoup.getByRole('button', { name: 'Add cost' }).click();
  await expect(section.getByTestId('royalty-cost').filter({ hasText: artistName })).toContainText('$2,000.00, recouped $0.00');
  expect(await seriousAxeProblems(page)).toEqual([]);

  // A buyer buys the release with wallet credit: $10.00 of goods, $5.00 to each.
  const { release } = await callAs(request, admin, 'getRelease', { id: releaseId });
  const buyer = await createVerifiedUser(request);
  await runCli(['grant-credits', buyer.email, '50']);
  const shopper = await tokenOf(request, buyer);
  const items = [{ id: release!.productId!, qty: 1 }];
  const quote = await callAs(request, shopper, 'quoteCheckout', { items, useWallet: true });
  const { orderId } = await callAs(request, shopper, 'completeWalletOnlyOrderStreetFlavor', {
    items,
    quote,
    checkoutId: `e2e-royalties-${suffix}`,
    contact: { name: buyer.name, email: buyer.email, phone: '' },
    shipping: { name: buyer.name, line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' },
  });
  await page.reload();
  // Earned $5.00, all of it recouped: nothing to pay out yet.
  await expect(artistRow.getByRole('cell')).toHaveText([formatUsd(500), formatUsd(500), formatUsd(0), formatUsd(0)]);
  await expect(section.getByTestId('royalty-cost').filter({ hasText: artistName })).toContainText('$2,000.00, recouped $5.00');

  // The whole order refunded: the artist's earning and its recoup go back.
  await callAs(request, admin, 'refundOrder', { orderId, idempotencyKey: `e2e-royalties-refund-${suffix}` });
  await page.reload();
  await expect(artistRow.getByRole('cell')).toHaveText([formatUsd(0), formatUsd(0), formatUsd(0), formatUsd(0)]);
  await expect(section.getByTestId('royalty-cost').filter({ hasText: artistName })).toContainText('recouped $0.00');
});
