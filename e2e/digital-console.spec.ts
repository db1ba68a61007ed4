// Editing a digital release in the console (issue 28, decision 064): the label edits the
// release's fields and each track's title, ISRC, shown duration, order (keyboard) and lyrics,
// and replaces the artwork through the resumable upload; the release page shows the lyrics in a
// disclosure per track (keyboard) and the new artwork, and so does the fan's library.
import sharp from 'sharp';
import { CHECKOUT_MESSAGES } from '@storefront/domain/pricing.ts';
import { UPLOAD_MESSAGES } from '@storefront/domain/storage.ts';
import { createVerifiedUser } from './support/accounts.ts';
import { callAs, tokenOf } from './support/api.ts';
import { seriousAxeProblems } from './support/axe.ts';
import { test, expect, DEMO_ADMIN } from './support/fixtures.ts';
import { logIn } from './support/login.ts';

test.describe.configure({ mode: 'serial' });

const stamp = Date.now().toString(36);
const title = `E2E Draft ${stamp}`;
const finalTitle = `E2E Final ${stamp}`;
let releaseId = 0;

test('the label edits a release and its tracks, reorders them with the keyboard and replaces the artwork', async ({ page, request, consoleErrors }) => {
  test.setTimeout(90_000);
  // The refused upload below: the browser logs the server's 403.
  consoleErrors.allow(/status of 403 \(Only JPEG, PNG, WebP, GIF and AVIF images can be uploaded\.\) \[.*cover\.png/);
  const adminToken = await tokenOf(request, DEMO_ADMIN);
  ({ id: releaseId } = await callAs(request, adminToken, 'saveRelease', {
    kind: 'ep',
    title,
    artist: 'The Drafts',
    releaseDate: '2026-02-01',
    priceCents: 700,
    published: true,
    tracks: [{ title: 'Alpha' }, { title: 'Beta' }, { title: 'Gamma' }],
  }));

  await page.setViewportSize({ width: 375, height: 800 });
  await logIn(page, DEMO_ADMIN);
  await page.goto('/release/music');
  const card = page.getByRole('article', { name: title });
  await card.getByRole('button', { name: 'Edit release and tracks' }).click();
  const form = card.getByRole('form', { name: `Edit ${title}` });
  await form.getByLabel('Title', { exact: true }).first().fill(finalTitle);
  await form.getByLabel('Artist').fill('The Finals');
  await form.getByLabel('Release date').fill('2026-03-15');
  await form.getByLabel('UPC (12 or 13 digits)').fill('012345678905');
  await form.getByLabel('Credits').fill('Mixed by Ann.');
  await form.getByLabel('Price of the release (USD)').fill('7.5');
  // Full tracks as previews (the label's choice): an empty length.
  await expect(form.getByLabel(/^Preview length in seconds/)).toHaveValue('30');
  await form.getByLabel(/^Preview length in seconds/).fill('');

  // Gamma to the top with the keyboard: focus stays on its button as it moves.
  const gammaUp = form.getByRole('button', { name: /^Move up\s*: Gamma$/ });
  await gammaUp.focus();
  await page.keyboard.press('Enter');
  await expect(form.getByRole('group', { name: 'Track 2' }).getByLabel('Title')).toHaveValue('Gamma');
  await expect(gammaUp).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(form.getByRole('group', { name: 'Track 1' }).getByLabel('Title')).toHaveValue('Gamma');
  // At the top, Move up is disabled and the focus went to Move down.
  await expect(gammaUp).toBeDisabled();
  await expect(form.getByRole('button', { name: /^Move down\s*: Gamma$/ })).toBeFocused();
  await expect(form.getByText('Gamma moved to position 1 of 3.')).toBeAttached();

  const first = form.getByRole('group', { name: 'Track 1' });
  await first.getByLabel('Title').fill('Gamma Ray');
  await first.getByLabel('ISRC').fill('US-SFR-26-00042');
  await first.getByLabel(/^Duration shown/).fill('3:5');
  await first.getByLabel('Lyrics (optional)').fill('Up in the sky\nbright and high');
  await form.getByRole('button', { name: 'Save changes' }).click();
  // A duration that is not m:ss is refused before anything is sent.
  await expect(form.getByRole('alert')).toHaveText('Track 1: A duration is whole seconds, from 0:01 to 24:00:00.');
  await first.getByLabel(/^Duration shown/).fill('3:05');
  expect(await seriousAxeProblems(page)).toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await form.getByRole('button', { name: 'Save changes' }).click();

  const saved = page.getByRole('article', { name: finalTitle });
  await expect(saved.getByRole('button', { name: 'Edit release and tracks' })).toBeFocused();
  await expect(saved.getByRole('listitem')).toHaveText([/^1\. Gamma Ray \(3:05\)/, /^2\. Alpha/, /^3\. Beta/]);
  await expect(saved).toContainText('EP · 2026-03-15 · $7.50');
  const stored = (await callAs(request, adminToken, 'listReleases', null)).releases.find((entry) => entry.id === releaseId)!;
  expect(stored).toMatchObject({ priceCents: 750, previewSeconds: null, nameYourPrice: false, published: true, upc: '012345678905' });

  // The artwork: a text file named .png is refused by its content; a real image replaces the artwork.
  await saved.getByLabel('Upload artwork (an image)').setInputFiles({ name: 'cover.png', mimeType: 'image/png', buffer: Buffer.from('not an image at all\n'.repeat(50)) });
  await expect(page.getByRole('alert').filter({ hasText: UPLOAD_MESSAGES.notAnImage }).last()).toBeVisible();
  await expect(saved.getByText('No artwork yet.')).toBeVisible();
  const png = await sharp({ create: { width: 400, height: 400, channels: 3, background: '#2a7ab0' } })
    .png()
    .toBuffer();
  await saved.getByLabel('Upload artwork (an image)').setInputFiles({ name: 'cover.png', mimeType: 'image/png', buffer: png });
  await expect(page.getByText(`The artwork of ${finalTitle} is replaced.`)).toBeVisible();
  const art = saved.getByRole('img', { name: `Artwork of ${finalTitle}` });
  await expect(art).toBeVisible();
  await expect.poll(() => art.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
  await expect(saved.getByLabel('Replace artwork (an image)')).toBeVisible();
  expect(await seriousAxeProblems(page)).toEqual([]);
});

test('the release page shows the edits, the artwork and each track’s lyrics in a disclosure opened with the keyboard; the library shows the artwork', async ({ page, request }) => {
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto(`/music/${releaseId}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(finalTitle);
  await expect(page.getByText('The Finals', { exact: true })).toBeVisible();
  await expect(page.getByRole('img', { name: `Artwork of ${finalTitle}` })).toBeVisible();
  const tracks = page.locator('.music-page__tracks > li');
  await expect(tracks).toHaveCount(3);
  await expect(tracks.nth(0)).toContainText('1. Gamma Ray');
  await expect(tracks.nth(0)).toContainText('3:05');
  await expect(tracks.nth(1)).toContainText('2. Alpha');
  // Only a track with lyrics has the disclosure.
  await expect(page.locator('summary')).toHaveCount(1);
  const lyrics = page.getByText('Up in the sky');
  await expect(lyrics).toBeHidden();
  const summary = page.locator('summary', { hasText: 'Lyrics of Gamma Ray' });
  await summary.focus();
  await page.keyboard.press('Enter');
  await expect(lyrics).toBeVisible();
  await expect(page.getByText('Mixed by Ann.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Buy the ep $7.50' })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  expect(await seriousAxeProblems(page)).toEqual([]);
  await page.keyboard.press('Enter');
  await expect(lyrics).toBeHidden();

  // A fan who owns it (a code) sees the artwork in the library.
  const adminToken = await tokenOf(request, DEMO_ADMIN);
  const { codes } = await callAs(request, adminToken, 'createDownloadCodes', { releaseId, count: 1 });
  const fan = await createVerifiedUser(request);
  await callAs(request, await tokenOf(request, fan), 'redeemDownloadCode', { code: codes[0]! });
  await logIn(page, fan);
  await page.goto('/library');
  const owned = page.getByRole('article').filter({ hasText: finalTitle });
  await expect(owned.getByRole('img', { name: `Artwork of ${finalTitle}` })).toBeVisible();
  expect(await seriousAxeProblems(page)).toEqual([]);
});

test('a track priced "name your price" in the console; a fan names a price on the release page and changes it in the cart panel, re-checked', async ({ page, request }) => {
  test.setTimeout(90_000);
  await logIn(page, DEMO_ADMIN);
  await page.goto('/release/music');
  const card = page.getByRole('article', { name: finalTitle });
  await card.getByRole('button', { name: 'Edit release and tracks' }).click();
  const alpha = card.getByRole('form', { name: `Edit ${finalTitle}` }).getByRole('group', { name: 'Track 2' });
  await expect(alpha.getByLabel('Title')).toHaveValue('Alpha');
  const named = alpha.getByLabel('Name your price (the price is the minimum)');
  // Only a track sold alone can be "name your price".
  await expect(named).toBeDisabled();
  await alpha.getByLabel('Price alone (USD, empty: album only)').fill('1.50');
  await named.check();
  await card.getByLabel('Name your price for the release (its price is the minimum)').check();
  await card.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByText(`${finalTitle} saved.`)).toBeVisible();

  const fan = await createVerifiedUser(request);
  await page.context().clearCookies();
  await page.setViewportSize({ width: 375, height: 800 });
  await logIn(page, fan);
  await page.goto(`/music/${releaseId}`);
  const price = page.getByLabel('Name your price (at least $1.50) for Alpha (digital track)');
  await price.fill('1.25');
  await page.getByRole('button', { name: /^Buy the track\s*: Alpha \(digital track\)$/ }).click();
  await expect(page.getByRole('alert').filter({ hasText: CHECKOUT_MESSAGES.belowMinimum('Alpha (digital track)', 150) })).toBeVisible();
  await price.fill('2.75');
  await page.getByRole('button', { name: /^Buy the track\s*: Alpha \(digital track\)$/ }).click();
  await expect(page.getByText('Alpha (digital track) is in your cart.')).toBeVisible();
  // The release is "name your price" too, at least its price; the other tracks are not sold alone.
  await expect(page.getByLabel(`Name your price (at least $7.50) for ${finalTitle} (digital ep)`)).toHaveValue('7.50');
  await expect(page.getByRole('button', { name: /^Buy \$/ })).toHaveCount(0);
  expect(await seriousAxeProblems(page)).toEqual([]);

  await page.getByRole('button', { name: /^Cart, 1 item$/ }).click();
  const panel = page.getByRole('dialog', { name: 'Cart' });
  const line = panel.getByRole('listitem').filter({ hasText: 'Alpha (digital track)' });
  await expect(line).toContainText('$2.75');
  const amount = line.getByLabel('Your price (at least $1.50) for Alpha (digital track)');
  await expect(amount).toHaveValue('2.75');
  await amount.fill('1.49');
  await line.getByRole('button', { name: /^Change\s*the price of Alpha/ }).click();
  await expect(line.getByRole('alert')).toHaveText(CHECKOUT_MESSAGES.belowMinimum('Alpha (digital track)', 150));
  await expect(line).toContainText('$2.75');
  await amount.fill('3.40');
  await line.getByRole('button', { name: /^Change\s*the price of Alpha/ }).click();
  await expect(line.getByRole('alert')).toHaveCount(0);
  await expect(line.locator('.cart-line__price')).toHaveText('$3.40');
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  expect(await seriousAxeProblems(page)).toEqual([]);

  // The checkout's quote is the server's: it priced the line at the new amount.
  await panel.getByRole('button', { name: 'Checkout' }).click();
  const prompt = page.getByRole('dialog', { name: CHECKOUT_MESSAGES.walletPrompt });
  if (await prompt.isVisible()) await prompt.getByRole('button', { name: 'No' }).click();
  await expect(page).toHaveURL(/\/checkout$/);
  const summary = page.getByRole('complementary', { name: 'Order summary' });
  await expect(summary.locator('dt', { hasText: /^Subtotal$/ }).locator('xpath=following-sibling::dd[1]')).toHaveText('$3.40');
});
