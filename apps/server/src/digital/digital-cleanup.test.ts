import fs from 'node:fs';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { STORAGE_BUCKET } from '@storefront/domain/storage.ts';
import { uploadBytesResumable } from '@storefront/sdk/storage/upload-task.ts';
import { createStorage, ref } from '@storefront/sdk/storage/storage.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { makeTempDir } from '../../test/database.ts';
import { trackFiles, users } from '../db/schema/index.ts';
import { createStorageDeps, findObject, objectKey, type StorageDeps } from '../storage/storage.service.ts';
import { storageTestDriver } from '../storage/testing/driver-choice.ts';
import { startTestS3Server, type TestS3Server } from '../storage/testing/s3-server.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { FILE_CLEANUP_QUEUE, runFileCleanup, type FileCleanupJob } from './cleanup.service.ts';
import { runEncodeJob } from './encode.service.ts';
import { setTrackMaster } from './releases.service.ts';
import { sineWav } from './testing/audio.ts';

/**
 * The stored files of deleted tracks and detached masters are removed (issue 28, decision 061
 * amended in session 10): by the `digital-file-cleanup` job the deleting transaction queues,
 * retried when the store fails, never touching a file something still refers to. On the
 * local disk here, on S3 in digital-cleanup.s3-suite.test.ts.
 */
let shop: TestApp;
let dataDir: ReturnType<typeof makeTempDir>;
let s3: TestS3Server | undefined;
let storage: StorageDeps;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  dataDir = makeTempDir('digital-cleanup');
  if (storageTestDriver() === 's3') s3 = await startTestS3Server();
  shop = await startTestApp({ config: { env: { DATA_DIR: dataDir.dir, ...s3?.env } } });
  await shop.account('boss');
  await shop.db.update(users).set({ role: 'admin' }).where(eq(users.email, 'boss@example.org'));
  tokens.boss = await shop.signIn('boss@example.org');
  storage = createStorageDeps({ db: shop.db, config: shop.config });
});

afterAll(async () => {
  await shop?.close();
  dataDir?.remove();
  await s3?.close();
});

const boss = () => shop.functions(() => tokens.boss);

interface Stored {
  keys: string[];
  masterPath: string;
  masterBlob: string;
}

const tracksOf = (titles: string[], ids: (number | undefined)[] = []) => titles.map((title, index) => ({ ...(ids[index] ? { id: ids[index] } : {}), title }));

async function uploadAndAttach(trackId: number, objectPath: string, seconds = 1): Promise<void> {
  await uploadBytesResumable(ref(createStorage({ baseUrl: shop.baseUrl, getAuthToken: () => tokens.boss ?? null }), objectPath), sineWav(seconds));
  await boss().call('setTrackMaster', { trackId, path: objectPath });
}

/** What a track has stored now: its encoded files and its master. */
async function storedOf(releaseId: number, trackId: number): Promise<Stored> {
  const keys = (await shop.db.select({ key: trackFiles.key }).from(trackFiles).where(eq(trackFiles.trackId, trackId))).map((row) => row.key);
  const masterPath = `masters/${releaseId}/${trackId}.wav`;
  const master = await findObject(shop.db, STORAGE_BUCKET, masterPath);
  return { keys, masterPath, masterBlob: objectKey(master!.blobKey) };
}

/** Waits until every track of the release is encoded (for the release as it is now). */
async function untilEncoded(releaseId: number, count: number): Promise<void> {
  await vi.waitFor(
    async () => {
      const { releases } = await boss().call('listReleases', null);
      expect(releases.find((release) => release.id === releaseId)!.tracks.map((track) => track.encodeStatus)).toEqual(Array(count).fill('ready'));
    },
    { timeout: 60_000, interval: 200 },
  );
}

/** A release whose tracks all have an encoded master; what each track has stored. */
async function encodedRelease(title: string, titles: string[]): Promise<{ id: number; trackIds: number[]; stored: Stored[] }> {
  const input = { kind: 'album' as const, title, artist: 'Sweepers', releaseDate: '2026-01-15', priceCents: 500, published: false };
  const { id, trackIds } = await boss().call('saveRelease', { ...input, tracks: tracksOf(titles) });
  for (const trackId of trackIds) await uploadAndAttach(trackId, `masters/${id}/${trackId}.wav`);
  await vi.waitFor(
    async () => {
      const { releases } = await boss().call('listReleases', null);
      expect(releases.find((release) => release.id === id)!.tracks.map((track) => track.encodeStatus)).toEqual(titles.map(() => 'ready'));
    },
    { timeout: 60_000, interval: 200 },
  );
  const stored: Stored[] = [];
  for (const trackId of trackIds) stored.push(await storedOf(id, trackId));
  return { id, trackIds, stored };
}

async function present(entry: Stored): Promise<boolean[]> {
  const keys = await Promise.all([...entry.keys, entry.masterBlob].map(async (key) => (await storage.driver.stat(key)) !== null));
  return [...keys, (await findObject(shop.db, STORAGE_BUCKET, entry.masterPath)) !== undefined];
}

describe(`files of deleted tracks and detached masters are removed (${storageTestDriver()} storage)`, () => {
  it('removes a dropped track’s encoded files and master after the save commits, and keeps the other track’s', async () => {
    const { id, trackIds, stored } = await encodedRelease('Shrinking', ['Stays', 'Goes']);
    expect(stored[1]!.keys).toHaveLength(6);
    expect(await present(stored[1]!)).toEqual(Array(8).fill(true));

    await boss().call('saveRelease', {
      id,
      kind: 'album',
      title: 'Shrinking',
      artist: 'Sweepers',
      releaseDate: '2026-01-15',
      priceCents: 500,
      published: false,
      tracks: tracksOf(['Stays'], [trackIds[0]]),
    });
    await vi.waitFor(async () => expect(await present(stored[1]!)).toEqual(Array(8).fill(false)), { timeout: 30_000, interval: 100 });
    // The track that stays is encoded again for its new track count (its files follow the
    // release, issue 40 item 1, and the files it replaces go): its current files and master stay.
    await untilEncoded(id, 1);
    expect(await present(await storedOf(id, trackIds[0]!))).toEqual(Array(8).fill(true));
  });

  it('removes a master detached by another at a new path, once nothing uses it', async () => {
    const { trackIds, stored } = await encodedRelease('Remastered', ['Only']);
    const [entry] = stored;
    await uploadAndAttach(trackIds[0]!, `masters/remastered-${trackIds[0]}.wav`);
    await vi.waitFor(
      async () => {
        expect(await storage.driver.stat(entry!.masterBlob)).toBeNull();
        expect(await findObject(shop.db, STORAGE_BUCKET, entry!.masterPath)).toBeUndefined();
      },
      { timeout: 30_000, interval: 100 },
    );
    expect(await findObject(shop.db, STORAGE_BUCKET, `masters/remastered-${trackIds[0]}.wav`)).toBeDefined();
  });

  it('never removes a file still referred to, and is retried until the store deletes', async () => {
    const { stored } = await encodedRelease('Kept', ['Used']);
    const [entry] = stored;
    const master = await findObject(shop.db, STORAGE_BUCKET, entry!.masterPath);
    // A job naming files a track still uses (a stale or duplicated job) removes nothing.
    const job = { keys: entry!.keys, masters: [{ path: entry!.masterPath, generation: master!.generation }] };
    expect(await runFileCleanup(storage, job)).toEqual({ keys: [], masters: [] });
    expect(await present(entry!)).toEqual(Array(8).fill(true));

    // Files nothing refers to any more, and a store that fails: the job throws (the queue retries) and the next run removes them.
    await shop.db.delete(trackFiles).where(eq(trackFiles.key, entry!.keys[0]!));
    let failures = 0;
    const failing: StorageDeps = {
      ...storage,
      driver: {
        ...storage.driver,
        delete: async () => {
          failures += 1;
          throw new Error('store unavailable');
        },
      },
    };
    await expect(runFileCleanup(failing, job)).rejects.toThrow('store unavailable');
    expect(failures).toBe(1);
    expect(await storage.driver.stat(entry!.keys[0]!)).not.toBeNull();
    expect(await runFileCleanup(storage, job)).toEqual({ keys: [entry!.keys[0]], masters: [] });
    expect(await storage.driver.stat(entry!.keys[0]!)).toBeNull();
    expect(await present(entry!)).toEqual([false, ...Array(7).fill(true)]);
  });

  it('hands a replaced encoding the store would not delete to the cleanup job, which removes it', async () => {
    const { trackIds } = await boss().call('saveRelease', {
      kind: 'single',
      title: 'Replaced',
      artist: 'Sweepers',
      releaseDate: '2026-01-15',
      priceCents: 100,
      published: false,
      tracks: [{ title: 'Twice' }],
    });
    const trackId = trackIds[0]!;
    const objectPath = `masters/replaced-${trackId}.wav`;
    // The job is run here, not by the app's queue: the jobs given to the services only record.
    const sent: { name: string; data: object }[] = [];
    const jobs = {
      async sendInTransaction() {},
      async send(name: string, data: object) {
        sent.push({ name, data });
      },
    } as unknown as JobQueue;
    const copy = async (input: { output: string; master: string }) => fs.promises.copyFile(input.master, input.output);
    const storageClient = createStorage({ baseUrl: shop.baseUrl, getAuthToken: () => tokens.boss ?? null });
    const attach = async (seconds: number) => {
      const generation = Number((await uploadBytesResumable(ref(storageClient, objectPath), sineWav(seconds))).metadata!.generation);
      await setTrackMaster(shop.db, jobs, trackId, { path: objectPath, generation });
      return generation;
    };
    const keysOf = async () => (await shop.db.select({ key: trackFiles.key }).from(trackFiles).where(eq(trackFiles.trackId, trackId))).map((row) => row.key).sort();

    const first = await attach(1);
    expect(await runEncodeJob({ storage, timeoutMs: 60_000, encodeFile: copy, jobs }, { trackId, generation: first })).toBe('ready');
    const oldKeys = await keysOf();
    const second = await attach(2);
    const refusing: StorageDeps = {
      ...storage,
      driver: {
        ...storage.driver,
        delete: () => Promise.reject(new Error('store unavailable')),
      },
    };
    expect(await runEncodeJob({ storage: refusing, timeoutMs: 60_000, encodeFile: copy, jobs }, { trackId, generation: second })).toBe('ready');
    for (const key of oldKeys) expect(await storage.driver.stat(key)).not.toBeNull();
    expect(sent.map((entry) => entry.name)).toEqual(oldKeys.map(() => FILE_CLEANUP_QUEUE));

    for (const entry of sent) await runFileCleanup(storage, entry.data as FileCleanupJob);
    for (const key of oldKeys) expect(await storage.driver.stat(key)).toBeNull();
    for (const key of await keysOf()) expect(await storage.driver.stat(key)).not.toBeNull();
  });
});
