// A fan finds and buys music (issue 39 items 6 to 9): owned music says so and leads to the
// library, a download is bought once (the cart and the server agree), releases are one shop
// card that opens the release page, the preview player seeks and shows its length with icons
// the app ships, and a download has the cover uploaded after the encoding.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { APIRequestContext, Page } from '@playwright/test';
import sharp from 'sharp';
import { CART_STORAGE_KEY } from '@storefront/domain/cart.ts';
import { DIGITAL_MESSAGES } from '@storefront/domain/digital.ts';
import { CHECKOUT_MESSAGES } from '@storefront/domain/pricing.ts';
import { sineWav } from '../apps/server/src/digital/testing/audio.ts';
import { createVerifiedUser } from './support/accounts.ts';
import { callAs, tokenOf } from './support/api.ts';
import { seriousAxeProblems } from './support/axe.ts';
import { test, expect, DEMO_ADMIN } from './support/fixtures.ts';
import { logIn } from './support/login.ts';

test.describe.configure({ mode: 'serial' });

const stamp = Date.now().toString(36);
const COVER = '/content/covers/cover-02.svg';

/** A published album of two priced tracks, made through the console's function; its page's data. */
async function publishedAlbum(request: APIRequestContext, title: string) {
  const token = await tokenOf(request, DEMO_ADMIN);
  const { id } = await callAs(request, token, 'saveRelease', {
    kind: 'album',
    title,
    artist: 'The Owners',
    artwork: COVER,
    releaseDate: '2026-01-15',
    priceCents: 900,
    published: true,
    tracks: [
      { title: `First ${stamp}`, priceCents: 150 },
      { title: `Second ${stamp}`, priceCents: 150 },
    ],
  });
  const { release } = await callAs(request, token, 'getRelease', { id });
  return { ...release!, token };
}

/** Puts digital lines into the saved cart as a stale tab or a hand-edited cart would; the next page load reads it. */
async function seedCart(page: Page, lines: { productId: string; title: string; priceCents: number }[]) {
  const cart = {
    id: 'cart',
    qty: lines.length,
    url: '/checkout',
    lines: lines.map((line) => ({ lineId: line.productId, title: line.title, image: COVER, priceCents: line.priceCents, qty: 1, digital: true })),
  };
  await page.evaluate(([key, value]) => localStorage.setItem(key, value), [CART_STORAGE_KEY, JSON.stringify(cart)] as const);
}

async function toCheckout(page: Page) {
  await page.getByRole('button', { name: /^Cart, \d+ items?$/ }).click();
  await page.getByRole('dialog', { name: 'Cart' }).getByRole('button', { name: 'Checkout' }).click();
  const prompt = page.getByRole('dialog', { name: CHECKOUT_MESSAGES.walletPrompt });
  await prompt.getByRole('button', { name: 'Yes' }).click();
  await expect(page).toHaveURL(/\/checkout$/);
}

test('item 7: the album replaces its tracks in the cart, owned music says so and leads to the library, and checkout refuses both', async ({ page, request, consoleErrors }) => {
  consoleErrors.allow(/status of 400/);
  const title = `Owned ${stamp}`;
  const release = await publishedAlbum(request, title);
  const [first, second] = release.tracks;
  const albumTitle = `${title} (digital album)`;
  const fan = await createVerifiedUser(request);
  await logIn(page, fan);
  await page.goto(`/music/${release.id}`);
  const buyFirst = page.getByRole('button', { name: `Buy $1.50 for ${first!.title}` });
  await expect(buyFirst).toBeEnabled();
  await buyFirst.click();
  await page.getByRole('button', { name: `Buy $1.50 for ${second!.title}` }).click();
  await expect(page.getByRole('button', { name: 'Cart, 2 items' })).toBeVisible();

  // The album takes its tracks' place, with a note.
  await page.getByRole('button', { name: /^Buy the album/ }).click();
  await expect(page.getByText(DIGITAL_MESSAGES.tracksRemoved(albumTitle))).toBeVisible();
  await page.getByRole('button', { name: 'Cart, 1 item' }).click();
  const cart = page.getByRole('dialog', { name: 'Cart' });
  await expect(cart.getByText(albumTitle)).toBeVisible();
  await expect(cart.getByText(`${first!.title} (digital track)`)).toHaveCount(0);
  // One copy of a download: no quantity to raise.
  await expect(cart.getByRole('button', { name: /Increase|more/i })).toHaveCount(0);
  await page.keyboard.press('Escape');
  // A track of the album in the cart is not added beside it.
  await buyFirst.click();
  await expect(page.getByText(DIGITAL_MESSAGES.trackInAlbum(`${first!.title} (digital track)`))).toBeVisible();
  await expect(page.getByRole('button', { name: 'Cart, 1 item' })).toBeVisible();

  // A cart that holds both anyway (another tab, an old cart) is refused by the server, by name.
  await seedCart(page, [
    { productId: release.productId!, title: albumTitle, priceCents: 900 },
    { productId: first!.productId!, title: `${first!.title} (digital track)`, priceCents: 150 },
  ]);
  await page.goto('/home');
  await toCheckout(page);
  await expect(page.getByText(DIGITAL_MESSAGES.albumIncludes(albumTitle, `${first!.title} (digital track)`))).toBeVisible();

  // The fan comes to own the album (a download code): the page says so and leads to the library.
  const { codes } = await callAs(request, release.token, 'createDownloadCodes', { releaseId: release.id, count: 1 });
  await callAs(request, await tokenOf(request, fan), 'redeemDownloadCode', { code: codes[0]! });
  await page.goto(`/music/${release.id}`);
  await expect(page.getByText(DIGITAL_MESSAGES.ownedRelease)).toBeVisible();
  await expect(page.getByRole('link', { name: 'Open it in your library' })).toHaveAttribute('href', '/library');
  await expect(page.getByRole('button', { name: /^Buy/ })).toHaveCount(0);
  const ownedTrack = page.getByRole('link', { name: new RegExp(`^${DIGITAL_MESSAGES.ownedTrack} ${first!.title}`) });
  await expect(ownedTrack).toHaveAttribute('href', '/library');
  expect(await seriousAxeProblems(page)).toEqual([]);

  // An owned track in a cart is refused at checkout.
  await seedCart(page, [{ productId: first!.productId!, title: `${first!.title} (digital track)`, priceCents: 150 }]);
  await page.goto('/home');
  await toCheckout(page);
  await expect(page.getByText(DIGITAL_MESSAGES.alreadyOwned(`${first!.title} (digital track)`))).toBeVisible();
});

test('item 6: a release is one shop card that opens its page, its old product addresses lead there, and an LP that carries it stays merch', async ({ page, request }) => {
  const title = `Card ${stamp}`;
  const release = await publishedAlbum(request, title);
  const { id: lp } = await callAs(request, release.token, 'releaseBizarreProduct', {
    name: `${title} LP`,
    description: 'Vinyl with the download.',
    priceCents: 2500,
    images: [COVER],
  });
  await callAs(request, release.token, 'setProductRelease', { productId: lp, releaseId: release.id });

  await page.goto(`/shop?q=${encodeURIComponent(title)}`);
  const cards = page
    .getByRole('main')
    .getByRole('link')
    .filter({ has: page.getByRole('heading', { level: 2 }) });
  await expect(cards).toHaveCount(2);
  await expect(cards.filter({ hasText: `${title} (digital album)` })).toHaveAttribute('href', `/music/${release.id}`);
  await expect(cards.filter({ hasText: `${title} LP` })).toHaveAttribute('href', `/product/${lp}`);
  // A track sold alone is on the release page, not a card of its own.
  await page.goto(`/shop?q=${encodeURIComponent(release.tracks[0]!.title)}`);
  await expect(page.getByText(`${release.tracks[0]!.title} (digital track)`)).toHaveCount(0);

  await page.goto(`/shop?q=${encodeURIComponent(title)}`);
  await cards.filter({ hasText: `${title} (digital album)` }).click();
  await expect(page).toHaveURL(new RegExp(`/music/${release.id}$`));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(title);
  await expect(page.getByRole('button', { name: /^Buy the album/ })).toBeEnabled();

  // The old addresses of the album and a track answer 301 to the release page.
  for (const product of [release.productId!, release.tracks[1]!.productId!]) {
    const response = await page.goto(`/product/${product}`);
    const first = response!.request().redirectedFrom();
    expect(first?.url()).toMatch(new RegExp(`/product/${product}$`));
    expect((await first!.response())!.status()).toBe(301);
    await expect(page).toHaveURL(new RegExp(`/music/${release.id}$`));
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(title);
  }
  const sitemap = await (await request.get('/sitemap.xml')).text();
  expect(sitemap).not.toContain(`/product/${release.productId}<`);
  expect(sitemap).toContain(`/product/${lp}<`);
  expect(sitemap).toContain(`/music/${release.id}<`);
  expect(await seriousAxeProblems(page)).toEqual([]);
});

const ffprobe = (createRequire(import.meta.url)('@ffprobe-installer/ffprobe') as { path: string }).path;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-music-shop-'));
const encodedTitle = `Encoded ${stamp}`;
let encodedId = 0;

/** The streams ffprobe finds in a file: an embedded cover is a video stream marked as an attached picture. */
function streamsOf(file: string): { codec_type: string; codec_name: string; disposition?: { attached_pic?: number } }[] {
  const out = execFileSync(ffprobe, ['-v', 'error', '-show_entries', 'stream=codec_type,codec_name:stream_disposition=attached_pic', '-of', 'json', file], { encoding: 'utf8' });
  return (JSON.parse(out) as { streams: ReturnType<typeof streamsOf> }).streams;
}
const hasCover = (file: string) => streamsOf(file).some((stream) => stream.codec_type === 'video' && stream.disposition?.attached_pic === 1);

test('the label uploads two masters of a release without artwork and waits for the encoding', async ({ page, request }) => {
  test.setTimeout(150_000);
  const token = await tokenOf(request, DEMO_ADMIN);
  ({ id: encodedId } = await callAs(request, token, 'saveRelease', {
    kind: 'ep',
    title: encodedTitle,
    artist: 'The Players',
    releaseDate: '2026-01-15',
    priceCents: 500,
    published: true,
    tracks: [{ title: 'Long Tone' }, { title: 'Other Tone' }],
  }));
  await logIn(page, DEMO_ADMIN);
  await page.goto('/release/music');
  const card = page.getByRole('article', { name: encodedTitle });
  for (const [index, name] of ['Long Tone', 'Other Tone'].entries()) {
    await card
      .getByRole('listitem')
      .filter({ hasText: name })
      .getByLabel(/Upload master/)
      .setInputFiles({ name: `${name}.wav`, mimeType: 'audio/wav', buffer: sineWav(8, 330 + index * 220) });
  }
  for (const name of ['Long Tone', 'Other Tone']) await expect(card.getByRole('listitem').filter({ hasText: name })).toContainText('Ready', { timeout: 120_000 });
});

test('item 8: the preview player shows the length, seeks where the slider is moved, and draws its icons', async ({ page }) => {
  await page.goto(`/music/${encodedId}`);
  const player = page.getByRole('group', { name: 'Preview player' });
  const play = player.getByRole('button', { name: 'Play' });
  await expect(play).toBeEnabled();
  // The length shown is the preview's, not 0:00, and the slider reaches it.
  await expect(player.getByText(/^0:00 \/ 0:0[78]$/)).toBeVisible();
  const slider = player.getByRole('slider', { name: 'Seek' });
  expect(Number(await slider.getAttribute('max'))).toBeGreaterThan(7);
  // A press in the slider's middle moves the audio there.
  const box = (await slider.boundingBox())!;
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await expect.poll(() => page.evaluate(() => document.querySelector('audio')!.currentTime)).toBeGreaterThan(2.5);
  expect(await page.evaluate(() => document.querySelector('audio')!.currentTime)).toBeLessThan(5.5);
  await expect(player.getByText(/^0:0[345] \/ 0:0[78]$/)).toBeVisible();
  // The keyboard too: Home goes back to the start.
  await slider.focus();
  await page.keyboard.press('Home');
  await expect.poll(() => page.evaluate(() => document.querySelector('audio')!.currentTime)).toBe(0);

  // Drawn icons, with a size, and no characters a system's fonts may lack.
  for (const name of ['Previous track', 'Play', 'Next track']) {
    const button = player.getByRole('button', { name });
    expect(((await button.textContent()) ?? '').trim()).toBe('');
    const icon = await button.locator('svg').boundingBox();
    expect(icon!.width).toBeGreaterThanOrEqual(16);
    expect(icon!.height).toBeGreaterThanOrEqual(16);
  }
  await play.click();
  const pause = player.getByRole('button', { name: 'Pause' });
  await expect(pause).toBeVisible();
  expect((await pause.locator('svg').boundingBox())!.width).toBeGreaterThanOrEqual(16);
  await player.getByRole('button', { name: 'Next track' }).click();
  await expect(player.getByText('2. Other Tone', { exact: true })).toBeVisible();
  expect(await seriousAxeProblems(page)).toEqual([]);
});

test('item 9: artwork uploaded after the encoding is the cover of the files a fan downloads', async ({ page, request }) => {
  test.setTimeout(180_000);
  await logIn(page, DEMO_ADMIN);
  await page.goto('/release/music');
  const card = page.getByRole('article', { name: encodedTitle });
  const png = await sharp({ create: { width: 400, height: 400, channels: 3, background: '#b0402a' } })
    .png()
    .toBuffer();
  await card.getByLabel('Upload artwork (an image)').setInputFiles({ name: 'cover.png', mimeType: 'image/png', buffer: png });
  await expect(page.getByText(`The artwork of ${encodedTitle} is replaced.`)).toBeVisible();

  // A fan who owns the release downloads a track from the library once the files are made again.
  const fan = await createVerifiedUser(request);
  const token = await tokenOf(request, DEMO_ADMIN);
  const { codes } = await callAs(request, token, 'createDownloadCodes', { releaseId: encodedId, count: 1 });
  await callAs(request, await tokenOf(request, fan), 'redeemDownloadCode', { code: codes[0]! });
  await page.context().clearCookies();
  await logIn(page, fan);
  const file = path.join(scratch, 'long-tone.mp3');
  await expect(async () => {
    await page.goto('/library');
    const owned = page.getByRole('article').filter({ hasText: encodedTitle });
    await owned.getByLabel('Format').selectOption('mp3-320');
    const download = page.waitForEvent('download');
    await owned.getByRole('button', { name: 'Download Long Tone (MP3 320)' }).click();
    await (await download).saveAs(file);
    // On failure, the tracks' encoding as the console shows it (status, formats made, error).
    const { releases } = await callAs(request, token, 'listReleases', null);
    const tracks = releases
      .find((release) => release.id === encodedId)
      ?.tracks.map(({ title, encodeStatus, encodeDone, encodeError }) => ({ title, encodeStatus, encodeDone, encodeError }));
    expect(hasCover(file), `the downloaded MP3 has no cover; the tracks: ${JSON.stringify(tracks)}`).toBe(true);
  }).toPass({ timeout: 150_000, intervals: [3_000] });
  expect(streamsOf(file).find((stream) => stream.codec_type === 'audio')?.codec_name).toBe('mp3');
});
