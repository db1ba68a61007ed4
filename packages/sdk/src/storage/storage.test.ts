import { describe, expect, it } from 'vitest';
import { STORAGE_MESSAGES, StorageError } from '@storefront/domain/storage.ts';
import type { UploadState } from '@storefront/domain/storage-upload.ts';
import { fakeStorageServer, virtualClock, type FakeFault, type FakeRequest } from './fake-server.ts';
import { getDownloadURL, getMetadata, uploadBytes, uploadString } from './operations.ts';
import { createStorage, ref, type StorageOptions } from './storage.ts';
import { errorFromResponse } from './transport.ts';
import { uploadBytesResumable, type UploadTask } from './upload-task.ts';

const KiB = 1024;

function setup(fault?: (request: FakeRequest, index: number) => FakeFault, options: Partial<StorageOptions> = {}) {
  const server = fakeStorageServer(fault);
  const { clock, sleeps } = virtualClock();
  const storage = createStorage({ baseUrl: 'http://storage.test', fetch: server.fetch, clock, random: () => 0.5, getAuthToken: () => 'tok', ...options });
  return { server, storage, sleeps };
}

async function failure(promise: PromiseLike<unknown>): Promise<StorageError> {
  const error = await Promise.resolve(promise).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(StorageError);
  return error as StorageError;
}

function watch(task: UploadTask) {
  const states: UploadState[] = [];
  const percents: number[] = [];
  let completed = false;
  let failed: StorageError | undefined;
  task.on(
    'state_changed',
    (snapshot) => {
      if (states.at(-1) !== snapshot.state) states.push(snapshot.state);
      percents.push(snapshot.percent);
    },
    (error) => {
      failed = error;
      states.push(task.snapshot.state);
    },
    () => (completed = true),
  );
  return { states, percents, completed: () => completed, failed: () => failed };
}

describe('references', () => {
  const storage = createStorage({ baseUrl: 'http://storage.test' });

  it('walks paths like the spec client', () => {
    const image = ref(storage, 'products//2024/cover.png/');
    expect([image.bucket, image.fullPath, image.name, image.toString()]).toEqual(['storefront', 'products/2024/cover.png', 'cover.png', 'gs://storefront/products/2024/cover.png']);
    expect(image.parent?.fullPath).toBe('products/2024');
    expect(image.parent?.parent?.parent?.fullPath).toBe('');
    expect(image.root.parent).toBeNull();
    expect(image.root.child('a/b').fullPath).toBe('a/b');
    expect(ref(image.root, 'products').child('x.png').fullPath).toBe('products/x.png');
    expect(ref(storage).fullPath).toBe('');
  });

  it.each([
    ['gs://storefront/products/a.png', 'storefront', 'products/a.png'],
    ['https://shop.example/v0/b/storefront/o/products%2Fa.png?alt=media&token=x', 'storefront', 'products/a.png'],
    ['http://127.0.0.1:3000/v0/b/other/o', 'other', ''],
  ])('accepts %s', (url, bucket, path) => {
    const reference = ref(storage, url);
    expect([reference.bucket, reference.fullPath]).toEqual([bucket, path]);
  });

  it.each(['https://shop.example/products/a.png', 'ftp://storefront/a', 'gs://'])('refuses %s with invalid-url', (url) => {
    expect(() => ref(storage, url)).toThrow(expect.objectContaining({ code: 'invalid-url', message: `Invalid URL '${url}'.` }));
  });

  it('checks the default bucket', () => {
    expect(createStorage({ bucket: 'gs://storefront' }).bucket).toBe('storefront');
    expect(() => createStorage({ bucket: 'gs://storefront/path' })).toThrow(expect.objectContaining({ code: 'invalid-default-bucket' }));
    expect(() => createStorage({ bucket: 'bad bucket' })).toThrow(expect.objectContaining({ code: 'invalid-default-bucket' }));
    expect(() => ref(createStorage({ bucket: '' }), 'a.png')).toThrow(expect.objectContaining({ code: 'no-default-bucket' }));
  });

  it('refuses downloads and uploads at the root', async () => {
    const root = ref(storage);
    for (const operation of [getDownloadURL(root), getMetadata(root), uploadBytes(root, new Uint8Array(1)), uploadString(root, 'x')]) {
      expect((await failure(operation)).code).toBe('invalid-root-operation');
    }
    expect(() => uploadBytesResumable(root, new Uint8Array(1))).toThrow(STORAGE_MESSAGES.invalidRootOperation('uploadBytesResumable'));
  });
});

describe('errors from answers', () => {
  const location = { bucket: 'storefront', path: 'products/a.png' };
  const answer = (status: number, text = '') => errorFromResponse({ status, headers: new Headers(), text }, location);

  it.each([
    [401, 'unauthenticated', STORAGE_MESSAGES.unauthenticated],
    [402, 'quota-exceeded', STORAGE_MESSAGES.quotaExceeded('storefront')],
    [403, 'unauthorized', "User does not have permission to access 'products/a.png'."],
    [404, 'object-not-found', "Object 'products/a.png' does not exist."],
    [400, 'unknown', STORAGE_MESSAGES.unknown],
    [418, 'unknown', STORAGE_MESSAGES.unknown],
  ])('%i without a body -> %s', (status, code, message) => expect(answer(status)).toMatchObject({ code, message, status }));

  it('takes the code and message the server names', () => {
    const body = JSON.stringify({ error: { code: 400, status: 'invalid-argument', message: 'Only JPEG, PNG, WebP, GIF and AVIF images can be uploaded.' } });
    expect(answer(400, body)).toMatchObject({ code: 'invalid-argument', message: 'Only JPEG, PNG, WebP, GIF and AVIF images can be uploaded.', serverResponse: body });
    expect(answer(404, JSON.stringify({ error: { status: 'bucket-not-found' } }))).toMatchObject({ code: 'bucket-not-found', message: "Bucket 'storefront' does not exist." });
    expect(answer(403, '<html>proxy says no</html>')).toMatchObject({ code: 'unauthorized' });
  });
});

describe('one-shot operations', () => {
  it('uploads in one multipart request with the metadata and the bearer token', async () => {
    const { server, storage } = setup();
    const result = await uploadBytes(ref(storage, 'products/a.png'), new Uint8Array([1, 2, 3]), { contentType: 'image/png', customMetadata: { k: 'v' } });
    expect(result.metadata).toMatchObject({ fullPath: 'products/a.png', contentType: 'image/png', customMetadata: { k: 'v' }, size: 3 });
    expect([...server.objects.get('products/a.png')!.bytes]).toEqual([1, 2, 3]);
    expect(server.requests[0]!.headers.get('authorization')).toBe('Bearer tok');
    expect(server.requests[0]!.headers.get('x-storage-client-version')).toBe('storefront-sdk/1');
  });

  it('uploads strings in each format', async () => {
    const { server, storage } = setup();
    await uploadString(ref(storage, 'products/a.txt'), 'aGk=', 'base64');
    await uploadString(ref(storage, 'products/b.txt'), 'data:text/plain,hi%21', 'data_url');
    expect(new TextDecoder().decode(server.objects.get('products/a.txt')!.bytes)).toBe('hi');
    expect(server.objects.get('products/b.txt')!.metadata.contentType).toBe('text/plain');
    const error = await failure(uploadString(ref(storage, 'products/c.txt'), 'a-b', 'base64'));
    expect(error).toMatchObject({ code: 'invalid-format', message: "String does not match format 'base64': Invalid character '-' found: is it base64url encoded?" });
    expect(server.requests).toHaveLength(2);
  });

  it('builds the download URL from the first token, or fails with no-download-url', async () => {
    const { server, storage } = setup();
    await uploadBytes(ref(storage, 'products/a b.png'), new Uint8Array([1]));
    expect(await getDownloadURL(ref(storage, 'products/a b.png'))).toBe('http://storage.test/v0/b/storefront/o/products%2Fa%20b.png?alt=media&token=token-1');
    server.objects.get('products/a b.png')!.metadata.downloadTokens = '';
    const error = await failure(getDownloadURL(ref(storage, 'products/a b.png')));
    expect(error).toMatchObject({ code: 'no-download-url', message: 'The given file does not have any download URLs.' });
  });
});

describe('upload task', () => {
  it('sends small files as one multipart request', async () => {
    const { server, storage } = setup();
    const snapshot = await uploadBytesResumable(ref(storage, 'products/s.png'), new Uint8Array(262_144));
    expect(server.requests.map((r) => r.query.get('uploadType'))).toEqual(['multipart']);
    expect(snapshot).toMatchObject({ state: 'success', bytesTransferred: 262_144, percent: 100 });
  });

  it('sends larger files in doubling chunks and reports progress in percent', async () => {
    const { server, storage } = setup();
    const bytes = new Uint8Array(2 * 1024 * KiB + 1).map((_, i) => i % 251);
    const task = uploadBytesResumable(ref(storage, 'products/big.bin'), bytes, { contentType: 'application/x-test' });
    const seen = watch(task);
    const snapshot = await task;
    const chunks = server.requests.filter((r) => r.command?.startsWith('upload'));
    expect(chunks.map((r) => [r.offset, r.body.length, r.command])).toEqual([
      [0, 256 * KiB, 'upload'],
      [256 * KiB, 512 * KiB, 'upload'],
      [768 * KiB, 1024 * KiB, 'upload'],
      [1792 * KiB, 256 * KiB + 1, 'upload, finalize'],
    ]);
    expect(server.requests[0]!.headers.get('x-goog-upload-header-content-type')).toBe('application/x-test');
    expect(seen.percents).toEqual([0, 0, 12, 37, 87, 100]);
    expect(seen.states).toEqual(['running', 'success']);
    expect(seen.completed()).toBe(true);
    expect(snapshot.metadata?.fullPath).toBe('products/big.bin');
    expect(server.objects.get('products/big.bin')!.bytes).toEqual(bytes);
    // The session URL is absolute (the server's PUBLIC_URL); chunks still go to this client's base URL.
    expect(new Set(server.requests.map((r) => r.origin))).toEqual(new Set(['http://storage.test']));
  });

  it('resumes from the server offset after a lost connection, with backoff', async () => {
    let failed = false;
    const { server, storage, sleeps } = setup((request) => {
      if (request.offset === 256 * KiB && !failed) {
        failed = true;
        return 'network';
      }
      return undefined;
    });
    const bytes = new Uint8Array(1024 * KiB).map((_, i) => i % 7);
    await uploadBytesResumable(ref(storage, 'products/r.bin'), bytes);
    expect(server.requests.map((r) => [r.command, r.offset, r.body.length])).toEqual([
      ['start', null, expect.any(Number)],
      ['upload', 0, 256 * KiB],
      ['upload', 256 * KiB, 512 * KiB],
      ['query', null, 0],
      ['upload', 256 * KiB, 256 * KiB],
      ['upload, finalize', 512 * KiB, 512 * KiB],
    ]);
    expect(sleeps).toEqual([2_500]);
    expect(server.objects.get('products/r.bin')!.bytes).toEqual(bytes);
  });

  it('stops retrying at the upload limit', async () => {
    const { storage, sleeps } = setup((request) => (request.method === 'POST' ? { status: 500 } : undefined), { maxUploadRetryTime: 5_000 });
    const error = await failure(uploadBytesResumable(ref(storage, 'products/x.png'), new Uint8Array(10)));
    expect(error).toMatchObject({ code: 'retry-limit-exceeded', message: 'Max retry time for operation exceeded, please try again.', status: 500 });
    expect(sleeps).toEqual([2_500, 2_500]);
  });

  it('fails at once on an answer that is not worth retrying', async () => {
    const body = { error: { code: 400, status: 'invalid-argument', message: 'Only JPEG, PNG, WebP, GIF and AVIF images can be uploaded.' } };
    const { storage, sleeps } = setup(() => ({ status: 400, body }));
    const task = uploadBytesResumable(ref(storage, 'products/x.png'), new Uint8Array(10));
    const seen = watch(task);
    const error = await failure(task);
    expect(error).toMatchObject({ code: 'invalid-argument', message: body.error.message, status: 400 });
    expect(seen.states).toEqual(['running', 'error']);
    expect(seen.failed()).toBe(error);
    expect(sleeps).toEqual([]);
  });

  it('pauses before the first request and resumes later', async () => {
    const { server, storage } = setup();
    const task = uploadBytesResumable(ref(storage, 'products/p.bin'), new Uint8Array(600 * KiB));
    expect(task.pause()).toBe(true);
    expect(task.snapshot.state).toBe('paused');
    expect([task.pause(), task.cancel()]).toEqual([false, false]);
    await Promise.resolve();
    expect(server.requests).toHaveLength(0);
    expect(task.resume()).toBe(true);
    expect((await task).state).toBe('success');
  });

  it('pauses mid-chunk, then resumes from what the server holds', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { server, storage } = setup((request, index) => (request.offset === 256 * KiB && index === 2 ? { hold: gate } : undefined));
    const task = uploadBytesResumable(ref(storage, 'products/p.bin'), new Uint8Array(1024 * KiB).fill(3));
    const seen = watch(task);
    while (server.requests.length < 3) await new Promise((resolve) => setImmediate(resolve));
    expect(task.pause()).toBe(true);
    expect(task.snapshot.state).toBe('pausing');
    await new Promise((resolve) => setImmediate(resolve));
    expect(task.snapshot.state).toBe('paused');
    release();
    expect(task.resume()).toBe(true);
    await task;
    expect(seen.states).toEqual(['running', 'pausing', 'paused', 'running', 'success']);
    expect(server.requests.slice(3).map((r) => [r.command, r.offset])).toEqual([
      ['query', null],
      ['upload', 256 * KiB],
      ['upload, finalize', 512 * KiB],
    ]);
  });

  it('resumes from pausing without stopping', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { storage } = setup((request, index) => (index === 1 ? { hold: gate } : undefined));
    const task = uploadBytesResumable(ref(storage, 'products/q.bin'), new Uint8Array(300 * KiB));
    const seen = watch(task);
    await new Promise((resolve) => setImmediate(resolve));
    expect(task.pause()).toBe(true);
    expect(task.resume()).toBe(true);
    release();
    expect((await task).state).toBe('success');
    expect(seen.states).toEqual(['running', 'pausing', 'running', 'success']);
  });

  it('cancels before starting and from pausing', async () => {
    const { server, storage } = setup();
    const first = uploadBytesResumable(ref(storage, 'products/c1.bin'), new Uint8Array(10));
    expect(first.cancel()).toBe(true);
    expect(first.snapshot.state).toBe('canceled');
    expect(await failure(first)).toMatchObject({ code: 'canceled', message: 'User canceled the upload/download.' });

    const second = uploadBytesResumable(ref(storage, 'products/c2.bin'), new Uint8Array(10));
    expect(second.pause()).toBe(true);
    expect(second.snapshot.state).toBe('paused');
    expect(second.cancel()).toBe(false);
    expect(second.resume()).toBe(true);
    expect(second.pause()).toBe(true);
    expect(second.snapshot.state).toBe('pausing');
    expect(second.cancel()).toBe(true);
    expect((await failure(second)).code).toBe('canceled');
    expect(server.objects.has('products/c2.bin')).toBe(false);
  });

  it('tells late observers the outcome and lets them unsubscribe', async () => {
    const { storage } = setup();
    const task = uploadBytesResumable(ref(storage, 'products/o.bin'), new Uint8Array(5));
    const early: string[] = [];
    const unsubscribe = task.on('state_changed', () => early.push('next'));
    unsubscribe();
    await task;
    const late = watch(task);
    await Promise.resolve();
    expect(late.states).toEqual(['success']);
    expect(late.completed()).toBe(true);
    expect(early).toEqual([]);
    expect(() => task.on('changed' as 'state_changed')).toThrow(expect.objectContaining({ code: 'invalid-argument' }));
  });

  it('refuses a blob that cannot be sliced', async () => {
    class BrokenBlob extends Blob {
      override slice(): Blob {
        return new Blob([]);
      }
    }
    const { storage } = setup();
    const error = await failure(uploadBytesResumable(ref(storage, 'products/b.bin'), new BrokenBlob([new Uint8Array(300 * KiB)])));
    expect(error).toMatchObject({ code: 'cannot-slice-blob', message: 'Cannot slice blob for upload. Please retry the upload.' });
  });

  it('reports a server that claims more bytes than were sent', async () => {
    const total = 300 * KiB;
    const { storage } = setup((request) => {
      if (request.command === 'upload') return 'network';
      if (request.command === 'query') return { status: 200, headers: { 'x-goog-upload-status': 'active', 'x-goog-upload-size-received': String(total + 5) } };
      return undefined;
    });
    const error = await failure(uploadBytesResumable(ref(storage, 'products/w.bin'), new Uint8Array(total)));
    expect(error).toMatchObject({ code: 'server-file-wrong-size', message: 'Server recorded incorrect upload file size, please retry the upload.' });
  });
});
