// The roster (issue 36 part 1, decision 070) in a real browser: the label adds an artist in the
// console's Roster tab, credits a release to them there, and the artist's page (server-rendered,
// with its MusicGroup JSON-LD) shows the release; on a 375 px phone nothing runs off the side.
import { seriousAxeProblems } from './support/axe.ts';
import { callAs, tokenOf } from './support/api.ts';
import { test, expect, DEMO_ADMIN } from './support/fixtures.ts';
import { rememberingLogIn } from './support/login.ts';

const logIn = rememberingLogIn();

for (const viewport of [
  { name: '1366 px', width: 1366, height: 900 },
  { name: '375 px phone', width: 375, height: 740 },
]) {
  test(`roster at ${viewport.name}: add an artist, credit a release, the artist's page shows it`, async ({ page, request }) => {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    const suffix = `${viewport.width}${Date.now().toString(36)}`;
    const artistName = `E2E Night Owls ${suffix}`;
    const slug = `e2e-night-owls-${suffix}`;
    const title = `E2E Owl Tape ${suffix}`;
    // A published release whose credit names nobody on the roster yet.
    const token = await tokenOf(request, DEMO_ADMIN);
    await callAs(request, token, 'saveRelease', {
      kind: 'ep',
      title,
      artist: `${artistName} feat. Guests`,
      releaseDate: '2026-05-01',
      priceCents: 700,
      published: true,
      tracks: [{ title: 'Owl one' }],
    });

    await logIn(page, DEMO_ADMIN);
    await page.goto('/release/roster');
    await expect(page.getByRole('heading', { name: 'Roster', level: 2 })).toBeVisible();
    // The report: the release is credited to no artist.
    await expect(page.getByRole('region', { name: 'Releases credited to no artist' })).toContainText(title);

    await page.getByLabel('New artist').fill(artistName);
    await page.getByRole('button', { name: 'Add artist' }).click();
    // By its summary: another artist's merge list names this one too.
    const entry = page.getByTestId('roster-artist').filter({ has: page.locator('summary', { hasText: artistName }) });
    await expect(entry).toBeVisible();
    await entry.locator('summary').click();
    await entry.getByLabel(`Credit ${artistName} on a release`).selectOption({ label: `${title} (${artistName} feat. Guests)` });
    await entry.getByRole('button', { name: 'Link release' }).click();
    await expect(entry.getByRole('list', { name: `${artistName}’s credits` })).toContainText(`Release: ${title}`);
    await expect(page.getByRole('region', { name: 'Releases credited to no artist' }).filter({ hasText: title })).toHaveCount(0);
    // A track too (a feature): it is listed with its release.
    await entry.getByLabel(`Credit ${artistName} on a track (a feature)`).selectOption({ label: `Owl one (${title})` });
    await entry.getByRole('button', { name: 'Link track' }).click();
    await expect(entry.getByRole('list', { name: `${artistName}’s credits` })).toContainText(`Track: Owl one (${title})`);
    // An artist something names can only be merged: Remove is disabled and says why.
    await expect(entry.getByRole('button', { name: `Remove ${artistName}` })).toBeDisabled();
    expect(await seriousAxeProblems(page)).toEqual([]);
    if (viewport.width === 375) expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);

    // The artist's page, from the console's link: the release is on it.
    await entry.getByRole('link', { name: `Open ${artistName}’s page` }).click();
    await expect(page).toHaveURL(new RegExp(`/artist/${slug}$`));
    await expect(page.getByRole('heading', { name: artistName, level: 1 })).toBeVisible();
    await expect(page.getByRole('list', { name: 'Releases' })).toContainText(title);
    if (viewport.width === 375) expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await page.getByRole('list', { name: 'Releases' }).getByRole('link', { name: title }).click();
    await expect(page).toHaveURL(/\/music\/\d+$/);
    await expect(page.getByRole('heading', { name: title, level: 1 })).toBeVisible();
    // The release's page leads back to the artist.
    await expect(page.getByRole('link', { name: artistName })).toHaveAttribute('href', `/artist/${slug}`);

    // As a crawler reads it: the server's HTML names the release and carries the MusicGroup.
    const html = await (await request.get(`/artist/${slug}`)).text();
    expect(html).toContain(`<h1>${artistName}</h1>`);
    expect(html).toContain(title);
    expect(html).toContain('"@type":"MusicGroup"');

    // Opened directly, the page is the server's, hydrated without asking for its data again.
    const asked: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/fn/getArtist')) asked.push(request.url());
    });
    await page.goto(`/artist/${slug}`);
    await expect(page.getByRole('heading', { name: artistName, level: 1 })).toBeVisible();
    await expect(page.getByRole('link', { name: `All of ${artistName} in the shop` })).toBeVisible();
    await page.waitForLoadState('networkidle');
    expect(asked).toEqual([]);

    // The roster list links to the page.
    await page.goto('/artists');
    await expect(page.getByRole('list', { name: 'Artists' }).getByRole('link', { name: artistName })).toBeVisible();
    if (viewport.width === 375) expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  });
}
