import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import type { S3Settings } from '../../config.ts';
import { createS3Client } from '../storage.s3.ts';

/**
 * A real S3-protocol server for tests (s3rver, files in a temp folder) on 127.0.0.1, with
 * one bucket. s3rver has no AbortMultipartUpload: this wrapper answers it the way S3 does
 * (the upload and its parts are gone), so tests can see that aborted parts are reclaimed.
 */
export interface TestS3Server {
  endpoint: string;
  bucket: string;
  /** Settings as environment variables, for loadConfig or a child process. */
  env: Record<string, string>;
  settings(prefix?: string): S3Settings;
  /** Every key in the bucket (under `prefix`). */
  keys(prefix?: string): Promise<string[]>;
  /** The ids of multipart uploads neither completed nor aborted. */
  openMultipartUploads(): string[];
  /** Requests seen, as "METHOD path?query". */
  requests: string[];
  /** Until called again without one, every PUT whose path matches answers 500 (a store that fails writes). */
  failPuts(match?: RegExp): void;
  close(): Promise<void>;
}

export const TEST_S3_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export async function startTestS3Server(options: { bucket?: string; prefix?: string } = {}): Promise<TestS3Server> {
  const bucket = options.bucket ?? 'shop-objects';
  const prefix = options.prefix ?? 'shop';
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 's3rver-'));
  const s3rver = new S3rver({ directory, silent: true, configureBuckets: [{ name: bucket }] });
  await s3rver.configureBuckets();
  const handle = s3rver.callback();
  const uploadsDir = () => s3rver.store.getResourcePath(bucket, undefined, 'uploads');
  const requests: string[] = [];
  let failing: RegExp | undefined;
  const server = http.createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    if (request.method === 'PUT' && failing?.test(request.url ?? '')) {
      request.resume();
      response.writeHead(500, { 'content-type': 'application/xml' });
      response.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>We encountered an internal error. Please try again.</Message></Error>');
      return;
    }
    const url = new URL(request.url ?? '/', 'http://s3.invalid');
    const uploadId = url.searchParams.get('uploadId');
    if (request.method === 'DELETE' && uploadId !== null) {
      // AbortMultipartUpload
      const dir = path.join(uploadsDir(), path.basename(uploadId));
      if (!fs.existsSync(dir)) {
        response.writeHead(404, { 'content-type': 'application/xml' });
        response.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist.</Message></Error>');
        return;
      }
      fs.rmSync(dir, { recursive: true, force: true });
      request.resume();
      response.writeHead(204).end();
      return;
    }
    handle(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const settings = (keyPrefix = prefix): S3Settings => ({
    bucket,
    prefix: keyPrefix,
    endpoint,
    region: 'us-east-1',
    credentials: TEST_S3_CREDENTIALS,
    forcePathStyle: true,
  });
  const client = createS3Client(settings());
  return {
    endpoint,
    bucket,
    env: {
      STORAGE_URL: `s3://${bucket}/${prefix}`,
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: TEST_S3_CREDENTIALS.accessKeyId,
      S3_SECRET_ACCESS_KEY: TEST_S3_CREDENTIALS.secretAccessKey,
    },
    settings,
    requests,
    failPuts(match) {
      failing = match;
    },
    async keys(under = prefix) {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: under, ContinuationToken: token }));
        keys.push(...(page.Contents ?? []).map((entry) => entry.Key!));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return keys.sort();
    },
    openMultipartUploads() {
      return fs.existsSync(uploadsDir()) ? fs.readdirSync(uploadsDir()) : [];
    },
    async close() {
      client.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
