// Digital lines at the label's desk (issue 28, decision 061), as a person sees them: the order
// desk tags a download "Digital: nothing ships" and leaves an all-digital order out of the orders
// to ship (and its lines off the packing list); the sales overview splits digital from physical goods.
import type { APIRequestContext } from '@playwright/test';
import { formatUsd } from '@storefront/domain/catalog.ts';
import { quotedTotals } from '@storefront/domain/pricing.ts';
import { createVerifiedUser } from './support/accounts.ts';
import { callAs, releaseProductAs, tokenOf } from './support/api.ts';
import { seriousAxeProblems } from './support/axe.ts';
import { runCli } from './support/cli.ts';
import { test, expect, DEMO_ADMIN } from './support/fixtures.ts';
import { logIn } from './support/login.ts';

const US_ADDRESS = { name: 'Desk Fan', line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };

/** A wallet-only order of these items at the server's own quote; its id. */
async function walletOrder(request: APIRequestContext, token: string, email: string, items: { id: string; qty: number }[], shipping?: typeof US_ADDRESS): Promise<string> {
  const quote = await callAs(request, token, 'quoteCheckout', {
    items,
    useWallet: true,
    ...(shipping ? { destination: { country: shipping.country, state: shipping.state } } : {}),
  });
  const placed = await callAs(request, token, 'completeWalletOnlyOrderStreetFlavor', {
    items,
    contact: { name: 'Desk Fan', email, phone: '' },
    ...(shipping ? { shipping } : {}),
    quote: quotedTotals(quote),
    checkoutId: `desk${Date.now()}${Math.random().toString(36).slice(2, 8)}`,
  });
  return placed.orderId;
}

const stamp = Date.now().toString(36);

test('the order desk tags digital lines, ships only the physical ones, and the sales overview splits digital from physical goods', async ({ page, request }) => {
  test.setTimeout(120_000);
  const admin = await tokenOf(request, DEMO_ADMIN);
  const { id: releaseId } = await callAs(request, admin, 'saveRelease', {
    kind: 'album',
    title: `Desk Tones ${stamp}`,
    artist: 'The Desks',
    releaseDate: '2026-01-15',
    priceCents: 400,
    published: true,
    tracks: [{ title: `Desk Single ${stamp}`, priceCents: 100 }, { title: 'B-side' }],
  });
  const { release } = await callAs(request, admin, 'getRelease', { id: releaseId });
  const album = release!.productId!;
  const single = release!.tracks[0]!.productId!;
  const lpName = `Desk LP ${stamp}`;
  const lp = await releaseProductAs(request, admin, { name: lpName, description: 'Vinyl.', priceCents: 900 });

  // A fan of this test's own, with wallet credit of their own.
  const fan = await createVerifiedUser(request);
  await runCli(['grant-credits', fan.email, '100']);
  const fanToken = await tokenOf(request, fan);
  const before = await callAs(request, admin, 'getSalesOverview', { days: 30 });
  // The track first: once the album is owned, its tracks are too (a download is bought once, issue 39 item 7).
  const downloads = await walletOrder(request, fanToken, fan.email, [{ id: single, qty: 1 }]);
  const mixed = await walletOrder(
    request,
    fanToken,
    fan.email,
    [
      { id: album, qty: 1 },
      { id: lp, qty: 1 },
    ],
    US_ADDRESS,
  );

  await logIn(page, DEMO_ADMIN);
  await page.goto('/release/orders');
  await page.getByLabel('Search orders').fill(fan.email);
  await page.getByRole('button', { name: 'Search' }).click();
  // Unfulfilled (the default): the mixed order waits for its LP; the all-digital one is not there.
  const mixedCard = page.getByRole('article', { name: `Order ${mixed}` });
  await expect(mixedCard).toBeVisible();
  await expect(page.getByRole('article', { name: `Order ${downloads}` })).toHaveCount(0);
  const mixedLines = mixedCard.getByRole('list', { name: 'Items' }).getByRole('listitem');
  await expect(mixedLines.filter({ hasText: `Desk Tones ${stamp} (digital album)` })).toContainText('Digital: nothing ships');
  await expect(mixedLines.filter({ hasText: lpName })).toBeVisible();
  await expect(mixedLines.filter({ hasText: lpName })).not.toContainText('Digital');
  await expect(mixedCard).toContainText('Processing');
  await expect(mixedCard).toContainText('Springfield');

  // All: the downloads-only order is there, Delivered, tagged, with nothing to ship.
  await page.getByRole('radio', { name: 'All' }).check();
  const downloadsCard = page.getByRole('article', { name: `Order ${downloads}` });
  await expect(downloadsCard).toBeVisible();
  await expect(downloadsCard).toContainText('Delivered');
  await expect(downloadsCard.getByRole('listitem').filter({ hasText: `Desk Single ${stamp} (digital track)` })).toContainText('Digital: nothing ships');
  await expect(downloadsCard).toContainText('Nothing to ship: downloads only.');
  await expect(downloadsCard.getByRole('button', { name: 'Mark Fulfilled' })).toHaveCount(0);
  expect(await seriousAxeProblems(page)).toEqual([]);

  // The packing list the desk downloads has the LP and no download.
  const csvHref = (await page.getByRole('link', { name: 'Download packing list (CSV)' }).getAttribute('href'))!;
  const csv = await (await page.request.get(csvHref)).text();
  expect(csv).toContain(lpName);
  expect(csv).not.toContain('(digital album)');
  expect(csv).not.toContain('(digital track)');

  // The opened order (its own address) tags the same lines.
  await page.goto(`/release/orders/${mixed}`);
  const dialog = page.getByRole('dialog', { name: `Order ${mixed}` });
  await expect(dialog.getByRole('listitem').filter({ hasText: '(digital album)' })).toContainText('Digital: nothing ships');
  await expect(dialog.getByRole('listitem').filter({ hasText: lpName })).not.toContainText('Digital');
  await page.keyboard.press('Escape');

  // The sales overview: the digital row grew by the album and two tracks, the physical one by the LP.
  const after = await callAs(request, admin, 'getSalesOverview', { days: 30 });
  const kind = (overview: typeof after, name: 'digital' | 'physical') =>
    overview.byKind?.find((row) => row.kind === name) ?? { unitsSold: 0, grossSalesCents: 0, unitsRefunded: 0, refundedGoodsCents: 0 };
  expect(kind(after, 'digital').unitsSold - kind(before, 'digital').unitsSold).toBe(2);
  expect(kind(after, 'digital').grossSalesCents - kind(before, 'digital').grossSalesCents).toBe(400 + 100);
  expect(kind(after, 'physical').unitsSold - kind(before, 'physical').unitsSold).toBe(1);
  expect(kind(after, 'physical').grossSalesCents - kind(before, 'physical').grossSalesCents).toBe(900);

  await page.goto('/release/sales');
  await page.getByLabel('Period').selectOption('last-30');
  const table = page.getByRole('table', { name: 'Digital vs physical (goods only)' });
  const row = (label: string) => table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: label, exact: true }) });
  for (const [label, name] of [
    ['Digital', 'digital'],
    ['Physical', 'physical'],
  ] as const) {
    const figures = kind(after, name);
    await expect(row(label).getByRole('cell')).toHaveText([
      String(figures.unitsSold),
      formatUsd(figures.grossSalesCents),
      String(figures.unitsRefunded),
      formatUsd(figures.refundedGoodsCents),
      formatUsd(figures.grossSalesCents - figures.refundedGoodsCents),
    ]);
  }
  // By product, the album and the track are rows of their own.
  const products = page.getByRole('table', { name: 'By product (goods only)' });
  await expect(
    products
      .getByRole('row')
      .filter({ hasText: `Desk Single ${stamp} (digital track)` })
      .getByRole('cell')
      .first(),
  ).toHaveText('1');
  expect(await seriousAxeProblems(page)).toEqual([]);
});
