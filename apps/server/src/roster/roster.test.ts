import fs from 'node:fs';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROSTER_MESSAGES } from '@storefront/domain/roster.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { makeTempDir } from '../../test/database.ts';
import { releaseProduct } from '../catalog/catalog.service.ts';
import { adminAudit, artists, artistSlugs, productArtists, releaseArtists, users } from '../db/schema/index.ts';

/**
 * The roster (issue 36 part 1, decision 070): the console's artist tools are the admins' only
 * and audited; an address once used keeps leading to its artist; a merge moves every credit;
 * a named artist cannot be deleted. The artist's page as a crawler reads it, and the shop's filter.
 */
const INDEX_HTML =
  '<!doctype html><html lang="en"><head><meta charset="UTF-8" /><meta name="description" content="Generic." />' +
  '<title>Street Flavor Records</title></head><body><div id="root"></div><script type="module" src="/assets/app.js"></script></body></html>';

let shop: TestApp;
let webDist: { dir: string; remove(): void };
const tokens: Record<string, string> = {};

beforeAll(async () => {
  webDist = makeTempDir('web-dist-roster');
  fs.writeFileSync(path.join(webDist.dir, 'index.html'), INDEX_HTML);
  shop = await startTestApp({ config: { webDistDir: webDist.dir } });
  await shop.account('boss');
  await shop.db.update(users).set({ role: 'admin' }).where(eq(users.email, 'boss@example.org'));
  await shop.account('fan');
  for (const name of ['boss', 'fan']) tokens[name] = await shop.signIn(`${name}@example.org`);
});

afterAll(async () => {
  await shop?.close();
  webDist?.remove();
});

const as = (name: string) => shop.functions(() => tokens[name]);
const anonymous = () => shop.functions();

async function fails(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = (await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )) as { code: string; message: string } | undefined;
  expect(error).toBeDefined();
  return error!;
}

async function page(url: string) {
  const response = await fetch(`${shop.baseUrl}${url}`, { redirect: 'manual' });
  return { status: response.status, location: response.headers.get('location'), html: await response.text() };
}

function metaContent(html: string, key: string): string | undefined {
  return new RegExp(`<meta (?:name|property)="${key.replace(/[.:]/g, '\\$&')}" content="([^"]*)">`).exec(html)?.[1];
}

function jsonLd(html: string): Record<string, unknown>[] {
  return [...html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)].map((match) => JSON.parse(match[1]!) as Record<string, unknown>);
}

async function sitemap(): Promise<string[]> {
  const xml = await (await fetch(`${shop.baseUrl}/sitemap.xml`)).text();
  return [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1]!);
}

async function release(title: string, artist: string) {
  const saved = await as('boss').call('saveRelease', {
    kind: 'ep',
    title,
    artist,
    releaseDate: '2026-05-01',
    priceCents: 700,
    published: true,
    tracks: [{ title: `${title} one` }],
  });
  return saved;
}

const merch = (name: string) => releaseProduct(shop.db, { name, description: 'Merch.', priceCents: 2500, images: ['/content/covers/cover-02.svg'] });

describe('the console’s roster tools', () => {
  it('are the admins’ only: a fan or a visitor is refused and nothing is written', async () => {
    expect((await fails(as('fan').call('saveArtist', { name: 'Sneaky', links: [] }))).code).toBe('permission-denied');
    expect((await fails(anonymous().call('saveArtist', { name: 'Sneaky', links: [] }))).code).toBe('unauthenticated');
    expect((await fails(as('fan').call('listRoster', null))).code).toBe('permission-denied');
    expect((await fails(as('fan').call('mergeArtist', { from: 1, into: 2 }))).code).toBe('permission-denied');
    expect((await fails(as('fan').call('deleteArtist', { id: 1 }))).code).toBe('permission-denied');
    expect((await fails(as('fan').call('linkArtist', { artistId: 1, subject: { kind: 'release', id: 1 }, linked: true }))).code).toBe('permission-denied');
    expect(await shop.db.select().from(artists).where(eq(artists.name, 'Sneaky'))).toEqual([]);
  });

  it('refuses a bad address, a link that is not a web address and an image from elsewhere', async () => {
    expect(await fails(as('boss').call('saveArtist', { name: 'Bad', slug: 'Bad Slug', links: [] }))).toMatchObject({
      code: 'invalid-argument',
      message: expect.stringContaining(ROSTER_MESSAGES.slug),
    });
    expect(await fails(as('boss').call('saveArtist', { name: 'Bad', links: [{ label: 'x', url: 'javascript:alert(1)' }] }))).toMatchObject({
      message: expect.stringContaining(ROSTER_MESSAGES.link),
    });
    expect(await fails(as('boss').call('saveArtist', { name: 'Bad', image: 'https://elsewhere.example/x.png', links: [] }))).toMatchObject({ message: ROSTER_MESSAGES.image });
    expect(await shop.db.select().from(artists).where(eq(artists.name, 'Bad'))).toEqual([]);
  });

  it('keeps an old address redirecting after a rename, and never gives it to another artist', async () => {
    const created = await as('boss').call('saveArtist', { name: 'Night Owls', bio: 'From the river.', links: [{ label: 'Instagram', url: 'https://instagram.com/nightowls' }] });
    expect(created.slug).toBe('night-owls');
    // A second artist of the same name gets the next free address.
    expect((await as('boss').call('saveArtist', { name: 'Night Owls', links: [] })).slug).toBe('night-owls-2');
    await as('boss').call('saveArtist', { id: created.id, name: 'The Night Owls', slug: 'the-night-owls', links: [] });
    expect(await shop.db.select().from(artistSlugs).where(eq(artistSlugs.artistId, created.id))).toEqual([{ slug: 'night-owls', artistId: created.id }]);

    const moved = await page('/artist/night-owls?ref=mail');
    expect(moved.status).toBe(301);
    expect(moved.location).toBe('/artist/the-night-owls?ref=mail');
    expect((await anonymous().call('getArtist', { slug: 'night-owls' })).artist?.slug).toBe('the-night-owls');

    // Nobody else may take the old address; the artist itself may take it back.
    expect(await fails(as('boss').call('saveArtist', { name: 'Other Owls', slug: 'night-owls', links: [] }))).toMatchObject({
      code: 'already-exists',
      message: ROSTER_MESSAGES.slugTaken,
    });
    await as('boss').call('saveArtist', { id: created.id, name: 'Night Owls', slug: 'night-owls', links: [] });
    expect((await page('/artist/night-owls')).status).toBe(200);
    expect((await page('/artist/the-night-owls')).location).toBe('/artist/night-owls');

    const audit = await shop.db
      .select()
      .from(adminAudit)
      .where(and(eq(adminAudit.targetType, 'artist'), eq(adminAudit.targetId, String(created.id))));
    expect(audit.map((row) => row.action)).toEqual(['artist.create', 'artist.edit', 'artist.edit']);
  });

  it('merges one artist into another: every credit and address moves, the merged one is gone', async () => {
    const from = await as('boss').call('saveArtist', { name: 'Mo Beatz', links: [] });
    const into = await as('boss').call('saveArtist', { name: 'Mo Beats', links: [] });
    const shared = await release('Shared Tape', 'Mo Beats');
    const own = await release('Own Tape', 'Mo Beatz');
    const tee = await merch('Mo Beatz Tee');
    await as('boss').call('linkArtist', { artistId: from.id, subject: { kind: 'release', id: own.id }, linked: true });
    await as('boss').call('linkArtist', { artistId: from.id, subject: { kind: 'release', id: shared.id }, linked: true });
    await as('boss').call('linkArtist', { artistId: into.id, subject: { kind: 'release', id: shared.id }, linked: true });
    await as('boss').call('linkArtist', { artistId: from.id, subject: { kind: 'product', id: tee }, linked: true });
    await as('boss').call('linkArtist', { artistId: from.id, subject: { kind: 'track', id: own.trackIds[0]! }, linked: true });

    // Named by something: it can only be merged.
    expect(await fails(as('boss').call('deleteArtist', { id: from.id }))).toMatchObject({ code: 'failed-precondition', message: ROSTER_MESSAGES.inUse });
    expect(await fails(as('boss').call('mergeArtist', { from: from.id, into: from.id }))).toMatchObject({ message: ROSTER_MESSAGES.mergeIntoSelf });

    await as('boss').call('mergeArtist', { from: from.id, into: into.id });
    expect(await shop.db.select().from(artists).where(eq(artists.id, from.id))).toEqual([]);
    const releasesOfInto = await shop.db.select({ id: releaseArtists.releaseId }).from(releaseArtists).where(eq(releaseArtists.artistId, into.id));
    expect(releasesOfInto.map((row) => row.id).sort()).toEqual([shared.id, own.id].sort());
    // The tee, and the two releases' download products (credited with their releases).
    const productsOfInto = await shop.db.select({ id: productArtists.productId }).from(productArtists).where(eq(productArtists.artistId, into.id));
    expect(productsOfInto).toContainEqual({ id: tee });
    expect(productsOfInto).toHaveLength(3);
    expect(await shop.db.select().from(productArtists).where(eq(productArtists.artistId, from.id))).toEqual([]);
    const roster = await as('boss').call('listRoster', null);
    const merged = roster.artists.find((artist) => artist.id === into.id)!;
    expect(merged.tracks).toEqual([{ id: own.trackIds[0] }]);
    expect(merged.oldSlugs).toEqual(['mo-beatz']);
    expect((await page('/artist/mo-beatz')).location).toBe('/artist/mo-beats');
    const [audit] = await shop.db.select().from(adminAudit).where(eq(adminAudit.action, 'artist.merge'));
    expect(audit).toMatchObject({ targetId: String(into.id), before: { id: from.id, slug: 'mo-beatz' } });
  });

  it('gives one address to one artist when many ask at once, and merges one artist once', async () => {
    const tries = await Promise.allSettled(Array.from({ length: 6 }, (_, n) => as('boss').call('saveArtist', { name: `Racer ${n}`, slug: 'the-racers', links: [] })));
    expect(tries.filter((attempt) => attempt.status === 'fulfilled')).toHaveLength(1);
    for (const attempt of tries) if (attempt.status === 'rejected') expect(attempt.reason).toMatchObject({ code: 'already-exists', message: ROSTER_MESSAGES.slugTaken });
    expect(await shop.db.select().from(artists).where(eq(artists.slug, 'the-racers'))).toHaveLength(1);

    const twin = await as('boss').call('saveArtist', { name: 'Twin', links: [] });
    const left = await as('boss').call('saveArtist', { name: 'Twin Left', links: [] });
    const right = await as('boss').call('saveArtist', { name: 'Twin Right', links: [] });
    const merges = await Promise.allSettled([left, right].map((into) => as('boss').call('mergeArtist', { from: twin.id, into: into.id })));
    expect(merges.filter((attempt) => attempt.status === 'fulfilled')).toHaveLength(1);
    expect(await shop.db.select().from(artistSlugs).where(eq(artistSlugs.slug, 'twin'))).toHaveLength(1);
  });

  it('deletes an artist nothing names, and only that one', async () => {
    const typo = await as('boss').call('saveArtist', { name: 'Typpo', links: [] });
    await as('boss').call('deleteArtist', { id: typo.id });
    expect(await shop.db.select().from(artists).where(eq(artists.id, typo.id))).toEqual([]);
    expect((await page('/artist/typpo')).status).toBe(404);
  });

  it('lists the releases credited to no artist, and a link takes one off the list', async () => {
    const lonely = await release('Lonely Single', 'Ana feat. Bo');
    expect((await as('boss').call('listRoster', null)).unlinked).toContainEqual({ id: lonely.id, title: 'Lonely Single', artist: 'Ana feat. Bo' });
    const ana = await as('boss').call('saveArtist', { name: 'Ana', links: [] });
    await as('boss').call('linkArtist', { artistId: ana.id, subject: { kind: 'release', id: lonely.id }, linked: true });
    expect((await as('boss').call('listRoster', null)).unlinked.map((release) => release.id)).not.toContain(lonely.id);
    // An unknown release is refused by name.
    expect(await fails(as('boss').call('linkArtist', { artistId: ana.id, subject: { kind: 'release', id: 999_999 }, linked: true }))).toMatchObject({
      code: 'not-found',
      message: ROSTER_MESSAGES.releaseNotFound,
    });
  });
});

describe('an artist’s page and the shop’s filter', () => {
  it('renders the head, Open Graph tags, MusicGroup JSON-LD and data, and is in the sitemap', async () => {
    const artist = await as('boss').call('saveArtist', {
      name: 'Delta Choir',
      bio: 'A choir from the delta, singing since 1999.',
      links: [{ label: 'Bandcamp', url: 'https://deltachoir.example/' }],
    });
    const tape = await release('Delta Tape', 'Delta Choir');
    const hoodie = await merch('Delta Hoodie');
    await merch('Someone Else Mug');
    await as('boss').call('linkArtist', { artistId: artist.id, subject: { kind: 'release', id: tape.id }, linked: true });
    await as('boss').call('linkArtist', { artistId: artist.id, subject: { kind: 'product', id: hoodie }, linked: true });

    const { status, html } = await page('/artist/delta-choir');
    expect(status).toBe(200);
    expect(html).toContain('<title>Delta Choir · Street Flavor Records</title>');
    expect(metaContent(html, 'og:type')).toBe('profile');
    expect(metaContent(html, 'og:title')).toBe('Delta Choir');
    expect(metaContent(html, 'og:description')).toBe('A choir from the delta, singing since 1999.');
    expect(metaContent(html, 'og:url')).toBe(`${shop.baseUrl}/artist/delta-choir`);
    const group = jsonLd(html).find((block) => block['@type'] === 'MusicGroup');
    expect(group).toMatchObject({
      name: 'Delta Choir',
      url: `${shop.baseUrl}/artist/delta-choir`,
      sameAs: ['https://deltachoir.example/'],
      album: [{ '@type': 'MusicAlbum', name: 'Delta Tape', url: `${shop.baseUrl}/music/${tape.id}` }],
      makesOffer: [{ itemOffered: { name: 'Delta Hoodie', url: `${shop.baseUrl}/product/${hoodie}` } }],
    });
    const data = JSON.parse(/<script type="application\/json" id="page-data">([\s\S]*?)<\/script>/.exec(html)![1]!) as {
      artist: { releases: unknown[]; products: { name: string }[] };
    };
    expect(data.artist.releases).toEqual([{ id: tape.id, kind: 'ep', title: 'Delta Tape', releaseDate: '2026-05-01', artwork: '' }]);
    // The release's own download product is the release, not merch.
    expect(data.artist.products.map((product) => product.name)).toEqual(['Delta Hoodie']);

    // The release's page names its roster artist, with the artist's page.
    expect((await anonymous().call('getRelease', { id: tape.id })).release?.artists).toEqual([{ id: expect.any(Number), name: 'Delta Choir', slug: 'delta-choir' }]);
    const album = jsonLd((await page(`/music/${tape.id}`)).html).find((block) => block['@type'] === 'MusicAlbum');
    expect(album?.byArtist).toEqual({ '@type': 'MusicGroup', name: 'Delta Choir', url: `${shop.baseUrl}/artist/delta-choir` });

    const locations = await sitemap();
    expect(locations).toContain(`${shop.baseUrl}/artist/delta-choir`);
    expect(locations).toContain(`${shop.baseUrl}/artists`);

    // The shop's filter: the hoodie and the release's download, not the mug.
    const filtered = (await (await fetch(`${shop.baseUrl}/api/products?artist=delta-choir`)).json()) as { products: { name: string }[] };
    expect(filtered.products.map((product) => product.name).sort()).toEqual(['Delta Hoodie', 'Delta Tape (digital ep)']);
    const shopPage = await page('/shop?artist=delta-choir');
    expect(shopPage.html).toContain('Delta Hoodie');
    expect(shopPage.html).not.toContain('Someone Else Mug');
    expect((await fetch(`${shop.baseUrl}/api/products?artist=nobody-here`).then((response) => response.json())) as unknown).toEqual({ products: [], next: null });
    expect((await fetch(`${shop.baseUrl}/api/products?artist=Not%20A%20Slug`)).status).toBe(400);
  });

  it('reads well with nothing on it yet, and an unknown address is a 404', async () => {
    await as('boss').call('saveArtist', { name: 'Quiet Newcomer', links: [] });
    const { status, html } = await page('/artist/quiet-newcomer');
    expect(status).toBe(200);
    expect(metaContent(html, 'description')).toBe('Quiet Newcomer at Street Flavor Records. Music and merch straight from the label.');
    expect(jsonLd(html).find((block) => block['@type'] === 'MusicGroup')).toMatchObject({ name: 'Quiet Newcomer', album: [] });
    const missing = await page('/artist/nobody-at-all');
    expect(missing.status).toBe(404);
    expect(missing.html).toContain('noindex');
    const list = await page('/artists');
    expect(list.status).toBe(200);
    expect(metaContent(list.html, 'description')).toContain('Quiet Newcomer');
  });
});
