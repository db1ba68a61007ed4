import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { availableOnLabel, DIGITAL_MESSAGES, downloadsOpen } from '@storefront/domain/digital.ts';
import { uploadBytesResumable } from '@storefront/sdk/storage/upload-task.ts';
import { createStorage, ref } from '@storefront/sdk/storage/storage.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { makeTempDir } from '../../test/database.ts';
import { digitalOwnership, users } from '../db/schema/index.ts';
import { grantCredits } from '../wallet/wallet.commands.ts';
import { probeAudio } from './encoder.ts';
import { signDownload } from './links.ts';
import { sineWav } from './testing/audio.ts';

/**
 * A digital preorder (issue 28 with preorders, decision 054): a release dated after the label's
 * today sells now and is owned at once, but its downloads are refused, with the date, until
 * the day; from the first second of that day (in LABEL_TIME_ZONE, here UTC) they work, with no
 * job having run. The clock is the process's own Date, moved by the test.
 */
let shop: TestApp;
let dataDir: ReturnType<typeof makeTempDir>;
const tokens: Record<string, string> = {};
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'digital-preorder-'));
const contact = { name: 'Fan', email: 'early@example.org', phone: '' };
const dayAfter = (date: Date) => new Date(date.getTime() + 24 * 60 * 60 * 1000).toISOString().slice(0, 10);

beforeAll(async () => {
  dataDir = makeTempDir('digital-preorder');
  shop = await startTestApp({ config: { env: { DATA_DIR: dataDir.dir } } });
  await shop.account('boss');
  await shop.account('early');
  await shop.db.update(users).set({ role: 'admin' }).where(eq(users.email, 'boss@example.org'));
  for (const name of ['boss', 'early']) tokens[name] = await shop.signIn(`${name}@example.org`);
  await grantCredits(shop.db, 'early@example.org', '100', 'digital-preorder-early');
});

afterEach(() => {
  vi.useRealTimers();
});

afterAll(async () => {
  await shop?.close();
  dataDir?.remove();
  fs.rmSync(scratch, { recursive: true, force: true });
});

const as = (name: string) => shop.functions(() => tokens[name]);

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = (await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )) as { code: string; message: string } | undefined;
  expect(error).toBeDefined();
  return error!;
}

describe('downloads of a preorder open on its release date', () => {
  it('sells before the date, refuses the downloads with the date until then, and serves them from that day on', async () => {
    const now = new Date();
    const today = now.toISOString().slice(0, 10);
    const releaseDate = dayAfter(now);
    const { id: releaseId, trackIds } = await as('boss').call('saveRelease', {
      kind: 'single',
      title: 'Not Yet',
      artist: 'The Sines',
      releaseDate,
      priceCents: 300,
      published: true,
      previewSeconds: 5,
      tracks: [{ title: 'Soon', priceCents: 200 }],
    });
    const trackId = trackIds[0]!;
    const objectPath = `masters/${releaseId}/${trackId}.wav`;
    await uploadBytesResumable(ref(createStorage({ baseUrl: shop.baseUrl, getAuthToken: () => tokens.boss ?? null }), objectPath), sineWav(1));
    await as('boss').call('setTrackMaster', { trackId, path: objectPath });
    await vi.waitFor(
      async () => {
        const { releases } = await as('boss').call('listReleases', null);
        expect(releases.find((release) => release.id === releaseId)!.tracks[0]!.encodeStatus).toBe('ready');
      },
      { timeout: 60_000, interval: 200 },
    );

    // Bought as a preorder: paid now, owned at once.
    const { release } = await shop.functions().call('getRelease', { id: releaseId });
    expect(release).toMatchObject({ preorder: true, releaseDate });
    const items = [{ id: release!.productId!, qty: 1 }];
    const quote = await as('early').call('quoteCheckout', { items, useWallet: true });
    await as('early').call('completeWalletOnlyOrderStreetFlavor', {
      items,
      contact,
      quote: {
        subtotalCents: quote.subtotalCents,
        shippingCents: quote.shippingCents,
        taxCents: quote.taxCents,
        walletAppliedCents: quote.walletAppliedCents,
        totalCents: quote.totalCents,
      },
      checkoutId: 'digital-preorder-1',
    });
    const owned = async () => shop.db.select().from(digitalOwnership).where(eq(digitalOwnership.releaseId, releaseId));
    const grants = await owned();
    expect(grants).toHaveLength(1);
    expect((await as('early').call('getLibrary', null)).releases).toMatchObject([{ id: releaseId, whole: true, availableOn: releaseDate, tracks: [{ owned: true, ready: true }] }]);

    // The last second of the day before: no link, and a signed link (made here as the shop makes them) is refused.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(`${today}T23:59:59.000Z`));
    const message = DIGITAL_MESSAGES.notOutYet(releaseDate);
    expect(message).toContain(availableOnLabel(releaseDate));
    for (const target of [{}, { trackId }]) {
      expect(await refusal(as('early').call('createDownloadLink', { releaseId, ...target, format: 'flac' }))).toMatchObject({ code: 'failed-precondition', message });
    }
    const userId = grants[0]!.userId;
    const sign = (track: number | null) => signDownload(shop.config.AUTH_SECRET, { userId, releaseId, trackId: track, format: 'flac', expiresAt: Date.now() + 60_000 });
    const early = await fetch(`${shop.baseUrl}/dl/${sign(trackId)}`);
    expect(early.status).toBe(400);
    expect(await early.json()).toMatchObject({ error: { message, requestId: expect.any(String) } });
    expect((await fetch(`${shop.baseUrl}/dl/${sign(null)}`)).status).toBe(400);
    // Refusing takes nothing away.
    expect(await owned()).toEqual(grants);

    // The release day's first second: the same owner downloads, nothing else having happened.
    vi.setSystemTime(new Date(`${releaseDate}T00:00:00.000Z`));
    expect((await as('early').call('getLibrary', null)).releases).toMatchObject([{ id: releaseId, availableOn: null }]);
    const { url } = await as('early').call('createDownloadLink', { releaseId, trackId, format: 'flac' });
    const download = await fetch(`${shop.baseUrl}${url}`);
    expect(download.status).toBe(200);
    const file = path.join(scratch, 'soon.flac');
    fs.writeFileSync(file, Buffer.from(await download.arrayBuffer()));
    expect(await probeAudio(file)).toMatchObject({ codec: 'flac', tags: { title: 'Soon' } });
    const zip = await fetch(`${shop.baseUrl}/dl/${sign(null)}`);
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-type')).toBe('application/zip');
    await zip.arrayBuffer();
  });

  it('opens downloads on the date itself, by the calendar day', () => {
    expect.soft(downloadsOpen('2027-03-05', '2027-03-04')).toBe(false);
    expect.soft(downloadsOpen('2027-03-05', '2027-03-05')).toBe(true);
    expect.soft(downloadsOpen('2027-03-05', '2027-03-06')).toBe(true);
    expect(availableOnLabel('2027-03-05')).toBe('Available on Mar 5, 2027');
  });
});
