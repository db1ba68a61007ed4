import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORAGE_MESSAGES, StorageError, UPLOAD_MESSAGES } from '@storefront/domain/storage.ts';
import { imageVariantUrl } from '@storefront/domain/storage-images.ts';
import { parseDownloadUrl } from '@storefront/domain/storage-location.ts';
import { contentImagePath, productImagePath } from '@storefront/domain/storage-paths.ts';
import type { UploadState } from '@storefront/domain/storage-upload.ts';
import { deleteObject, getDownloadURL, getMetadata, uploadBytes, uploadString } from '@storefront/sdk/storage/operations.ts';
import { createStorage, ref, type Clock, type Storage } from '@storefront/sdk/storage/storage.ts';
import { uploadBytesResumable, type UploadTask, type UploadTaskSnapshot } from '@storefront/sdk/storage/upload-task.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { makeTempDir, type TestDatabase } from '../../test/database.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import { storageObjects, storageUploadPending, storageUploadSessions } from '../db/schema/index.ts';
import { describeImage } from './storage.delivery.ts';
import { storageTestDriver } from './testing/driver-choice.ts';
import { signInForToken } from '../../test/sign-in.ts';
import { startTestS3Server, type TestS3Server } from './testing/s3-server.ts';
import { startFaultProxy, type FaultAction, type FaultProxy, type ProxiedRequest } from './testing/fault-proxy.ts';
import { bombPng, noisePng, sidewaysJpeg, solidImage, SVG_WITH_SCRIPT } from './testing/images.ts';

let shop: TestApp;
let database: TestDatabase;
let dataDir: ReturnType<typeof makeTempDir>;
let baseUrl: string;
let adminToken: string;
let fanToken: string;
const proxies: FaultProxy[] = [];
/** Set when this run stores objects in S3 (storage.s3-suite.test.ts). */
let s3: TestS3Server | undefined;

const signIn = (email: string) => signInForToken(baseUrl, email);

beforeAll(async () => {
  dataDir = makeTempDir('storage-test');
  if (storageTestDriver() === 's3') s3 = await startTestS3Server();
  shop = await startTestApp({
    config: { env: { DATA_DIR: dataDir.dir, ...s3?.env } },
    async seed({ db, config }) {
      const account = (email: string, username: string, role: 'user' | 'admin') =>
        createAccount(
          db,
          config,
          { email, password: 'correct horse', confirmPassword: 'correct horse', name: username, username, acceptedTerms: true },
          { emailVerified: true, role },
        );
      await account('boss@example.org', 'LabelBoss', 'admin');
      await account('fan@example.org', 'JustAFan', 'user');
    },
  });
  ({ database, baseUrl } = shop);
  adminToken = await signIn('boss@example.org');
  fanToken = await signIn('fan@example.org');
});

afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()));
  await shop?.close();
  dataDir?.remove();
  await s3?.close();
});

/** A clock whose waits return at once and are written down. */
function virtualClock() {
  let now = 0;
  const sleeps: number[] = [];
  const clock: Clock = {
    now: () => now,
    sleep: async (ms, signal) => {
      if (signal?.aborted) throw signal.reason;
      sleeps.push(ms);
      now += ms;
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
  return { clock, sleeps };
}

function storageFor(token: string | null, options: { via?: string; clock?: Clock } = {}): Storage {
  return createStorage({ baseUrl: options.via ?? baseUrl, getAuthToken: () => token, clock: options.clock ?? virtualClock().clock, random: () => 0 });
}

async function proxy(plan: (request: ProxiedRequest) => FaultAction | undefined): Promise<FaultProxy> {
  const started = await startFaultProxy(baseUrl, plan);
  proxies.push(started);
  return started;
}

async function failure(promise: PromiseLike<unknown>): Promise<StorageError> {
  const error = await Promise.resolve(promise).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(StorageError);
  return error as StorageError;
}

/** Polls until `check` passes or the deadline is reached (no fixed sleeps). */
async function eventually(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function recordStates(task: UploadTask): { states: UploadState[]; percents: number[] } {
  const states: UploadState[] = [];
  const percents: number[] = [];
  task.on('state_changed', {
    next: (snapshot: UploadTaskSnapshot) => {
      if (states.at(-1) !== snapshot.state) states.push(snapshot.state);
      percents.push(snapshot.percent);
    },
    error: () => states.push(task.snapshot.state),
    complete: () => undefined,
  });
  return { states, percents };
}

const rawPixels = (image: Buffer) => sharp(image).raw().toBuffer();
const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('base64');
let pathCounter = 0;
const productPath = (name: string) => productImagePath(Date.now(), (pathCounter += 1), name);

async function sessionRow(objectPath: string) {
  const [row] = await database.db.select().from(storageUploadSessions).where(eq(storageUploadSessions.path, objectPath));
  return row;
}

describe('multipart upload, metadata and download', () => {
  it('stores an admin upload, describes it and serves it by token', async () => {
    const storage = storageFor(adminToken);
    const png = await solidImage(120, 80, 'png');
    const target = ref(storage, productPath('cover.png'));
    const { metadata } = await uploadBytes(target, png, { contentType: 'application/octet-stream', customMetadata: { artist: 'Street Flavor' } });
    expect(metadata).toMatchObject({
      bucket: 'storefront',
      fullPath: target.fullPath,
      name: target.name,
      contentType: 'image/png', // from the bytes, not the declared type
      customMetadata: { artist: 'Street Flavor' },
      cacheControl: null,
      contentDisposition: null,
      contentEncoding: null,
      contentLanguage: null,
    });
    expect(metadata.downloadTokens).toHaveLength(1);
    expect(Date.parse(metadata.timeCreated)).not.toBeNaN();

    // Anyone may read product image metadata.
    const anonymous = storageFor(null);
    const read = await getMetadata(ref(anonymous, target.fullPath));
    expect({ ...read, ref: undefined }).toEqual({ ...metadata, ref: undefined });

    const url = await getDownloadURL(ref(anonymous, target.fullPath));
    expect(url).toBe(`${baseUrl}/v0/b/storefront/o/${encodeURIComponent(target.fullPath)}?alt=media&token=${metadata.downloadTokens[0]}`);
    const download = await fetch(url);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('image/png');
    const bytes = Buffer.from(await download.arrayBuffer());
    expect(bytes.length).toBe(metadata.size);
    expect(md5(bytes)).toBe(metadata.md5Hash);
    expect(await rawPixels(bytes)).toEqual(await rawPixels(png));

    // Without a token the read rule decides (products/ is public, decision 041); a wrong token is refused.
    const bare = url.replace(/&token=.*$/, '');
    expect((await fetch(bare)).status).toBe(200);
    expect((await fetch(`${bare}&token=not-the-token`)).status).toBe(403);
    const missing = await fetch(`${baseUrl}/v0/b/storefront/o/products%2Fnope.png?alt=media&token=x`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: { code: 404, status: 'object-not-found', message: "Object 'products/nope.png' does not exist.", requestId: expect.any(String) },
    });
  });

  it('gives the spec errors for a missing object and a wrong bucket', async () => {
    const storage = storageFor(adminToken);
    const error = await failure(getMetadata(ref(storage, 'products/missing.png')));
    expect(error).toMatchObject({ code: 'object-not-found', status: 404, message: "Object 'products/missing.png' does not exist." });
    const bucket = await failure(getMetadata(ref(storage, 'gs://elsewhere/products/a.png')));
    expect(bucket).toMatchObject({ code: 'bucket-not-found', message: "Bucket 'elsewhere' does not exist." });
  });

  it('uploads a data URL string with its media type', async () => {
    const png = await solidImage(16, 16, 'png');
    const target = ref(storageFor(adminToken), productPath('dot.png'));
    const { metadata } = await uploadString(target, `data:image/png;base64,${png.toString('base64')}`, 'data_url');
    expect(metadata).toMatchObject({ contentType: 'image/png', fullPath: target.fullPath });
  });

  it('turns a sideways photo upright and strips its EXIF data', async () => {
    const target = ref(storageFor(adminToken), productPath('photo.jpg'));
    await uploadBytes(target, await sidewaysJpeg(300, 200));
    const bytes = Buffer.from(await (await fetch(await getDownloadURL(target))).arrayBuffer());
    const stored = await sharp(bytes).metadata();
    expect([stored.width, stored.height, stored.orientation, stored.exif]).toEqual([200, 300, undefined, undefined]);
  });

  it('refuses download and upload at the root', async () => {
    const root = ref(storageFor(adminToken));
    await expect(getDownloadURL(root)).rejects.toMatchObject({ code: 'invalid-root-operation' });
    await expect(uploadBytes(root, Buffer.alloc(1))).rejects.toMatchObject({
      code: 'invalid-root-operation',
      message: STORAGE_MESSAGES.invalidRootOperation('uploadBytes'),
    });
    expect(() => uploadBytesResumable(root, Buffer.alloc(1))).toThrow(expect.objectContaining({ code: 'invalid-root-operation' }));
  });

  it('deletes an object with its variants', async () => {
    const storage = storageFor(adminToken);
    const target = ref(storage, productPath('gone.png'));
    const { metadata } = await uploadBytes(target, await solidImage(400, 400));
    const variant = `${baseUrl}${imageVariantUrl(target.location, metadata.downloadTokens[0]!, 320)}`;
    expect((await fetch(variant)).status).toBe(200);
    await expect(deleteObject(ref(storageFor(fanToken), target.fullPath))).rejects.toMatchObject({ code: 'unauthorized' });
    await deleteObject(target);
    await expect(getMetadata(target)).rejects.toMatchObject({ code: 'object-not-found' });
    expect((await fetch(variant)).status).toBe(404);
  });
});

describe('content page images (issue 18, decision 033)', () => {
  it('admins upload under content/ (checked, with variants); anyone reads them; shoppers and visitors may not write there', async () => {
    const path = contentImagePath(Date.UTC(2026, 10, 23), 'new cover.png');
    expect(path).toMatch(/^content\/\d+_new-cover\.png$/);
    const target = ref(storageFor(adminToken), path);
    const { metadata } = await uploadBytes(target, await solidImage(800, 800));
    const url = await getDownloadURL(target);
    const anonymousRead = await fetch(url);
    expect([anonymousRead.status, anonymousRead.headers.get('content-type')]).toEqual([200, 'image/png']);
    expect((await fetch(`${baseUrl}${imageVariantUrl(target.location, metadata.downloadTokens[0]!, 320)}`)).status).toBe(200);
    // An SVG with a script is not an image the shop stores, in content/ as in products/.
    expect(await failure(uploadBytes(ref(storageFor(adminToken), contentImagePath(1, 'x.png')), SVG_WITH_SCRIPT, { contentType: 'image/png' }))).toBeInstanceOf(StorageError);

    expect(await failure(uploadBytes(ref(storageFor(fanToken), contentImagePath(2, 'fan.png')), await solidImage(20, 20)))).toMatchObject({ code: 'unauthorized', status: 403 });
    expect(await failure(uploadBytes(ref(storageFor(null), contentImagePath(3, 'anon.png')), await solidImage(20, 20)))).toMatchObject({ code: 'unauthenticated', status: 401 });
    await expect(deleteObject(ref(storageFor(fanToken), path))).rejects.toMatchObject({ code: 'unauthorized' });
    // Other folders stay admins' only to read.
    expect(await failure(getMetadata(ref(storageFor(fanToken), 'private/x.png')))).toMatchObject({ code: 'unauthorized' });
    await deleteObject(target);
  });
});

describe('who may write (through the API)', () => {
  it('answers a signed-in non-admin with 403 unauthorized and an anonymous caller with 401', async () => {
    const png = await solidImage(20, 20);
    const fan = await failure(uploadBytes(ref(storageFor(fanToken), 'products/fan.png'), png));
    expect(fan).toMatchObject({ code: 'unauthorized', status: 403, message: "User does not have permission to access 'products/fan.png'." });
    const anonymous = await failure(uploadBytes(ref(storageFor(null), 'products/anon.png'), png));
    expect(anonymous).toMatchObject({ code: 'unauthenticated', status: 401, message: STORAGE_MESSAGES.unauthenticated });

    // Resumable starts are refused the same way, before any byte is stored.
    const fanTask = await failure(uploadBytesResumable(ref(storageFor(fanToken), 'products/big.png'), Buffer.alloc(300_000)));
    expect(fanTask.code).toBe('unauthorized');
    const raw = await fetch(`${baseUrl}/v0/b/storefront/o?name=products%2Fx.png&uploadType=resumable`, {
      method: 'POST',
      headers: { 'x-goog-upload-command': 'start', 'x-goog-upload-header-content-length': '300000' },
    });
    expect(raw.status).toBe(401);
    expect(await database.db.select().from(storageObjects).where(eq(storageObjects.path, 'products/fan.png'))).toHaveLength(0);
  });

  it('lets only admins read outside products/', async () => {
    const anonymous = await failure(getMetadata(ref(storageFor(null), 'secret/x.png')));
    expect(anonymous).toMatchObject({ code: 'unauthenticated', status: 401 });
    const fan = await failure(getMetadata(ref(storageFor(fanToken), 'secret/x.png')));
    expect(fan).toMatchObject({ code: 'unauthorized', status: 403 });
    const admin = await failure(getMetadata(ref(storageFor(adminToken), 'secret/x.png')));
    expect(admin).toMatchObject({ code: 'object-not-found', status: 404 });
  });

  it('lets admins write under products/ only', async () => {
    const error = await failure(uploadBytes(ref(storageFor(adminToken), 'secret/avatar.png'), await solidImage(20, 20)));
    expect(error).toMatchObject({ code: 'unauthorized', status: 403, message: "User does not have permission to access 'secret/avatar.png'." });
  });

  it.each([
    ['products%2F..%2Fsecret.png', '. or .. segments'],
    ['..%2Fproducts%2Fx.png', '. or .. segments'],
    ['%2Fetc%2Fpasswd', 'relative'],
    ['products%5C..%5Cx.png', 'backslashes'],
    ['products%2Fx%00.png', 'control characters'],
    ['products%2F%2Fx.png', 'empty segments'],
  ])('refuses the path %s', async (name, problem) => {
    const response = await fetch(`${baseUrl}/v0/b/storefront/o?name=${name}&uploadType=multipart`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'multipart/related; boundary=x' },
      body: '--x--',
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { status: string; message: string } };
    expect(body.error.status).toBe('invalid-argument');
    expect(body.error.message).toContain(problem);
  });

  it('refuses a traversal path given to the sdk', async () => {
    const error = await failure(uploadBytes(ref(storageFor(adminToken), 'products/../secret.png'), await solidImage(10, 10)));
    expect(error).toMatchObject({ code: 'invalid-argument', status: 400 });
    expect(error.message).toContain('. or .. segments');
  });
});

describe('images only, checked by their bytes', () => {
  const admin = () => storageFor(adminToken);

  it('refuses a non-image with an image name and type', async () => {
    const target = ref(admin(), productPath('cover.png'));
    const error = await failure(uploadBytes(target, Buffer.from('MZ this is an executable, honest'), { contentType: 'image/png' }));
    expect(error).toMatchObject({ code: 'invalid-argument', status: 403, message: UPLOAD_MESSAGES.notAnImage });
    await expect(getMetadata(target)).rejects.toMatchObject({ code: 'object-not-found' });
  });

  it('refuses a large non-image sent resumably, and closes its session', async () => {
    const target = ref(admin(), productPath('huge.jpg'));
    const bytes = Buffer.alloc(700_000, 'not a jpeg ');
    const error = await failure(uploadBytesResumable(target, new Blob([bytes], { type: 'image/jpeg' })));
    expect(error).toMatchObject({ code: 'invalid-argument', message: UPLOAD_MESSAGES.notAnImage });
    expect((await sessionRow(target.fullPath))?.status).toBe('failed');
  });

  it('refuses an SVG carrying a script', async () => {
    const error = await failure(uploadBytes(ref(admin(), productPath('logo.png')), SVG_WITH_SCRIPT, { contentType: 'image/png' }));
    expect(error).toMatchObject({ code: 'invalid-argument', status: 403, message: UPLOAD_MESSAGES.svg });
  });

  it('refuses a decompression bomb (20000 x 20000 pixels in 50 KB)', async () => {
    const error = await failure(uploadBytes(ref(admin(), productPath('bomb.png')), bombPng()));
    expect(error).toMatchObject({ code: 'invalid-argument', status: 400, message: UPLOAD_MESSAGES.tooManyPixels(400_000_000) });
  });

  it('refuses an upload above the size limit before reading it', async () => {
    const response = await fetch(`${baseUrl}/v0/b/storefront/o?name=products%2Fbig.png&uploadType=resumable`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${adminToken}`,
        'x-goog-upload-command': 'start',
        'x-goog-upload-header-content-length': String(20 * 1024 * 1024 + 1),
      },
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: { code: 413, status: 'invalid-argument', message: 'The file is too large: at most 20 MB.', requestId: expect.any(String) } });
  });

  it('refuses a checksum that does not match the bytes', async () => {
    const png = await solidImage(30, 30);
    const target = ref(admin(), productPath('sum.png'));
    const error = await failure(uploadBytes(target, png, { md5Hash: md5(Buffer.from('other bytes')) }));
    expect(error).toMatchObject({ code: 'invalid-checksum', status: 400 });
    await uploadBytes(target, png, { md5Hash: md5(png) });
  });
});

describe('resumable uploads', () => {
  it('resumes from the server offset after the connection drops mid-chunk', async () => {
    const { png, raw } = await noisePng(600, 600);
    expect(png.length).toBeGreaterThan(1_000_000);
    // The second chunk (512 KiB at offset 262144) is cut after 100 000 bytes reached the server.
    let dropped = false;
    const bad = await proxy((request) => {
      if (dropped || request.command !== 'upload' || request.offset !== 262_144) return undefined;
      dropped = true;
      return { kind: 'drop-after', bytes: 100_000 };
    });
    const plan = bad.requests;
    const { clock, sleeps } = virtualClock();
    const task = uploadBytesResumable(ref(storageFor(adminToken, { via: bad.url, clock }), productPath('noise.png')), png);
    const { states, percents } = recordStates(task);
    const snapshot = await task;
    expect(plan.some((request) => request.outcome === 'dropped')).toBe(true);

    const uploads = plan.filter((request) => request.command !== undefined);
    expect(uploads.map((request) => [request.command, request.offset ?? null, request.outcome])).toEqual([
      ['start', null, 200],
      ['upload', 0, 200],
      ['upload', 262_144, 'dropped'],
      ['query', null, 200],
      // Resumed from what the server holds, in a 256 KiB chunk again, then doubling.
      ['upload', 262_144, 200],
      ['upload', 524_288, 200],
      ['upload, finalize', 1_048_576, 200],
    ]);
    expect(sleeps).toEqual([2_000]);
    expect(states).toEqual(['running', 'success']);
    expect(percents.at(-1)).toBe(100);
    expect(snapshot).toMatchObject({ state: 'success', bytesTransferred: png.length, totalBytes: png.length, percent: 100 });
    expect(snapshot.metadata?.contentType).toBe('image/png');

    const stored = Buffer.from(await (await fetch(await getDownloadURL(snapshot.ref))).arrayBuffer());
    expect(await rawPixels(stored)).toEqual(raw);
    const session = await sessionRow(snapshot.ref.fullPath);
    expect(session).toMatchObject({ status: 'final', received: png.length, totalSize: png.length });
    // The staged bytes are gone (the staging file; or the S3 parts, assembled object and buffer).
    expect(fs.existsSync(path.join(dataDir.dir, 'storage', 'uploads', session!.id))).toBe(false);
    if (s3) {
      expect(await database.db.select().from(storageUploadPending)).toEqual([]);
      expect(s3.openMultipartUploads()).toEqual([]);
      expect((await s3.keys()).filter((key) => key.includes('/uploads/'))).toEqual([]);
    }
  });

  it('keeps its session across requests and says where to continue from', async () => {
    const { png } = await noisePng(400, 400);
    const name = encodeURIComponent(productPath('raw.png'));
    const auth = { authorization: `Bearer ${adminToken}` };
    const start = await fetch(`${baseUrl}/v0/b/storefront/o?name=${name}&uploadType=resumable`, {
      method: 'POST',
      headers: { ...auth, 'x-goog-upload-command': 'start', 'x-goog-upload-header-content-length': String(png.length), 'content-type': 'application/json' },
      body: JSON.stringify({ customMetadata: { via: 'raw' } }),
    });
    expect(start.headers.get('x-goog-upload-status')).toBe('active');
    // Absolute (from PUBLIC_URL), as clients outside a browser need it.
    const uploadUrl = start.headers.get('x-goog-upload-url')!;
    expect(uploadUrl.startsWith(`${baseUrl}/v0/b/storefront/o?name=`)).toBe(true);
    expect(uploadUrl).toMatch(/&uploadType=resumable&upload_id=[A-Za-z0-9_-]{32}$/);
    const chunk = (offset: number, end: number, command = 'upload') =>
      fetch(uploadUrl, { method: 'POST', headers: { ...auth, 'x-goog-upload-command': command, 'x-goog-upload-offset': String(offset) }, body: png.subarray(offset, end) });

    expect((await chunk(0, 262_144)).headers.get('x-goog-upload-size-received')).toBe('262144');
    const again = await chunk(0, 262_144);
    expect(again.status).toBe(409);
    expect(again.headers.get('x-goog-upload-size-received')).toBe('262144');
    const early = await chunk(262_144, 300_000, 'upload, finalize');
    expect(early.status).toBe(400);
    expect(((await early.json()) as { error: { message: string } }).error.message).toBe(`The upload is not complete: 300000 of ${png.length} bytes received.`);
    const query = await fetch(uploadUrl, { method: 'POST', headers: { ...auth, 'x-goog-upload-command': 'query' } });
    expect(query.headers.get('x-goog-upload-size-received')).toBe('300000');
    // Only the uploader may continue it.
    const stranger = await fetch(uploadUrl, { method: 'POST', headers: { authorization: `Bearer ${fanToken}`, 'x-goog-upload-command': 'query' } });
    expect(stranger.status).toBe(403);
    const last = await chunk(300_000, png.length, 'upload, finalize');
    expect(last.headers.get('x-goog-upload-status')).toBe('final');
    expect(await last.json()).toMatchObject({ contentType: 'image/png', name: expect.any(String), metadata: { via: 'raw' } });
  });

  it('retries a 503 with backoff', async () => {
    const { png } = await noisePng(400, 400);
    let failed = false;
    const flaky = await proxy((request) => {
      if (request.command === 'upload' && !failed) {
        failed = true;
        return { kind: 'respond', status: 503 };
      }
      return undefined;
    });
    const { clock, sleeps } = virtualClock();
    const snapshot = await uploadBytesResumable(ref(storageFor(adminToken, { via: flaky.url, clock }), productPath('flaky.png')), png);
    expect(snapshot.state).toBe('success');
    expect(flaky.requests.filter((r) => r.command).map((r) => [r.command, r.offset ?? null, r.outcome])).toEqual([
      ['start', null, 200],
      ['upload', 0, 503],
      ['query', null, 200],
      ['upload', 0, 200],
      ['upload, finalize', 262_144, 200],
    ]);
    expect(sleeps).toEqual([2_000]);
  });

  it('retries 408 and 429 and small uploads too', async () => {
    const statuses = [408, 429];
    const flaky = await proxy((request) => (request.method === 'POST' && statuses.length ? { kind: 'respond', status: statuses.shift()! } : undefined));
    const { clock, sleeps } = virtualClock();
    const snapshot = await uploadBytesResumable(ref(storageFor(adminToken, { via: flaky.url, clock }), productPath('small.png')), await solidImage(50, 50));
    expect(snapshot.state).toBe('success');
    expect(flaky.requests.map((r) => r.outcome)).toEqual([408, 429, 200]);
    expect(sleeps).toEqual([2_000, 4_000]);
  });

  it('gives up with retry-limit-exceeded once the operation has retried for 120 s', async () => {
    const down = await proxy((request) => (request.command?.startsWith('upload') ? { kind: 'respond', status: 503 } : undefined));
    const { clock, sleeps } = virtualClock();
    const task = uploadBytesResumable(ref(storageFor(adminToken, { via: down.url, clock }), productPath('down.png')), (await noisePng(400, 400)).png);
    const error = await failure(task);
    expect(error).toMatchObject({ code: 'retry-limit-exceeded', message: 'Max retry time for operation exceeded, please try again.' });
    expect(task.snapshot.state).toBe('error');
    expect(sleeps).toEqual([2_000, 4_000, 8_000, 16_000, 32_000, 58_000]);
  });

  it('does not retry a refusal', async () => {
    const { clock, sleeps } = virtualClock();
    const error = await failure(uploadBytesResumable(ref(storageFor(fanToken, { clock }), productPath('no.png')), (await noisePng(400, 400)).png));
    expect(error.code).toBe('unauthorized');
    expect(sleeps).toEqual([]);
  });

  it('cancels an upload in flight', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow = await proxy((request) => (request.command === 'upload' && request.offset === 262_144 ? { kind: 'hold', until: held } : undefined));
    const { png } = await noisePng(600, 600);
    const task = uploadBytesResumable(ref(storageFor(adminToken, { via: slow.url }), productPath('cancel.png')), png);
    const { states } = recordStates(task);
    await eventually(() => slow.requests.some((r) => r.action === 'hold'), 'the second chunk to be in flight');
    expect(task.snapshot.bytesTransferred).toBe(262_144);
    expect(task.cancel()).toBe(true);
    expect(task.snapshot.state).toBe('canceling');
    expect(task.cancel()).toBe(false);
    expect(task.pause()).toBe(false);
    const error = await failure(task);
    release();
    expect(error).toMatchObject({ code: 'canceled', message: 'User canceled the upload/download.' });
    expect(states).toEqual(['running', 'canceling', 'canceled']);
    expect(task.resume()).toBe(false);
    // The server drops the session and its bytes.
    await eventually(async () => (await sessionRow(task.ref.fullPath))?.status === 'canceled', 'the session to be canceled');
    await expect(getMetadata(task.ref)).rejects.toMatchObject({ code: 'object-not-found' });
  });

  it('pauses and resumes', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow = await proxy((request) => (request.command === 'upload' && request.offset === 262_144 && request.index < 4 ? { kind: 'hold', until: held } : undefined));
    const { png, raw } = await noisePng(600, 600);
    const task = uploadBytesResumable(ref(storageFor(adminToken, { via: slow.url }), productPath('pause.png')), png);
    const { states } = recordStates(task);
    await eventually(() => slow.requests.some((r) => r.action === 'hold'), 'the second chunk to be in flight');
    expect(task.resume()).toBe(false);
    expect(task.pause()).toBe(true);
    await eventually(() => task.snapshot.state === 'paused', 'the task to pause');
    release();
    expect(task.pause()).toBe(false);
    expect(task.cancel()).toBe(false);
    expect(task.resume()).toBe(true);
    const snapshot = await task;
    expect(states).toEqual(['running', 'pausing', 'paused', 'running', 'success']);
    const stored = Buffer.from(await (await fetch(await getDownloadURL(snapshot.ref))).arrayBuffer());
    expect(await rawPixels(stored)).toEqual(raw);
  });
});

describe('image delivery', () => {
  it('serves WebP variants at 320, 640 and 1280 px with immutable caching', async () => {
    const target = ref(storageFor(adminToken), productPath('wide.jpg'));
    const { metadata } = await uploadBytes(target, await solidImage(1500, 1000, 'jpeg'));
    // What a product stores: the same-origin download URL (the web app's sdk has base URL '').
    const url = (await getDownloadURL(ref(storageFor(null), target.fullPath))).replace(baseUrl, '');
    expect(url.startsWith('/v0/b/storefront/o/')).toBe(true);
    const image = await describeImage(database.db, url);
    expect(image).toMatchObject({ width: 640, height: 427 });
    const candidates = image.srcset.split(', ').map((entry) => entry.split(' '));
    expect(candidates.map(([, descriptor]) => descriptor)).toEqual(['320w', '640w', '1280w']);
    for (const [variantUrl, descriptor] of candidates) {
      const response = await fetch(`${baseUrl}${variantUrl}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/webp');
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      const variant = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
      expect([variant.format, `${variant.width}w`]).toEqual(['webp', descriptor]);
    }
    const src = await fetch(`${baseUrl}${image.src}`);
    expect(src.status).toBe(200);
    expect((await fetch(`${baseUrl}${image.src}`, { headers: { 'if-none-match': src.headers.get('etag')! } })).status).toBe(304);

    // New content at the same path gets a new token, so new variant URLs; the old ones stop working.
    await uploadBytes(target, await solidImage(800, 400, 'png'));
    const fresh = await describeImage(database.db, await getDownloadURL(target));
    expect(fresh.src).not.toBe(image.src);
    expect(fresh).toMatchObject({ width: 640, height: 320 });
    expect((await fetch(`${baseUrl}${image.src}`)).status).toBe(404);
    expect((await fetch(`${baseUrl}${fresh.src}`)).status).toBe(200);
    expect(parseDownloadUrl(url)?.token).toBe(metadata.downloadTokens[0]);
  });

  it('never upscales a small image and refuses other widths', async () => {
    const target = ref(storageFor(adminToken), productPath('tiny.png'));
    const { metadata } = await uploadBytes(target, await solidImage(500, 250));
    const token = metadata.downloadTokens[0]!;
    const big = await fetch(`${baseUrl}${imageVariantUrl(target.location, token, 1280)}`);
    expect((await sharp(Buffer.from(await big.arrayBuffer())).metadata()).width).toBe(500);
    const image = await describeImage(database.db, await getDownloadURL(target));
    expect(image.srcset.split(', ').map((entry) => entry.split(' ')[1])).toEqual(['320w', '500w']);
    const odd = await fetch(`${baseUrl}/img/storefront/${encodeURIComponent(target.fullPath)}?w=999&token=${token}`);
    expect(odd.status).toBe(400);
  });

  it('passes other image URLs through', async () => {
    expect(await describeImage(database.db, '/content/covers/a.jpg')).toMatchObject({ src: '/content/covers/a.jpg', srcset: '' });
  });
});

describe('where the bytes live', () => {
  it(`keeps objects and variants with the ${storageTestDriver()} driver only`, async () => {
    const target = ref(storageFor(adminToken), productPath('where.png'));
    await uploadBytes(target, await solidImage(700, 300));
    const [row] = await database.db.select().from(storageObjects).where(eq(storageObjects.path, target.fullPath));
    const onDisk = (key: string) => fs.existsSync(path.join(dataDir.dir, 'storage', ...key.split('/')));
    const keys = [`objects/${row!.blobKey}`, ...row!.variantWidths.map((width) => `variants/${row!.blobKey}/${width}.webp`)];
    if (s3) {
      const stored = await s3.keys();
      for (const key of keys) {
        expect(stored).toContain(`shop/${key}`);
        expect(onDisk(key)).toBe(false);
      }
    } else {
      for (const key of keys) expect(onDisk(key)).toBe(true);
    }
  });
});
