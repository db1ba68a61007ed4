import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORAGE_BUCKET, UPLOAD_MESSAGES } from '@storefront/domain/storage.ts';
import { uploadBytesResumable } from '@storefront/sdk/storage/upload-task.ts';
import { createStorage, ref } from '@storefront/sdk/storage/storage.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { makeTempDir } from '../../test/database.ts';
import { users } from '../db/schema/index.ts';
import { createStorageDeps, findObject, objectKey } from '../storage/storage.service.ts';
import { storageTestDriver } from '../storage/testing/driver-choice.ts';
import { startTestS3Server, type TestS3Server } from '../storage/testing/s3-server.ts';
import { sineWav } from './testing/audio.ts';

/**
 * A resumable upload's finalize streams a master (session 10): the content check reads the
 * first bytes and runs ffprobe on a file, the MD5 is computed over a stream and the driver
 * streams the file to its key. The shop holds at most UPLOAD_MAX_BYTES of an upload in memory
 * (images, re-encoded by sharp); here that limit is 1 MiB and the master is 7 MB, so a
 * finalize that buffered the master would fail. Local disk here; S3 (parts assembled, then
 * streamed) in digital-masters.s3-suite.test.ts.
 */
const IN_MEMORY_LIMIT = 1024 * 1024;
let shop: TestApp;
let dataDir: ReturnType<typeof makeTempDir>;
let s3: TestS3Server | undefined;
let token = '';

beforeAll(async () => {
  dataDir = makeTempDir('digital-masters');
  if (storageTestDriver() === 's3') s3 = await startTestS3Server();
  shop = await startTestApp({ config: { env: { DATA_DIR: dataDir.dir, UPLOAD_MAX_BYTES: String(IN_MEMORY_LIMIT), ...s3?.env } } });
  await shop.account('boss');
  await shop.db.update(users).set({ role: 'admin' }).where(eq(users.email, 'boss@example.org'));
  token = await shop.signIn('boss@example.org');
});

afterAll(async () => {
  await shop?.close();
  dataDir?.remove();
  await s3?.close();
});

const upload = (objectPath: string, bytes: Buffer) => uploadBytesResumable(ref(createStorage({ baseUrl: shop.baseUrl, getAuthToken: () => token }), objectPath), bytes);
const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('base64');

describe(`masters are streamed at finalize (${storageTestDriver()} storage)`, () => {
  it('stores a master larger than the in-memory limit, byte for byte, checked by ffprobe', async () => {
    const master = sineWav(40);
    expect(master.length).toBeGreaterThan(6 * IN_MEMORY_LIMIT);
    const snapshot = await upload('masters/big/long.wav', master);
    expect(snapshot.metadata).toMatchObject({ size: master.length, contentType: 'audio/wav', md5Hash: md5(master), customMetadata: { durationSeconds: '40' } });
    const stored = await findObject(shop.db, STORAGE_BUCKET, 'masters/big/long.wav');
    const blob = await createStorageDeps({ db: shop.db, config: shop.config }).driver.get(objectKey(stored!.blobKey));
    const chunks: Buffer[] = [];
    for await (const chunk of blob!.stream) chunks.push(chunk as Buffer);
    expect(md5(Buffer.concat(chunks))).toBe(md5(master));
  });

  it('still refuses, by content, a large text file renamed .wav and one that only starts like a WAV', async () => {
    const text = Buffer.from('Liner notes, not audio.\n'.repeat(60_000));
    expect(text.length).toBeGreaterThan(IN_MEMORY_LIMIT);
    await expect(upload('masters/big/notes.wav', text)).rejects.toMatchObject({ message: expect.stringContaining(UPLOAD_MESSAGES.notLosslessAudio) });
    const fake = Buffer.concat([sineWav(0.01).subarray(0, 12), text]);
    await expect(upload('masters/big/fake.wav', fake)).rejects.toMatchObject({ message: expect.stringContaining(UPLOAD_MESSAGES.notLosslessAudio) });
    expect(await findObject(shop.db, STORAGE_BUCKET, 'masters/big/notes.wav')).toBeUndefined();
    expect(await findObject(shop.db, STORAGE_BUCKET, 'masters/big/fake.wav')).toBeUndefined();
  });
});
