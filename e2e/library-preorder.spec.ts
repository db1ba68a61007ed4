// Music bought before its release date (issue 28, decision 061 amended in session 10): the fan
// owns it at once, and the library says when its downloads open instead of offering them.
import { quotedTotals } from '@storefront/domain/pricing.ts';
import { createVerifiedUser } from './support/accounts.ts';
import { callAs, tokenOf } from './support/api.ts';
import { seriousAxeProblems } from './support/axe.ts';
import { runCli } from './support/cli.ts';
import { test, expect, DEMO_ADMIN } from './support/fixtures.ts';
import { logIn } from './support/login.ts';

test('a preordered album is in the library with the day its downloads open, and nothing to download yet', async ({ page, request }) => {
  const stamp = Date.now().toString(36);
  const title = `Future Tones ${stamp}`;
  const admin = await tokenOf(request, DEMO_ADMIN);
  const { id: releaseId } = await callAs(request, admin, 'saveRelease', {
    kind: 'album',
    title,
    artist: 'The Early Birds',
    releaseDate: '2099-03-05',
    priceCents: 500,
    published: true,
    tracks: [{ title: 'Dawn' }, { title: 'Noon' }],
  });
  const { release } = await callAs(request, admin, 'getRelease', { id: releaseId });
  const album = release!.productId!;

  const fan = await createVerifiedUser(request);
  await runCli(['grant-credits', fan.email, '10']);
  const token = await tokenOf(request, fan);
  const items = [{ id: album, qty: 1 }];
  const quote = await callAs(request, token, 'quoteCheckout', { items, useWallet: true });
  await callAs(request, token, 'completeWalletOnlyOrderStreetFlavor', {
    items,
    contact: { name: fan.name, email: fan.email, phone: '' },
    quote: quotedTotals(quote),
    checkoutId: `early${stamp}`,
  });

  await logIn(page, fan);
  await page.goto('/library');
  const owned = page.getByRole('article').filter({ has: page.getByRole('heading', { name: title }) });
  await expect(owned).toContainText('Available on Mar 5, 2099: its downloads open on the release date.');
  await expect(owned).not.toContainText('Your files are being prepared');
  await expect(owned.getByRole('button', { name: 'Download the album (zip)' })).toBeDisabled();
  for (const track of ['Dawn', 'Noon']) await expect(owned.getByRole('button', { name: new RegExp(`^Download ${track} `) })).toBeDisabled();
  expect(await seriousAxeProblems(page)).toEqual([]);
});
