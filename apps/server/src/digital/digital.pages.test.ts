import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FunctionInput } from '@storefront/domain/contracts/index.ts';
import { createAuthClient } from '@storefront/sdk/auth.ts';
import { createFunctionsClient } from '@storefront/sdk/callable.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { makeTempDir } from '../../test/database.ts';
import { createAccount } from '../accounts/accounts.service.ts';

// A digital release's page as a crawler or a link preview reads it (issue 30, decision 062).
const INDEX_HTML =
  '<!doctype html><html lang="en"><head><meta charset="UTF-8" /><meta name="description" content="Generic." />' +
  '<title>Street Flavor Records</title></head><body><div id="root"></div><script type="module" src="/assets/app.js"></script></body></html>';

let shop: TestApp;
let webDist: { dir: string; remove(): void };
let admin: ReturnType<typeof createFunctionsClient>;

beforeAll(async () => {
  webDist = makeTempDir('web-dist-music');
  fs.writeFileSync(path.join(webDist.dir, 'index.html'), INDEX_HTML);
  shop = await startTestApp({
    config: { webDistDir: webDist.dir },
    seed: async ({ db, config }) => {
      const form = { email: 'admin@example.org', username: 'Admin', name: 'Admin', password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true };
      await createAccount(db, config, form, { emailVerified: true, role: 'admin', allowReservedUsername: true });
    },
  });
  const functions = createFunctionsClient({ baseUrl: shop.baseUrl });
  const { token } = await createAuthClient({ baseUrl: shop.baseUrl, functions }).signIn('admin@example.org', 'pass words');
  admin = createFunctionsClient({ baseUrl: shop.baseUrl, getAuthToken: () => token! });
});

afterAll(async () => {
  await shop?.close();
  webDist?.remove();
});

const album: FunctionInput<'saveRelease'> = {
  kind: 'ep',
  title: 'Night Bus',
  artist: 'The Sines',
  releaseDate: '2026-01-09',
  artwork: '/content/covers/cover-03.svg',
  priceCents: 900,
  published: true,
  tracks: [{ title: 'Last Stop' }, { title: 'Depot', priceCents: 150 }],
};

async function page(url: string) {
  const response = await fetch(`${shop.baseUrl}${url}`);
  return { status: response.status, html: await response.text() };
}

function structuredData(html: string): Record<string, unknown>[] {
  return [...html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)].map((match) => JSON.parse(match[1]!) as Record<string, unknown>);
}

function pageData(html: string): unknown {
  const match = /<script type="application\/json" id="page-data">([\s\S]*?)<\/script>/.exec(html);
  return match ? JSON.parse(match[1]!) : undefined;
}

function metaContent(html: string, key: string): string | undefined {
  return new RegExp(`<meta (?:name|property)="${key.replace(/[.:]/g, '\\$&')}" content="([^"]*)">`).exec(html)?.[1];
}

async function sitemap(): Promise<string[]> {
  const xml = await (await fetch(`${shop.baseUrl}/sitemap.xml`)).text();
  return [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1]!);
}

type Json = Record<string, unknown>;
const AVAILABILITY = ['https://schema.org/InStock', 'https://schema.org/PreOrder', 'https://schema.org/OutOfStock'];
const RELEASE_TYPES = ['https://schema.org/AlbumRelease', 'https://schema.org/EPRelease', 'https://schema.org/SingleRelease'];
const isUrl = (value: unknown) => typeof value === 'string' && /^https?:\/\/[^\s]+$/.test(value);

/** What schema.org asks of an Offer: a decimal price, an ISO 4217 currency, a schema.org availability. */
function offerProblems(offer: unknown, where: string): string[] {
  const o = offer as Json;
  const problems: string[] = [];
  if (o?.['@type'] !== 'Offer') problems.push(`${where}: @type is not Offer`);
  if (typeof o?.price !== 'string' || !/^\d+\.\d{2}$/.test(o.price)) problems.push(`${where}: price is not a decimal string`);
  if (typeof o?.priceCurrency !== 'string' || !/^[A-Z]{3}$/.test(o.priceCurrency)) problems.push(`${where}: priceCurrency is not ISO 4217`);
  if (!AVAILABILITY.includes(o?.availability as string)) problems.push(`${where}: availability is not a schema.org ItemAvailability`);
  if (!isUrl(o?.url)) problems.push(`${where}: url is not absolute`);
  return problems;
}

/** The shape schema.org gives MusicAlbum, its ItemList of MusicRecordings and their Offers; [] when it holds. */
function musicAlbumProblems(value: Json): string[] {
  const problems: string[] = [];
  if (value['@context'] !== 'https://schema.org') problems.push('@context');
  if (value['@type'] !== 'MusicAlbum') problems.push('@type is not MusicAlbum');
  if (typeof value.name !== 'string' || !value.name) problems.push('name');
  if (!isUrl(value.url)) problems.push('url');
  const artist = value.byArtist as Json | undefined;
  if (artist?.['@type'] !== 'MusicGroup' || typeof artist.name !== 'string') problems.push('byArtist is not a MusicGroup');
  if (!RELEASE_TYPES.includes(value.albumReleaseType as string)) problems.push('albumReleaseType');
  if (typeof value.datePublished !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value.datePublished)) problems.push('datePublished');
  if (value.image !== undefined && !isUrl(value.image)) problems.push('image');
  const list = value.track as Json | undefined;
  const items = (list?.itemListElement ?? []) as Json[];
  if (list?.['@type'] !== 'ItemList' || !Array.isArray(list.itemListElement)) problems.push('track is not an ItemList');
  if (list?.numberOfItems !== items.length || value.numTracks !== items.length) problems.push('numTracks and numberOfItems do not count the tracks');
  items.forEach((entry, index) => {
    const item = entry.item as Json | undefined;
    if (entry['@type'] !== 'ListItem' || entry.position !== index + 1) problems.push(`track ${index + 1}: not a ListItem at its position`);
    if (item?.['@type'] !== 'MusicRecording' || typeof item.name !== 'string') problems.push(`track ${index + 1}: not a named MusicRecording`);
    if (item?.duration !== undefined && !/^PT\d+M\d+S$/.test(item.duration as string)) problems.push(`track ${index + 1}: duration is not ISO 8601`);
    if (item?.offers !== undefined) problems.push(...offerProblems(item.offers, `track ${index + 1} offer`));
  });
  if (value.offers !== undefined) problems.push(...offerProblems(value.offers, 'offer'));
  return problems;
}

describe('a release page as a crawler reads it (no JavaScript)', () => {
  it('holds its title, artwork, price, Open Graph and Twitter tags, a valid MusicAlbum with its tracks and Offer, and getRelease’s answer', async () => {
    const { id } = await admin.call('saveRelease', album);
    const { status, html } = await page(`/music/${id}`);
    expect(status).toBe(200);
    const url = `${shop.baseUrl}/music/${id}`;
    const image = `${shop.baseUrl}/content/covers/cover-03.svg`;
    expect(html).toContain('<title>Night Bus · Street Flavor Records</title>');
    expect(html).not.toContain('Generic.');
    expect(html).toContain(`<link rel="canonical" href="${url}">`);
    expect(metaContent(html, 'description')).toContain('Night Bus by The Sines');
    expect(metaContent(html, 'og:type')).toBe('music.album');
    expect(metaContent(html, 'og:title')).toBe('Night Bus');
    expect(metaContent(html, 'og:url')).toBe(url);
    expect(metaContent(html, 'og:image')).toBe(image);
    expect(metaContent(html, 'og:price:amount')).toBe('9.00');
    expect(metaContent(html, 'og:price:currency')).toBe('USD');
    expect(metaContent(html, 'twitter:card')).toBe('summary_large_image');
    expect(metaContent(html, 'twitter:image')).toBe(image);
    expect(metaContent(html, 'robots')).toBeUndefined();
    // The page's data is getRelease's answer: the web app shows it without asking.
    const { release } = await shop.functions().call('getRelease', { id });
    expect(pageData(html)).toEqual({ release });

    const [data, ...others] = structuredData(html);
    expect(others).toEqual([]);
    expect(musicAlbumProblems(data!)).toEqual([]);
    expect(data).toMatchObject({
      '@type': 'MusicAlbum',
      name: 'Night Bus',
      url,
      byArtist: { '@type': 'MusicGroup', name: 'The Sines' },
      albumReleaseType: 'https://schema.org/EPRelease',
      datePublished: '2026-01-09',
      image,
      numTracks: 2,
      offers: { '@type': 'Offer', price: '9.00', priceCurrency: 'USD', availability: 'https://schema.org/InStock', url },
    });
    const tracks = (data!.track as { itemListElement: { position: number; item: Json }[] }).itemListElement;
    expect(tracks.map((entry) => [entry.position, entry.item.name, (entry.item.offers as Json | undefined)?.price])).toEqual([
      [1, 'Last Stop', undefined],
      [2, 'Depot', '1.50'],
    ]);
  });

  it('says PreOrder before the street date, and marks a "name your price" release’s price as its minimum', async () => {
    const { id } = await admin.call('saveRelease', { ...album, title: 'Tomorrow', releaseDate: '2099-05-01', nameYourPrice: true });
    const [data] = structuredData((await page(`/music/${id}`)).html);
    expect(musicAlbumProblems(data!)).toEqual([]);
    expect(data!.offers).toMatchObject({
      availability: 'https://schema.org/PreOrder',
      availabilityStarts: '2099-05-01',
      price: '9.00',
      priceSpecification: { '@type': 'PriceSpecification', minPrice: '9.00', priceCurrency: 'USD' },
    });
  });

  it('the shape check fails an album that breaks schema.org’s shape', () => {
    const broken = {
      '@context': 'https://schema.org',
      '@type': 'MusicAlbum',
      name: 'X',
      url: '/music/1',
      track: { '@type': 'ItemList', itemListElement: [] },
      offers: { '@type': 'Offer', price: 9 },
    };
    expect(musicAlbumProblems(broken)).toEqual(
      expect.arrayContaining([
        'url',
        'byArtist is not a MusicGroup',
        'offer: price is not a decimal string',
        'offer: priceCurrency is not ISO 4217',
        'numTracks and numberOfItems do not count the tracks',
      ]),
    );
  });

  it('is in sitemap.xml while it is published; withdrawn, unknown or a draft, it answers 404 without its data and leaves the sitemap', async () => {
    const { id } = await admin.call('saveRelease', { ...album, title: 'Withdrawn Tape' });
    const url = `${shop.baseUrl}/music/${id}`;
    expect(await sitemap()).toContain(url);

    await admin.call('saveRelease', { ...album, id, title: 'Withdrawn Tape', published: false });
    const withdrawn = await page(`/music/${id}`);
    expect(withdrawn.status).toBe(404);
    expect(withdrawn.html).not.toContain('Withdrawn Tape');
    expect(metaContent(withdrawn.html, 'robots')).toBe('noindex');
    expect(pageData(withdrawn.html)).toBeUndefined();
    expect(structuredData(withdrawn.html)).toEqual([]);
    expect(await sitemap()).not.toContain(url);

    const { id: draft } = await admin.call('saveRelease', { ...album, title: 'Draft Demo', published: false });
    expect((await page(`/music/${draft}`)).status).toBe(404);
    expect(await sitemap()).not.toContain(`${shop.baseUrl}/music/${draft}`);
    for (const unknown of ['999999', '0', 'abc', '99999999999', '1e3']) expect((await page(`/music/${unknown}`)).status, unknown).toBe(404);

    // Published again: back in the sitemap.
    await admin.call('saveRelease', { ...album, id, title: 'Withdrawn Tape', published: true });
    expect((await page(`/music/${id}`)).status).toBe(200);
    expect(await sitemap()).toContain(url);
  });
});

describe('a release in the shop (issue 39 item 6)', () => {
  type Card = { id: string; name: string; releaseId?: number };
  const cards = async (query = '') => ((await (await fetch(`${shop.baseUrl}/api/products${query}`)).json()) as { products: Card[] }).products;
  const moved = async (url: string) => {
    const response = await fetch(`${shop.baseUrl}${url}`, { redirect: 'manual' });
    return { status: response.status, location: response.headers.get('location') };
  };

  it('is one card that opens its page; its products’ old addresses answer 301 there and leave the sitemap; an LP that carries it stays merch', async () => {
    const { id } = await admin.call('saveRelease', { ...album, title: 'One Card' });
    const { release } = await admin.call('getRelease', { id });
    const albumProduct = release!.productId!;
    const trackProduct = release!.tracks[1]!.productId!;
    const { id: lp } = await admin.call('releaseBizarreProduct', {
      name: 'One Card LP',
      description: 'Vinyl with the download.',
      priceCents: 2500,
      images: ['/content/covers/cover-03.svg'],
    });
    await admin.call('setProductRelease', { productId: lp, releaseId: id });

    const mine = (list: Card[]) =>
      list.filter((card) => card.name.startsWith('One Card') || card.name.startsWith('Depot')).map(({ id: cardId, releaseId }) => ({ id: cardId, releaseId }));
    const expected = [
      { id: albumProduct, releaseId: id },
      { id: lp, releaseId: undefined },
    ].sort((a, b) => a.id.localeCompare(b.id));
    const sorted = (list: Card[]) => mine(list).sort((a, b) => a.id.localeCompare(b.id));
    // The shop's cached first page (after the change is announced), a search and the Music category.
    await expect.poll(async () => sorted(await cards()), { timeout: 10_000 }).toEqual(expected);
    expect(sorted(await cards('?q=one%20card'))).toEqual(expected);
    expect(sorted(await cards('?q=depot'))).toEqual([]);

    for (const product of [albumProduct, trackProduct]) expect(await moved(`/product/${product}`)).toEqual({ status: 301, location: `/music/${id}` });
    expect((await moved(`/product/${lp}`)).status).toBe(200);
    const listed = await sitemap();
    expect(listed).toContain(`${shop.baseUrl}/music/${id}`);
    expect(listed).toContain(`${shop.baseUrl}/product/${lp}`);
    expect(listed).not.toContain(`${shop.baseUrl}/product/${albumProduct}`);
    expect(listed).not.toContain(`${shop.baseUrl}/product/${trackProduct}`);

    // Without an album on sale, its first track sold alone is the release's card.
    await admin.call('saveRelease', { ...album, id, title: 'One Card', priceCents: 0 });
    const single = (await admin.call('getRelease', { id })).release!.tracks[1]!.productId!;
    await expect.poll(async () => mine(await cards()), { timeout: 10_000 }).toEqual([{ id: single, releaseId: id }, { id: lp }]);
  });
});
