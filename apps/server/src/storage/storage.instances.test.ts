import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { eq, sql } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { productImagePath } from '@storefront/domain/storage-paths.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { makeTempDir, testConfig, type TestDatabase } from '../../test/database.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import type { Config } from '../config.ts';
import { storageObjects, storageUploadPending, storageUploadSessions } from '../db/schema/index.ts';
import { createStorageDeps, type StorageDeps } from './storage.service.ts';
import { cancelSession, cleanUpUploadSessions, findSession, receiveChunk, startSession } from './storage.sessions.ts';
import { noisePng, solidImage } from './testing/images.ts';
import { startTestS3Server, type TestS3Server } from './testing/s3-server.ts';
import { signInForToken } from '../../test/sign-in.ts';

/**
 * Object storage for more than one instance (issue 13, point 2; decision 022): two app
 * instances on one database, each with its own DATA_DIR, storing objects in S3 (s3rver on
 * 127.0.0.1). An upload started on one is continued and finished on the other; abandoned
 * sessions are expired by the cleanup job and their bytes reclaimed (issue 19, point 3).
 */
let database: TestDatabase;
let s3: TestS3Server;
const dirs: ReturnType<typeof makeTempDir>[] = [];
const apps: TestApp[] = [];
let bases: string[];
let configs: Config[];
let adminToken: string;
let adminId: string;
const MiB = 1024 * 1024;

beforeAll(async () => {
  s3 = await startTestS3Server({ prefix: 'two-instances' });
  const dataDir = (index: number) => {
    const dir = makeTempDir(`storage-instance-${index}`);
    dirs.push(dir);
    return dir.dir;
  };
  const first = await startTestApp({
    config: { env: { DATA_DIR: dataDir(0), ...s3.env } },
    async seed({ db, config }) {
      const created = await createAccount(
        db,
        config,
        { email: 'boss@example.org', password: 'correct horse', confirmPassword: 'correct horse', name: 'LabelBoss', username: 'LabelBoss', acceptedTerms: true },
        { emailVerified: true, role: 'admin' },
      );
      adminId = created.userId;
    },
  });
  database = first.database;
  // The second instance has no PUBLIC_URL: its upload URLs come from the request's origin.
  const second = await startTestApp({ database, config: { env: { PUBLIC_URL: undefined, DATA_DIR: dataDir(1), ...s3.env } } });
  apps.push(first, second);
  bases = apps.map((shop) => shop.baseUrl);
  configs = apps.map((shop) => shop.config);
  adminToken = await signInForToken(bases[1]!, 'boss@example.org');
}, 120_000);

afterAll(async () => {
  // The first owns the database: it closes last.
  for (const shop of [...apps].reverse()) await shop.close();
  await s3?.close();
  for (const dir of dirs) dir.remove();
});

const auth = () => ({ authorization: `Bearer ${adminToken}` });
let counter = 0;
const productPath = (name: string) => productImagePath(Date.now(), (counter += 1), name);

async function startUpload(base: string, objectPath: string, size: number): Promise<string> {
  const response = await fetch(`${base}/v0/b/storefront/o?name=${encodeURIComponent(objectPath)}&uploadType=resumable`, {
    method: 'POST',
    headers: { ...auth(), 'x-goog-upload-command': 'start', 'x-goog-upload-header-content-length': String(size), 'content-type': 'application/json' },
    body: JSON.stringify({ contentType: 'image/png' }),
  });
  expect(response.status).toBe(200);
  return response.headers.get('x-goog-upload-url')!;
}

/** The session URL's path and query, sent to whichever instance `base` is. */
const on = (base: string, uploadUrl: string) => {
  const url = new URL(uploadUrl);
  return `${base}${url.pathname}${url.search}`;
};

function sendChunk(url: string, bytes: Buffer, offset: number, command = 'upload') {
  return fetch(url, { method: 'POST', headers: { ...auth(), 'x-goog-upload-command': command, 'x-goog-upload-offset': String(offset) }, body: bytes });
}

const sessionIdOf = (uploadUrl: string) => new URL(uploadUrl).searchParams.get('upload_id')!;

async function sessionRow(id: string) {
  const [row] = await database.db.select().from(storageUploadSessions).where(eq(storageUploadSessions.id, id));
  return row!;
}

async function pendingBytes(id: string): Promise<number> {
  const [row] = await database.db.select().from(storageUploadPending).where(eq(storageUploadPending.sessionId, id));
  return row?.bytes.length ?? 0;
}

describe('one upload across two instances with S3 storage', () => {
  it('starts on one instance, takes chunks on both, finishes on the other, and both serve the image', async () => {
    const { png, raw } = await noisePng(1500, 1500);
    expect(png.length).toBeGreaterThan(6 * MiB);
    const objectPath = productPath('across.png');
    const uploadUrl = await startUpload(bases[0]!, objectPath, png.length);
    // Absolute, from the first instance's PUBLIC_URL.
    expect(uploadUrl.startsWith(`${bases[0]}/v0/b/storefront/o?name=`)).toBe(true);
    const id = sessionIdOf(uploadUrl);
    // A session larger than one part has its multipart upload from the start.
    expect((await sessionRow(id)).multipartUploadId).toBeTruthy();

    const chunk = 3 * MiB;
    // 0-3 MiB on B: below S3's 5 MiB smallest part, buffered in Postgres.
    let answer = await sendChunk(on(bases[1]!, uploadUrl), png.subarray(0, chunk), 0);
    expect(answer.headers.get('x-goog-upload-size-received')).toBe(String(chunk));
    expect(await pendingBytes(id)).toBe(chunk);
    expect((await sessionRow(id)).parts).toEqual([]);
    // 3-6 MiB on A: 6 MiB buffered, sent as part 1.
    answer = await sendChunk(on(bases[0]!, uploadUrl), png.subarray(chunk, 2 * chunk), chunk);
    expect(answer.headers.get('x-goog-upload-size-received')).toBe(String(2 * chunk));
    expect(await pendingBytes(id)).toBe(0);
    expect((await sessionRow(id)).parts).toMatchObject([{ partNumber: 1, size: 2 * chunk }]);
    // A resent chunk (its answer was lost) is refused with the offset, on either instance.
    const resent = await sendChunk(on(bases[1]!, uploadUrl), png.subarray(chunk, 2 * chunk), chunk);
    expect(resent.status).toBe(409);
    expect(resent.headers.get('x-goog-upload-size-received')).toBe(String(2 * chunk));
    // The status query answers the same on both.
    for (const base of bases) {
      const query = await fetch(on(base, uploadUrl), { method: 'POST', headers: { ...auth(), 'x-goog-upload-command': 'query' } });
      expect(query.headers.get('x-goog-upload-size-received')).toBe(String(2 * chunk));
    }
    // The rest, finalized on B: the last part, assembled in S3.
    answer = await sendChunk(on(bases[1]!, uploadUrl), png.subarray(2 * chunk), 2 * chunk, 'upload, finalize');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-goog-upload-status')).toBe('final');
    const metadata = (await answer.json()) as { name: string; downloadTokens: string };
    expect(metadata.name).toBe(objectPath);

    const session = await sessionRow(id);
    expect(session).toMatchObject({ status: 'final', received: png.length, multipartUploadId: null });
    expect(session.reclaimedAt).not.toBeNull();
    expect(await pendingBytes(id)).toBe(0);
    expect(s3.openMultipartUploads()).toEqual([]);

    // The object and its variants are in S3, none on either instance's disk.
    const [object] = await database.db.select().from(storageObjects).where(eq(storageObjects.path, objectPath));
    const keys = await s3.keys();
    expect(keys).toContain(`two-instances/objects/${object!.blobKey}`);
    for (const width of object!.variantWidths) expect(keys).toContain(`two-instances/variants/${object!.blobKey}/${width}.webp`);
    expect(keys.filter((key) => key.includes('/uploads/'))).toEqual([]);
    for (const dir of dirs) expect(fs.existsSync(path.join(dir.dir, 'storage', 'objects'))).toBe(false);

    const token = object!.downloadTokens[0]!;
    for (const base of bases) {
      const download = await fetch(`${base}/v0/b/storefront/o/${encodeURIComponent(objectPath)}?alt=media&token=${token}`);
      expect(download.status).toBe(200);
      expect(
        await sharp(Buffer.from(await download.arrayBuffer()))
          .raw()
          .toBuffer(),
      ).toEqual(raw);
      const variant = await fetch(`${base}/img/storefront/${encodeURIComponent(objectPath)}?w=320&token=${token}`);
      expect(variant.status).toBe(200);
      expect((await sharp(Buffer.from(await variant.arrayBuffer())).metadata()).width).toBe(320);
    }
  }, 120_000);

  it('names the session by the request origin on an instance without PUBLIC_URL', async () => {
    const png = await solidImage(40, 40);
    const uploadUrl = await startUpload(bases[1]!, productPath('dev.png'), png.length);
    expect(uploadUrl.startsWith(`${bases[1]}/v0/b/storefront/o?name=`)).toBe(true);
    // Node's fetch takes it as it is (a relative URL fails with "Invalid URL").
    const done = await sendChunk(uploadUrl, png, 0, 'upload, finalize');
    expect(done.headers.get('x-goog-upload-status')).toBe('final');
  });
});

describe('abandoned and cancelled upload sessions', () => {
  const HOUR = 60 * 60 * 1000;

  it('expires an idle S3 session in the cleanup job: aborts its multipart upload and drops its buffer', async () => {
    // Never finished, so any bytes do.
    const png = randomBytes(7 * MiB);
    const big = await startUpload(bases[0]!, productPath('abandoned.png'), png.length);
    await sendChunk(on(bases[1]!, big), png.subarray(0, 6 * MiB), 0);
    const small = await startUpload(bases[1]!, productPath('small.png'), 400_000);
    await sendChunk(on(bases[0]!, small), png.subarray(0, 100_000), 0);
    const [bigId, smallId] = [sessionIdOf(big), sessionIdOf(small)];
    expect((await sessionRow(bigId)).parts).toHaveLength(1);
    expect(s3.openMultipartUploads()).toEqual([(await sessionRow(bigId)).multipartUploadId]);
    expect(await pendingBytes(smallId)).toBe(100_000);

    const deps: StorageDeps = createStorageDeps({ db: database.db, config: configs[0]! });
    // An hour later nothing is idle yet.
    expect(await cleanUpUploadSessions(deps, new Date(Date.now() + HOUR))).toMatchObject({ expired: 0 });
    expect((await sessionRow(bigId)).status).toBe('active');

    // A day later (UPLOAD_SESSION_IDLE_HOURS=24) both are expired and their bytes reclaimed.
    const result = await cleanUpUploadSessions(deps, new Date(Date.now() + 25 * HOUR));
    expect(result.expired).toBe(2);
    for (const id of [bigId, smallId]) {
      const row = await sessionRow(id);
      expect(row).toMatchObject({ status: 'expired', multipartUploadId: null, parts: [] });
      expect(row.reclaimedAt).not.toBeNull();
      expect(await pendingBytes(id)).toBe(0);
    }
    expect(s3.openMultipartUploads()).toEqual([]);
    // The client hears that the session is over; a chunk is refused.
    const query = await fetch(on(bases[1]!, big), { method: 'POST', headers: { ...auth(), 'x-goog-upload-command': 'query' } });
    expect(query.headers.get('x-goog-upload-status')).toBe('expired');
    expect((await sendChunk(on(bases[0]!, big), png.subarray(6 * MiB, 7 * MiB), 6 * MiB)).status).toBe(400);

    // After the session's week the rows go too.
    const later = await cleanUpUploadSessions(deps, new Date(Date.now() + 8 * 24 * HOUR));
    expect(later.deleted).toBeGreaterThanOrEqual(2);
    const left = await database.db
      .select()
      .from(storageUploadSessions)
      .where(sql`${storageUploadSessions.id} in (${bigId}, ${smallId})`);
    expect(left).toEqual([]);
  }, 60_000);

  it('reclaims a cancelled S3 session at once', async () => {
    const png = randomBytes(7 * MiB);
    const url = await startUpload(bases[1]!, productPath('cancelled.png'), png.length);
    await sendChunk(on(bases[0]!, url), png.subarray(0, 5 * MiB + 10), 0);
    expect(s3.openMultipartUploads()).toHaveLength(1);
    const cancel = await fetch(on(bases[0]!, url), { method: 'POST', headers: { ...auth(), 'x-goog-upload-command': 'cancel' } });
    expect(cancel.headers.get('x-goog-upload-status')).toBe('cancelled');
    expect(s3.openMultipartUploads()).toEqual([]);
    expect((await sessionRow(sessionIdOf(url))).reclaimedAt).not.toBeNull();
  });

  it('expires an idle session on the local disk and deletes its staging file', async () => {
    const dir = makeTempDir('storage-local-expiry');
    dirs.push(dir);
    const config = testConfig({ env: { DATA_DIR: dir.dir } });
    const deps = createStorageDeps({ db: database.db, config });
    expect(deps.driver.kind).toBe('local');
    const input = { bucket: 'storefront', path: productPath('local.png'), totalSize: 300_000, declaredContentType: 'image/png', metadata: {}, createdBy: adminId };
    const idle = await startSession(deps, input);
    await receiveChunk(deps, idle, { offset: 0, body: Readable.from([Buffer.alloc(200_000, 1)]), declaredLength: 200_000, finalize: false });
    const staging = path.join(dir.dir, 'storage', 'uploads', idle.id);
    expect(fs.statSync(staging).size).toBe(200_000);
    const cancelled = await startSession(deps, input);
    await cancelSession(deps, await findSession(database.db, cancelled.id));
    expect(fs.existsSync(path.join(dir.dir, 'storage', 'uploads', cancelled.id))).toBe(false);

    await cleanUpUploadSessions(deps, new Date(Date.now() + 25 * 60 * 60 * 1000));
    expect(fs.existsSync(staging)).toBe(false);
    expect((await sessionRow(idle.id)).status).toBe('expired');
  });

  it('runs the cleanup as a scheduled job, once per tick across instances', async () => {
    const { rows } = await database.pool.query<{ name: string; cron: string }>(`SELECT name, cron FROM pgboss.schedule WHERE name = 'storage-cleanup'`);
    expect(rows).toEqual([{ name: 'storage-cleanup', cron: '*/10 * * * *' }]);
  });
});
