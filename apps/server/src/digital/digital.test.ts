import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DIGITAL_MESSAGES } from '@storefront/domain/digital.ts';
import { UPLOAD_MESSAGES } from '@storefront/domain/storage.ts';
import { uploadBytesResumable } from '@storefront/sdk/storage/upload-task.ts';
import { createStorage, ref } from '@storefront/sdk/storage/storage.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { makeTempDir } from '../../test/database.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import { digitalOwnership, releaseTracks, trackFiles } from '../db/schema/index.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { createStorageDeps } from '../storage/storage.service.ts';
import { storageTestDriver } from '../storage/testing/driver-choice.ts';
import { startTestS3Server, type TestS3Server } from '../storage/testing/s3-server.ts';
import { ENCODE_ATTEMPTS, runEncodeJob } from './encode.service.ts';
import { probeAudio } from './encoder.ts';
import { signDownload } from './links.ts';
import { retryTrackEncoding, saveRelease, setTrackMaster } from './releases.service.ts';
import { sineWav } from './testing/audio.ts';
import { storedZipEntries } from './testing/zip.ts';

let shop: TestApp;
let dataDir: ReturnType<typeof makeTempDir>;
let s3: TestS3Server | undefined;
const tokens: Record<string, string> = {};
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'digital-test-'));
const FANS = Array.from({ length: 12 }, (_, index) => `fan${index}`);

beforeAll(async () => {
  dataDir = makeTempDir('digital-test');
  if (storageTestDriver() === 's3') s3 = await startTestS3Server();
  shop = await startTestApp({
    config: { env: { DATA_DIR: dataDir.dir, SIGNIN_RATE_LIMIT: '1000', ...s3?.env } },
    async seed({ db, config }) {
      const account = (name: string, role: 'user' | 'admin') =>
        createAccount(
          db,
          config,
          { email: `${name}@example.org`, password: 'pass words', confirmPassword: 'pass words', name, username: name, acceptedTerms: true },
          { emailVerified: true, role, allowReservedUsername: true },
        );
      await account('label', 'admin');
      for (const fan of FANS) await account(fan, 'user');
    },
  });
  for (const name of ['label', ...FANS]) tokens[name] = await shop.signIn(`${name}@example.org`);
});

afterAll(async () => {
  await shop?.close();
  dataDir?.remove();
  await s3?.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

const as = (name: string) => shop.functions(() => tokens[name]);
const storage = (name: string) => createStorage({ baseUrl: shop.baseUrl, getAuthToken: () => tokens[name] ?? null });

async function uploadMaster(objectPath: string, bytes: Buffer) {
  return uploadBytesResumable(ref(storage('label'), objectPath), bytes);
}

async function fails(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = (await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )) as { code: string; message: string } | undefined;
  expect(error).toBeDefined();
  return error!;
}

async function newRelease(title: string, tracks = 2, published = true) {
  return as('label').call('saveRelease', {
    kind: 'album',
    title,
    artist: 'The Sines',
    releaseDate: '2026-01-15',
    priceCents: 800,
    published,
    previewSeconds: 5,
    tracks: Array.from({ length: tracks }, (_, index) => ({ title: `Tone ${index + 1}`, isrc: `USSFR26${String(index + 1).padStart(5, '0')}`, priceCents: 100 })),
  });
}

async function waitUntilEncoded(releaseId: number) {
  await vi.waitFor(
    async () => {
      const { releases } = await as('label').call('listReleases', null);
      const tracks = releases.find((release) => release.id === releaseId)!.tracks;
      expect(tracks.map((track) => track.encodeStatus)).toEqual(tracks.map(() => 'ready'));
    },
    { timeout: 60_000, interval: 200 },
  );
}

async function saved(name: string, response: Response): Promise<string> {
  const file = path.join(scratch, name);
  fs.writeFileSync(file, Buffer.from(await response.arrayBuffer()));
  return file;
}

describe('masters are uploaded through the resumable upload and checked by content', () => {
  it('takes a WAV and refuses a text file renamed .wav, and keeps masters from anyone but admins', async () => {
    const snapshot = await uploadMaster('masters/check/good.wav', sineWav(1));
    expect(snapshot.metadata?.contentType).toBe('audio/wav');

    const refused = await uploadMaster('masters/check/renamed.wav', Buffer.from('Just some notes, not audio.\n'.repeat(100))).then(
      () => undefined,
      (error: unknown) => error as { code: string; message: string },
    );
    expect(refused?.message).toContain(UPLOAD_MESSAGES.notLosslessAudio);
    // An image is not a master either.
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
    await expect(uploadMaster('masters/check/cover.wav', png)).rejects.toMatchObject({ message: expect.stringContaining(UPLOAD_MESSAGES.notLosslessAudio) });

    // Fans neither write nor read masters.
    const fanUpload = await uploadBytesResumable(ref(storage('fan0'), 'masters/check/mine.wav'), sineWav(1)).then(
      () => undefined,
      (error: unknown) => error as { code: string },
    );
    expect(fanUpload?.code).toBe('unauthorized');
    const read = await fetch(`${shop.baseUrl}/v0/b/storefront/o/${encodeURIComponent('masters/check/good.wav')}?alt=media`, {
      headers: { authorization: `Bearer ${tokens.fan0}` },
    });
    expect(read.status).toBe(403);
  });
});

describe('a release from upload to download', () => {
  let releaseId: number;
  let trackIds: number[];

  beforeAll(async () => {
    ({ id: releaseId, trackIds } = await newRelease('Sine Waves'));
    for (const [index, trackId] of trackIds.entries()) {
      const objectPath = `masters/${releaseId}/${trackId}.wav`;
      await uploadMaster(objectPath, sineWav(2 + index, 440 + index * 110));
      await as('label').call('setTrackMaster', { trackId, path: objectPath });
    }
    await waitUntilEncoded(releaseId);
  });

  it('encodes every track into every format with progress shown, and the release page lists previews', async () => {
    const { releases } = await as('label').call('listReleases', null);
    const release = releases.find((entry) => entry.id === releaseId)!;
    expect(release.tracks.map((track) => [track.encodeDone, track.encodeTotal, track.durationSeconds])).toEqual([
      [6, 6, 2],
      [6, 6, 3],
    ]);
    const { release: page } = await shop.functions().call('getRelease', { id: releaseId });
    expect(page?.tracks.map((track) => track.previewUrl)).toEqual(trackIds.map((id) => `/api/digital/tracks/${id}/preview`));
  });

  it('streams previews with HTTP ranges, cut to the label’s length', async () => {
    const url = `${shop.baseUrl}/api/digital/tracks/${trackIds[0]}/preview`;
    const full = await fetch(url);
    expect(full.status).toBe(200);
    expect(full.headers.get('accept-ranges')).toBe('bytes');
    const size = Number(full.headers.get('content-length'));
    const probe = await probeAudio(await saved('preview.mp3', full));
    expect(probe.codec).toBe('mp3');
    expect(probe.durationSeconds).toBeLessThanOrEqual(2.1);

    const part = await fetch(url, { headers: { range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-199/${size}`);
    expect((await part.arrayBuffer()).byteLength).toBe(100);
    const tail = await fetch(url, { headers: { range: 'bytes=-10' } });
    expect(tail.headers.get('content-range')).toBe(`bytes ${size - 10}-${size - 1}/${size}`);
    expect((await fetch(url, { headers: { range: `bytes=${size}-` } })).status).toBe(416);
  });

  it('a preview follows its release: after a change of the preview length nothing is served until the new preview is made (issue 40 item 1)', async () => {
    // Published with full-track previews, then cut to 5 s.
    const release = await as('label').call('saveRelease', {
      kind: 'single',
      title: 'Whole Then Cut',
      artist: 'The Sines',
      releaseDate: '2026-01-15',
      priceCents: 300,
      published: true,
      previewSeconds: null,
      tracks: [{ title: 'Long Tone', isrc: 'USSFR2699901', priceCents: 100 }],
    });
    const trackId = release.trackIds[0]!;
    await uploadMaster(`masters/${release.id}/${trackId}.wav`, sineWav(7, 330));
    await as('label').call('setTrackMaster', { trackId, path: `masters/${release.id}/${trackId}.wav` });
    await waitUntilEncoded(release.id);
    const url = `${shop.baseUrl}/api/digital/tracks/${trackId}/preview`;
    expect((await probeAudio(await saved('whole.mp3', await fetch(url)))).durationSeconds).toBeGreaterThan(6.5);

    await as('label').call('saveRelease', {
      id: release.id,
      kind: 'single',
      title: 'Whole Then Cut',
      artist: 'The Sines',
      releaseDate: '2026-01-15',
      priceCents: 300,
      published: true,
      previewSeconds: 5,
      tracks: [{ id: trackId, title: 'Long Tone', isrc: 'USSFR2699901', priceCents: 100 }],
    });
    // At once: the whole track is no longer served as a preview, and the track is being made again.
    const meanwhile = await fetch(url);
    expect(meanwhile.status).toBe(404);
    await meanwhile.arrayBuffer();
    await waitUntilEncoded(release.id);
    const cut = await fetch(url);
    expect(cut.status).toBe(200);
    expect((await probeAudio(await saved('cut.mp3', cut))).durationSeconds).toBeLessThanOrEqual(5.1);
  });

  it('lets nobody download what they do not own, and gives owners signed links that decode', async () => {
    // Not owned: no link (IDOR), whatever the track or format.
    for (const trackId of [undefined, trackIds[0]]) {
      const refused = await fails(as('fan1').call('createDownloadLink', { releaseId, trackId, format: 'flac' }));
      expect(refused).toMatchObject({ code: 'permission-denied', message: DIGITAL_MESSAGES.notOwned });
    }
    const { codes } = await as('label').call('createDownloadCodes', { releaseId, count: 2 });
    await as('fan1').call('redeemDownloadCode', { code: codes[0]!.replace(/(.{4})/g, '$1-').toLowerCase() });
    const { releases: library } = await as('fan1').call('getLibrary', null);
    expect(library).toMatchObject([
      {
        id: releaseId,
        whole: true,
        sources: ['code'],
        tracks: [
          { owned: true, ready: true },
          { owned: true, ready: true },
        ],
      },
    ]);
    expect((await as('fan2').call('getLibrary', null)).releases).toEqual([]);

    const { url: flacUrl, expiresAt } = await as('fan1').call('createDownloadLink', { releaseId, trackId: trackIds[1], format: 'flac' });
    expect(Date.parse(expiresAt) - Date.now()).toBeLessThanOrEqual(10 * 60 * 1000);
    const flac = await fetch(`${shop.baseUrl}${flacUrl}`);
    expect(flac.status).toBe(200);
    expect(flac.headers.get('content-disposition')).toContain('02 Tone 2.flac');
    const probe = await probeAudio(await saved('track.flac', flac));
    expect(probe).toMatchObject({ codec: 'flac', tags: { title: 'Tone 2', artist: 'The Sines', album: 'Sine Waves', track: '2/2', isrc: 'USSFR2600002' } });

    const { url: zipUrl } = await as('fan1').call('createDownloadLink', { releaseId, format: 'mp3-320' });
    const zip = await fetch(`${shop.baseUrl}${zipUrl}`);
    expect(zip.headers.get('content-type')).toBe('application/zip');
    const entries = storedZipEntries(Buffer.from(await zip.arrayBuffer()));
    expect(entries.map((entry) => entry.name)).toEqual(['The Sines - Sine Waves/01 Tone 1.mp3', 'The Sines - Sine Waves/02 Tone 2.mp3']);
    for (const entry of entries) {
      const file = path.join(scratch, path.basename(entry.name));
      fs.writeFileSync(file, entry.data);
      expect(await probeAudio(file)).toMatchObject({ codec: 'mp3' });
    }

    // A tampered link, an expired one, and one for what its owner no longer owns.
    const [payload, signature] = flacUrl.slice('/dl/'.length).split('.');
    const forged = Buffer.from(JSON.stringify([await userId('fan2'), releaseId, null, 'flac', Date.now() + 60_000])).toString('base64url');
    expect((await fetch(`${shop.baseUrl}/dl/${forged}.${signature}`)).status).toBe(404);
    expect((await fetch(`${shop.baseUrl}/dl/${payload}.${signature!.slice(0, -2)}xx`)).status).toBe(404);
    const expired = signDownload(shop.config.AUTH_SECRET, { userId: await userId('fan1'), releaseId, trackId: null, format: 'flac', expiresAt: Date.now() - 1 });
    const gone = await fetch(`${shop.baseUrl}/dl/${expired}`);
    expect(gone.status).toBe(403);
    expect(await gone.json()).toMatchObject({ error: { message: DIGITAL_MESSAGES.linkExpired, requestId: expect.any(String) } });
    const notTheirs = signDownload(shop.config.AUTH_SECRET, { userId: await userId('fan2'), releaseId, trackId: null, format: 'flac', expiresAt: Date.now() + 60_000 });
    expect((await fetch(`${shop.baseUrl}/dl/${notTheirs}`)).status).toBe(403);
  });

  it('redeems a code exactly once when many fans race for it', async () => {
    const { codes } = await as('label').call('createDownloadCodes', { releaseId, count: 1 });
    const racers = FANS.slice(2);
    const outcomes = await Promise.allSettled(racers.map((fan) => as(fan).call('redeemDownloadCode', { code: codes[0]! })));
    const won = outcomes.flatMap((outcome, index) => (outcome.status === 'fulfilled' ? [racers[index]!] : []));
    expect(won).toHaveLength(1);
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') expect(outcome.reason).toMatchObject({ code: 'failed-precondition', message: DIGITAL_MESSAGES.codeUsed });
    }
    const owners = await shop.db.select().from(digitalOwnership).where(eq(digitalOwnership.sourceRef, codes[0]!));
    expect(owners.map((row) => row.userId)).toEqual([await userId(won[0]!)]);
    // The winner may ask again (a lost answer) and gets the same release; the console names the winner.
    expect(await as(won[0]!).call('redeemDownloadCode', { code: codes[0]! })).toEqual({ releaseId, title: 'Sine Waves' });
    const listed = (await as('label').call('listDownloadCodes', { releaseId })).codes.find((entry) => entry.code === codes[0]);
    expect(listed).toMatchObject({ redeemedBy: `${won[0]}@example.org`, redeemedAt: expect.any(String) });
    expect(await fails(as('fan0').call('redeemDownloadCode', { code: 'AAAA-BBBB-CCCC' }))).toMatchObject({ code: 'not-found', message: DIGITAL_MESSAGES.codeNotFound });
  });
});

async function userId(name: string): Promise<string> {
  const { users } = await import('../db/schema/index.ts');
  const [row] = await shop.db
    .select({ id: users.id })
    .from(users)
    .where(eq(users.email, `${name}@example.org`));
  return row!.id;
}

describe('the encoding job', () => {
  const sent: { name: string; data: object }[] = [];
  const jobs = {
    async sendInTransaction(_tx: unknown, name: string, data: object) {
      sent.push({ name, data });
    },
  } as unknown as JobQueue;

  it('records a failure, is retried by the queue, shows Failed after its attempts, and Retry starts again', async () => {
    const { trackIds } = await newRelease('Failing', 1, false);
    const trackId = trackIds[0]!;
    const objectPath = `masters/failing/${trackId}.wav`;
    const snapshot = await uploadMaster(objectPath, sineWav(1));
    const generation = Number(snapshot.metadata!.generation);
    await setTrackMaster(shop.db, jobs, trackId, { path: objectPath, generation });
    expect(sent.at(-1)).toEqual({ name: 'encode-track', data: { trackId, generation } });

    const deps = { storage: createStorageDeps({ db: shop.db, config: shop.config }), timeoutMs: 60_000 };
    const broken = { ...deps, encodeFile: () => Promise.reject(new Error('ffmpeg failed (exit 1): disk full')) };
    const track = async () => (await shop.db.select().from(releaseTracks).where(eq(releaseTracks.id, trackId)))[0]!;
    for (let attempt = 1; attempt < ENCODE_ATTEMPTS; attempt += 1) {
      await expect(runEncodeJob(broken, { trackId, generation })).rejects.toThrow('disk full');
      expect(await track()).toMatchObject({ encodeStatus: 'queued', encodeAttempts: attempt, encodeError: 'ffmpeg failed (exit 1): disk full' });
    }
    expect(await runEncodeJob(broken, { trackId, generation })).toBe('failed');
    expect(await track()).toMatchObject({ encodeStatus: 'failed', encodeAttempts: ENCODE_ATTEMPTS });
    // A job arriving after that (a duplicate) changes nothing.
    expect(await runEncodeJob(deps, { trackId, generation })).toBe('stale');

    await retryTrackEncoding(shop.db, jobs, trackId);
    expect(await track()).toMatchObject({ encodeStatus: 'queued', encodeAttempts: 0, encodeError: null });
    expect(await runEncodeJob(deps, { trackId, generation })).toBe('ready');
    expect(await track()).toMatchObject({ encodeStatus: 'ready', encodeDone: 6, encodeError: null });
    // A job for an older master does nothing.
    expect(await runEncodeJob(deps, { trackId, generation: generation - 1 })).toBe('stale');
  });

  it('picks up where a run that died left off, making the same files', async () => {
    const { trackIds } = await newRelease('Interrupted', 1, false);
    const trackId = trackIds[0]!;
    const objectPath = `masters/interrupted/${trackId}.wav`;
    const generation = Number((await uploadMaster(objectPath, sineWav(1))).metadata!.generation);
    await setTrackMaster(shop.db, jobs, trackId, { path: objectPath, generation });
    const deps = { storage: createStorageDeps({ db: shop.db, config: shop.config }), timeoutMs: 60_000 };
    let runs = 0;
    const { encode } = await import('./encoder.ts');
    // The worker "dies" after three formats: the job throws, as a killed process leaves it to expire and run again.
    const dying = {
      ...deps,
      encodeFile: async (input: Parameters<typeof encode>[0]) => {
        runs += 1;
        if (runs === 4) throw new Error('worker stopped');
        await encode(input);
      },
    };
    await expect(runEncodeJob(dying, { trackId, generation })).rejects.toThrow('worker stopped');
    const counted = {
      ...deps,
      encodeFile: async (input: Parameters<typeof encode>[0]) => {
        runs += 1;
        await encode(input);
      },
    };
    expect(await runEncodeJob(counted, { trackId, generation })).toBe('ready');
    // 3 made, 1 failed, then only the 3 missing ones: 7 runs for 6 formats.
    expect(runs).toBe(7);
  });

  it('makes the files again when the release is saved while the job ends: the save and the job meet on the track row', async () => {
    // The interleaving forced here: the job has made every file; a save changes the preview
    // length, finds the track still encoding (so leaves it to the job) and is held open; the job
    // then reads whether the release changed. Read without the save's lock, it saw the old
    // release and marked the track ready after the save committed: files with the old preview
    // (or cover) were served for good.
    const { id: releaseId, trackIds } = await newRelease('Saved While Ending', 2, false);
    const [endingId, otherId] = trackIds as [number, number];
    const deps = {
      storage: createStorageDeps({ db: shop.db, config: shop.config }),
      timeoutMs: 60_000,
      encodeFile: async (input: { output: string; master: string }) => fs.promises.writeFile(input.output, await fs.promises.readFile(input.master)),
    };
    const generations: number[] = [];
    for (const trackId of trackIds) {
      const objectPath = `masters/ending/${trackId}.wav`;
      const generation = Number((await uploadMaster(objectPath, sineWav(1))).metadata!.generation);
      await setTrackMaster(shop.db, jobs, trackId, { path: objectPath, generation });
      generations.push(generation);
    }
    expect(await runEncodeJob(deps, { trackId: otherId, generation: generations[1]! })).toBe('ready');

    const { saveReleaseInput } = await import('@storefront/domain/contracts/digital.ts');
    const input = saveReleaseInput.parse({
      id: releaseId,
      kind: 'album',
      title: 'Saved While Ending',
      artist: 'The Sines',
      releaseDate: '2026-01-15',
      priceCents: 800,
      published: false,
      previewSeconds: 7,
      tracks: trackIds.map((id, index) => ({ id, title: `Tone ${index + 1}`, isrc: `USSFR26${String(index + 1).padStart(5, '0')}`, priceCents: 100 })),
    });
    // The save queues the other track (ready, its preview now stale) and waits there, open.
    let held!: () => void;
    const saveHeld = new Promise<void>((resolve) => (held = resolve));
    let letGo!: () => void;
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    const holding = {
      async sendInTransaction() {
        held();
        await gate;
      },
    } as unknown as JobQueue;
    let save: Promise<unknown> | undefined;
    const queued: object[] = [];
    const ending = runEncodeJob(
      {
        ...deps,
        jobs: { send: async (_name: string, data: object) => void queued.push(data) } as unknown as JobQueue,
        beforeFinish: async () => {
          save = saveRelease(shop.db, holding, input, '');
          await saveHeld;
        },
      },
      { trackId: endingId, generation: generations[0]! },
    );
    // The job now waits on the save's lock (or, unfixed, has read the old release and waits to write).
    await vi.waitFor(
      async () => {
        const waiting = await shop.db.execute(sql`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
        expect(waiting.rows.length).toBeGreaterThan(0);
      },
      { timeout: 10_000, interval: 20 },
    );
    letGo();
    await save;
    expect(await ending).toBe('ready');
    const [track] = await shop.db.select().from(releaseTracks).where(eq(releaseTracks.id, endingId));
    expect(track).toMatchObject({ encodeStatus: 'queued', encodeAttempts: 0 });
    expect(queued).toEqual([{ trackId: endingId, generation: generations[0] }]);
    // Run again, the job makes the preview with the new length; then the track is ready.
    expect(await runEncodeJob(deps, { trackId: endingId, generation: generations[0]! })).toBe('ready');
    expect((await shop.db.select().from(releaseTracks).where(eq(releaseTracks.id, endingId)))[0]).toMatchObject({ encodeStatus: 'ready' });
  });

  it('fails, and is retried, when the release’s artwork cannot be read, rather than making files without the cover', async () => {
    const { id: releaseId, trackIds } = await newRelease('Lost Cover', 1, false);
    const trackId = trackIds[0]!;
    const objectPath = `masters/lost-cover/${trackId}.wav`;
    const generation = Number((await uploadMaster(objectPath, sineWav(1))).metadata!.generation);
    await setTrackMaster(shop.db, jobs, trackId, { path: objectPath, generation });
    const { STORAGE_BUCKET } = await import('@storefront/domain/storage.ts');
    const { downloadUrl } = await import('@storefront/domain/storage-location.ts');
    // An image of the shop's store that is not there (or not with this token).
    const missing = downloadUrl('', { bucket: STORAGE_BUCKET, path: 'images/gone.png' }, 'no-such-token');
    await shop.db.execute(sql`UPDATE release SET artwork = ${missing} WHERE id = ${releaseId}`);
    const deps = {
      storage: createStorageDeps({ db: shop.db, config: shop.config }),
      timeoutMs: 60_000,
      encodeFile: async (input: { output: string; master: string }) => fs.promises.writeFile(input.output, await fs.promises.readFile(input.master)),
    };
    await expect(runEncodeJob(deps, { trackId, generation })).rejects.toThrow('The release’s artwork could not be read from storage: upload it again.');
    expect((await shop.db.select().from(releaseTracks).where(eq(releaseTracks.id, trackId)))[0]).toMatchObject({ encodeStatus: 'queued', encodeDone: 0 });
    expect(await shop.db.select().from(trackFiles).where(eq(trackFiles.trackId, trackId))).toEqual([]);
  });

  it('removes the files of a replaced master once the new one is encoded', async () => {
    const { trackIds } = await newRelease('Replaced', 1, false);
    const trackId = trackIds[0]!;
    const objectPath = `masters/replaced/${trackId}.wav`;
    const deps = {
      storage: createStorageDeps({ db: shop.db, config: shop.config }),
      timeoutMs: 60_000,
      // Bytes that name their master: enough to tell the two generations' files apart.
      encodeFile: async (input: { output: string; master: string }) => fs.promises.writeFile(input.output, await fs.promises.readFile(input.master)),
    };
    const keysOf = async () => (await shop.db.select().from(trackFiles).where(eq(trackFiles.trackId, trackId))).map((row) => row.key).sort();
    const first = Number((await uploadMaster(objectPath, sineWav(1))).metadata!.generation);
    await setTrackMaster(shop.db, jobs, trackId, { path: objectPath, generation: first });
    expect(await runEncodeJob(deps, { trackId, generation: first })).toBe('ready');
    const oldKeys = await keysOf();
    expect(oldKeys).toHaveLength(6);

    const second = Number((await uploadMaster(objectPath, sineWav(2))).metadata!.generation);
    await setTrackMaster(shop.db, jobs, trackId, { path: objectPath, generation: second });
    expect(await runEncodeJob(deps, { trackId, generation: second })).toBe('ready');
    const newKeys = await keysOf();
    expect(newKeys.every((key) => key.includes(`/${second}/`))).toBe(true);
    for (const key of oldKeys) expect(await deps.storage.driver.stat(key)).toBeNull();
    for (const key of newKeys) expect(await deps.storage.driver.stat(key)).not.toBeNull();
  });
});
