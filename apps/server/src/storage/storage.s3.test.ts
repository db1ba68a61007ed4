import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import type { StorageDriver } from './storage.driver.ts';
import { createS3Driver } from './storage.s3.ts';
import { startTestS3Server, type TestS3Server } from './testing/s3-server.ts';

/** The S3 driver against a real S3-protocol server (s3rver) on 127.0.0.1 (decision 022). */
let s3: TestS3Server;
let driver: StorageDriver;

async function read(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

beforeAll(async () => {
  s3 = await startTestS3Server({ prefix: 'driver-test' });
  driver = createS3Driver(s3.settings());
});

afterAll(async () => {
  await s3?.close();
});

describe('the S3 storage driver', () => {
  it('puts, reads, describes and deletes objects under its prefix', async () => {
    const bytes = randomBytes(70_000);
    await driver.put('objects/abc123', bytes);
    expect(await s3.keys()).toEqual(['driver-test/objects/abc123']);
    expect(await driver.stat('objects/abc123')).toEqual({ size: 70_000 });
    const blob = await driver.get('objects/abc123');
    expect(blob!.size).toBe(70_000);
    expect((await read(blob!.stream)).equals(bytes)).toBe(true);
    await driver.delete('objects/abc123');
    expect(await driver.get('objects/abc123')).toBeNull();
    expect(await driver.stat('objects/abc123')).toBeNull();
    await driver.delete('objects/abc123');
    expect(await s3.keys()).toEqual([]);
  });

  it('refuses keys that are not its own', async () => {
    await expect(driver.put('../escape', Buffer.from('x'))).rejects.toThrow(/Invalid storage key/);
  });

  it('assembles a multipart upload from its parts, and aborts one', async () => {
    const store = driver.multipart!;
    expect(store.minPartSize).toBe(5 * 1024 * 1024);
    const first = randomBytes(store.minPartSize);
    const last = randomBytes(1000);
    const uploadId = await store.create('uploads/one');
    const parts = [await store.uploadPart('uploads/one', uploadId, 1, first), await store.uploadPart('uploads/one', uploadId, 2, last)];
    expect(s3.openMultipartUploads()).toHaveLength(1);
    await store.complete('uploads/one', uploadId, parts);
    expect(s3.openMultipartUploads()).toHaveLength(0);
    expect((await read((await driver.get('uploads/one'))!.stream)).equals(Buffer.concat([first, last]))).toBe(true);

    const abandoned = await store.create('uploads/two');
    await store.uploadPart('uploads/two', abandoned, 1, last);
    expect(s3.openMultipartUploads()).toEqual([abandoned]);
    await store.abort('uploads/two', abandoned);
    expect(s3.openMultipartUploads()).toEqual([]);
    // Aborting again (a retried job) is not an error.
    await store.abort('uploads/two', abandoned);
  });
});

describe('storage settings', () => {
  it('reads STORAGE_URL and the S3 settings', () => {
    const config = loadConfig({
      NODE_ENV: 'test',
      AUTH_SECRET: 'x'.repeat(32),
      STORAGE_URL: 's3://shop-media/prod/images/',
      S3_ENDPOINT: 'http://127.0.0.1:9000',
      S3_ACCESS_KEY_ID: 'id',
      S3_SECRET_ACCESS_KEY: 'secret',
    });
    expect(config.s3).toEqual({
      bucket: 'shop-media',
      prefix: 'prod/images',
      endpoint: 'http://127.0.0.1:9000',
      region: 'us-east-1',
      credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
      forcePathStyle: true,
    });
    const aws = loadConfig({ NODE_ENV: 'test', AUTH_SECRET: 'x'.repeat(32), STORAGE_URL: 's3://shop-media', S3_REGION: 'eu-west-1' });
    expect(aws.s3).toMatchObject({ bucket: 'shop-media', prefix: '', endpoint: undefined, region: 'eu-west-1', credentials: undefined, forcePathStyle: false });
    expect(loadConfig({ NODE_ENV: 'test', AUTH_SECRET: 'x'.repeat(32) }).s3).toBeUndefined();
  });

  it('names every bad storage setting', () => {
    expect(() => loadConfig({ NODE_ENV: 'test', AUTH_SECRET: 'x'.repeat(32), STORAGE_URL: 'ftp://nope' })).toThrow(/STORAGE_URL: must be s3:\/\/<bucket>/);
    expect(() => loadConfig({ NODE_ENV: 'test', AUTH_SECRET: 'x'.repeat(32), STORAGE_URL: 's3://b-ok', S3_ACCESS_KEY_ID: 'only-id' })).toThrow(/S3_SECRET_ACCESS_KEY/);
  });
});
