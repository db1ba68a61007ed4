import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIGITAL_MESSAGES, MAX_LYRICS_LENGTH } from '@storefront/domain/digital.ts';
import { CHECKOUT_MESSAGES, MAX_NAMED_PRICE_CENTS } from '@storefront/domain/pricing.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { releaseTracks, users } from '../db/schema/index.ts';

/**
 * Editing a release after it was created (issue 28, decision 064): the label edits each
 * track's title, ISRC, shown duration, order and lyrics, and the release's own fields; the
 * release page shows the result. A track sold alone may be "name your price".
 */
let shop: TestApp;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  shop = await startTestApp();
  await shop.account('editor');
  await shop.db.update(users).set({ role: 'admin' }).where(eq(users.email, 'editor@example.org'));
  await shop.account('listener');
  for (const name of ['editor', 'listener']) tokens[name] = await shop.signIn(`${name}@example.org`);
});

afterAll(async () => {
  await shop?.close();
});

const as = (name: string) => shop.functions(() => tokens[name]);

async function fails(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = (await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )) as { code: string; message: string } | undefined;
  expect(error).toBeDefined();
  return error!;
}

const base = { kind: 'album' as const, title: 'First Draft', artist: 'The Editors', releaseDate: '2026-02-01', priceCents: 900, published: true };

async function consoleRelease(id: number) {
  const { releases } = await as('editor').call('listReleases', null);
  return releases.find((release) => release.id === id)!;
}

describe('editing a release in the console', () => {
  it('changes the release’s fields and each track’s title, ISRC, shown duration, order and lyrics, keeping the tracks (and their masters) by id', async () => {
    const created = await as('editor').call('saveRelease', {
      ...base,
      tracks: [{ title: 'Opening' }, { title: 'Middle', priceCents: 100 }, { title: 'Closing' }],
    });
    const [opening, middle, closing] = created.trackIds as [number, number, number];
    // A master was attached to the middle track (as the console's upload does): an edit keeps it.
    await shop.db.update(releaseTracks).set({ masterPath: 'masters/1/middle.wav', masterGeneration: 7, durationSeconds: 184 }).where(eq(releaseTracks.id, middle));

    const edited = await as('editor').call('saveRelease', {
      ...base,
      id: created.id,
      title: 'Final Cut',
      artist: 'The Editors & Friends',
      releaseDate: '2026-03-15',
      credits: 'Mixed by Ann.',
      upc: '012345678905',
      tracks: [
        { id: closing, title: 'Closing (Reprise)', isrc: 'us-sfr-26-00009', shownDurationSeconds: 125 },
        { id: opening, title: 'Opening', lyrics: 'First line\nSecond line' },
        { id: middle, title: 'Middle', priceCents: 100 },
      ],
    });
    expect(edited).toEqual({ id: created.id, trackIds: [closing, opening, middle] });

    const release = await consoleRelease(created.id);
    expect(release).toMatchObject({ title: 'Final Cut', artist: 'The Editors & Friends', releaseDate: '2026-03-15', credits: 'Mixed by Ann.', upc: '012345678905' });
    expect(
      release.tracks.map(({ id, position, title, isrc, shownDurationSeconds, lyrics, masterPath }) => ({ id, position, title, isrc, shownDurationSeconds, lyrics, masterPath })),
    ).toEqual([
      { id: closing, position: 1, title: 'Closing (Reprise)', isrc: 'USSFR2600009', shownDurationSeconds: 125, lyrics: '', masterPath: null },
      { id: opening, position: 2, title: 'Opening', isrc: null, shownDurationSeconds: null, lyrics: 'First line\nSecond line', masterPath: null },
      { id: middle, position: 3, title: 'Middle', isrc: null, shownDurationSeconds: null, lyrics: '', masterPath: 'masters/1/middle.wav' },
    ]);

    // The release page: the new order, the label's duration over the master's, the lyrics.
    const { release: page } = await shop.functions().call('getRelease', { id: created.id });
    expect(page).toMatchObject({ title: 'Final Cut', artist: 'The Editors & Friends', releaseDate: '2026-03-15', credits: 'Mixed by Ann.' });
    expect(page!.tracks.map(({ title, durationSeconds, lyrics }) => ({ title, durationSeconds, lyrics }))).toEqual([
      { title: 'Closing (Reprise)', durationSeconds: 125, lyrics: '' },
      { title: 'Opening', durationSeconds: null, lyrics: 'First line\nSecond line' },
      { title: 'Middle', durationSeconds: 184, lyrics: '' },
    ]);
  });

  it('refuses lyrics that are too long, a duration that is not whole seconds from 1 to 24 hours, and control characters, changing nothing', async () => {
    const created = await as('editor').call('saveRelease', { ...base, title: 'Bounded', tracks: [{ title: 'Only', lyrics: 'Kept.' }] });
    const [only] = created.trackIds as [number];
    const edit = (track: Record<string, unknown>) =>
      as('editor').call('saveRelease', { ...base, id: created.id, title: 'Bounded', tracks: [{ id: only, title: 'Only', ...track }] } as never);

    expect(await fails(edit({ lyrics: 'a'.repeat(MAX_LYRICS_LENGTH + 1) }))).toMatchObject({
      code: 'invalid-argument',
      message: expect.stringContaining(`At most ${MAX_LYRICS_LENGTH} characters.`),
    });
    for (const shownDurationSeconds of [0, 86_401, 12.5, -3, '180']) {
      expect(await fails(edit({ shownDurationSeconds }))).toMatchObject({ code: 'invalid-argument', message: expect.stringContaining(DIGITAL_MESSAGES.duration) });
    }
    expect(await fails(edit({ lyrics: 'bell\u0007' }))).toMatchObject({ code: 'invalid-argument', message: expect.stringContaining('Control characters are not allowed.') });
    // Exactly the bounds are fine.
    await edit({ lyrics: 'b'.repeat(MAX_LYRICS_LENGTH), shownDurationSeconds: 86_400 });
    expect((await consoleRelease(created.id)).tracks[0]).toMatchObject({ lyrics: 'b'.repeat(MAX_LYRICS_LENGTH), shownDurationSeconds: 86_400 });
  });

  it('is the label’s alone: a fan or a visitor cannot edit a release', async () => {
    const created = await as('editor').call('saveRelease', { ...base, title: 'Ours', tracks: [{ title: 'Only' }] });
    const hostile = { ...base, id: created.id, title: 'Theirs', tracks: [{ id: created.trackIds[0]!, title: 'Taken', lyrics: 'Mine now' }] };
    expect(await fails(as('listener').call('saveRelease', hostile))).toMatchObject({ code: 'permission-denied' });
    expect(await fails(shop.functions().call('saveRelease', hostile))).toMatchObject({ code: 'unauthenticated' });
    expect((await consoleRelease(created.id)).tracks[0]).toMatchObject({ title: 'Only', lyrics: '' });
  });
});

describe('name your price for a track sold alone', () => {
  it('charges the fan’s amount for the track, at least its price, re-priced by the server; the album and other tracks keep theirs', async () => {
    const { id } = await as('editor').call('saveRelease', {
      ...base,
      kind: 'ep',
      title: 'Tracks As You Like',
      priceCents: 600,
      tracks: [
        { title: 'Pay More', priceCents: 150, nameYourPrice: true },
        { title: 'Fixed', priceCents: 120 },
      ],
    });
    const { release } = await shop.functions().call('getRelease', { id });
    expect(release!.nameYourPrice).toBe(false);
    expect(release!.tracks.map((track) => [track.title, track.priceCents, track.nameYourPrice])).toEqual([
      ['Pay More', 150, true],
      ['Fixed', 120, false],
    ]);
    const [named, fixed] = release!.tracks.map((track) => track.productId!) as [string, string];

    const quote = await as('listener').call('quoteCheckout', { items: [{ id: named, qty: 1, amountCents: 275 }], useWallet: true });
    expect(quote).toMatchObject({ subtotalCents: 275, lines: [{ id: named, unitCents: 275, digital: true }] });
    expect((await as('listener').call('quoteCheckout', { items: [{ id: named, qty: 1 }], useWallet: true })).subtotalCents).toBe(150);
    const low = await fails(as('listener').call('quoteCheckout', { items: [{ id: named, qty: 1, amountCents: 149 }], useWallet: true }));
    expect(low).toMatchObject({ code: 'invalid-argument', message: CHECKOUT_MESSAGES.belowMinimum('Pay More (digital track)', 150) });
    const huge = await fails(as('listener').call('quoteCheckout', { items: [{ id: named, qty: 1, amountCents: MAX_NAMED_PRICE_CENTS + 1 }], useWallet: true }));
    expect(huge.message).toContain(CHECKOUT_MESSAGES.namedPriceTooHigh);
    const other = await fails(as('listener').call('quoteCheckout', { items: [{ id: fixed, qty: 1, amountCents: 500 }], useWallet: true }));
    expect(other.message).toBe(CHECKOUT_MESSAGES.fixedPrice('Fixed (digital track)'));
    const album = await fails(as('listener').call('quoteCheckout', { items: [{ id: release!.productId!, qty: 1, amountCents: 700 }], useWallet: true }));
    expect(album.message).toBe(CHECKOUT_MESSAGES.fixedPrice('Tracks As You Like (digital ep)'));

    // The label turns it off again: the track's product is fixed-price at once.
    const { releases } = await as('editor').call('listReleases', null);
    const tracks = releases.find((entry) => entry.id === id)!.tracks;
    await as('editor').call('saveRelease', {
      ...base,
      kind: 'ep',
      id,
      title: 'Tracks As You Like',
      priceCents: 600,
      tracks: tracks.map((track) => ({ id: track.id, title: track.title, priceCents: track.priceCents })),
    });
    const off = await fails(as('listener').call('quoteCheckout', { items: [{ id: named, qty: 1, amountCents: 275 }], useWallet: true }));
    expect(off.message).toBe(CHECKOUT_MESSAGES.fixedPrice('Pay More (digital track)'));
  });
});
