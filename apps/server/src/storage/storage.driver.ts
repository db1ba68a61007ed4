import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';

/**
 * Where object bytes live. The local driver keeps them under DATA_DIR/storage; the S3
 * driver (storage.s3.ts, decision 022) in a bucket under a prefix. Keys are ours (random
 * ids and fixed suffixes), never a client's path.
 */
export interface StorageDriver {
  readonly kind: 'local' | 's3';
  /** S3 only: multipart uploads, which hold the parts of resumable upload sessions. */
  readonly multipart?: MultipartStore;
  put(key: string, data: Buffer): Promise<void>;
  /** Stores a local file's bytes, streamed and never whole in memory (masters of hundreds of MB). */
  putFile(key: string, file: string): Promise<void>;
  /**
   * The bytes as a stream, or null when there is no such key. With `range` (inclusive
   * offsets inside the object), only those bytes, and `size` is their count.
   */
  get(key: string, range?: ByteRange): Promise<{ stream: Readable; size: number } | null>;
  stat(key: string): Promise<{ size: number } | null>;
  /** Deleting a missing key is not an error. */
  delete(key: string): Promise<void>;
}

export interface ByteRange {
  start: number;
  end: number;
}

/** One uploaded part of a multipart upload. */
export interface UploadedPart {
  partNumber: number;
  etag: string;
  size: number;
}

export interface MultipartStore {
  /** The smallest part the store takes, except for the last one (5 MiB on S3). */
  readonly minPartSize: number;
  create(key: string): Promise<string>;
  uploadPart(key: string, uploadId: string, partNumber: number, data: Buffer): Promise<UploadedPart>;
  complete(key: string, uploadId: string, parts: UploadedPart[]): Promise<void>;
  /** Aborting an unknown or finished upload is not an error. */
  abort(key: string, uploadId: string): Promise<void>;
}

const KEY = /^[a-z0-9][a-z0-9._-]*(?:\/[a-z0-9][a-z0-9._-]*)*$/;

export function assertDriverKey(key: string): void {
  if (!KEY.test(key) || key.split('/').some((segment) => segment === '..' || segment === '.')) {
    throw new Error(`Invalid storage key: ${JSON.stringify(key)}`);
  }
}

function isMissing(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === 'ENOENT';
}

export function createLocalDriver(root: string): StorageDriver {
  const fileOf = (key: string) => {
    assertDriverKey(key);
    return path.join(root, ...key.split('/'));
  };
  return {
    kind: 'local',
    async put(key, data) {
      const file = fileOf(key);
      await fs.promises.mkdir(path.dirname(file), { recursive: true });
      // Write aside, then rename: a reader never sees half a file.
      const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
      try {
        await fs.promises.writeFile(temp, data, { flush: true });
        await fs.promises.rename(temp, file);
      } catch (error) {
        await fs.promises.rm(temp, { force: true });
        throw error;
      }
    },
    async putFile(key, source) {
      const file = fileOf(key);
      await fs.promises.mkdir(path.dirname(file), { recursive: true });
      const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
      try {
        await fs.promises.copyFile(source, temp);
        const handle = await fs.promises.open(temp, 'r+');
        try {
          await handle.sync();
        } finally {
          await handle.close();
        }
        await fs.promises.rename(temp, file);
      } catch (error) {
        await fs.promises.rm(temp, { force: true });
        throw error;
      }
    },
    async get(key, range) {
      const file = fileOf(key);
      try {
        const handle = await fs.promises.open(file, 'r');
        if (range) return { stream: handle.createReadStream({ start: range.start, end: range.end }), size: range.end - range.start + 1 };
        const { size } = await handle.stat();
        return { stream: handle.createReadStream(), size };
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },
    async stat(key) {
      try {
        const stats = await fs.promises.stat(fileOf(key));
        return { size: stats.size };
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },
    async delete(key) {
      await fs.promises.rm(fileOf(key), { force: true });
    },
  };
}
