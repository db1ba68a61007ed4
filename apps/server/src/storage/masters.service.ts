import { createHash, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { and, eq } from 'drizzle-orm';
import { STORAGE_MESSAGES, UPLOAD_MESSAGES } from '@storefront/domain/storage.ts';
import { isMasterPath } from '@storefront/domain/storage-paths.ts';
import type { Config } from '../config.ts';
import { storageObjects } from '../db/schema/index.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import { checkMaster } from '../digital/encoder.ts';
import { StorageHttpError } from './storage.errors.ts';
import { objectKey, storeImage, type StorageDeps, type StorageObjectRow, type StoreImageInput } from './storage.service.ts';

/**
 * Lossless masters of digital releases (issue 28, decision 056): uploaded by admins under
 * `masters/` through the same multipart and resumable uploads as images, judged by their
 * bytes (the magic number, then ffprobe must agree on a lossless container and codec) and
 * stored as they came, never served publicly (the read rule keeps them to admins).
 */
export function uploadLimit(config: Pick<Config, 'UPLOAD_MAX_BYTES' | 'MASTER_UPLOAD_MAX_BYTES'>, objectPath: string): number {
  return isMasterPath(objectPath) ? config.MASTER_UPLOAD_MAX_BYTES : config.UPLOAD_MAX_BYTES;
}

const CONTENT_TYPES = { wav: 'audio/wav', aiff: 'audio/aiff', flac: 'audio/flac' } as const;

/** A master's bytes in a local file (a resumable upload's staging file, or one written for it). */
export interface MasterFileInput extends Omit<StoreImageInput, 'bytes'> {
  file: string;
}

/** Stores a master handed over in memory (the one-request upload): through a file, as the resumable upload does. */
export async function storeMaster(deps: StorageDeps, input: StoreImageInput, withinTransaction?: (tx: Tx) => Promise<void>): Promise<StorageObjectRow> {
  if (input.bytes.length === 0) throw new StorageHttpError('invalid-argument', UPLOAD_MESSAGES.empty, 400);
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'master-'));
  try {
    const file = path.join(dir, 'master');
    await fs.promises.writeFile(file, input.bytes);
    const { bytes: _bytes, ...rest } = input;
    return await storeMasterFile(deps, { ...rest, file }, withinTransaction);
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

/** The first bytes of a file (at most `length`). */
async function headOf(file: string, length: number): Promise<Buffer> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const head = Buffer.alloc(length);
    const { bytesRead } = await handle.read(head, 0, length, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * Checks and stores a master from a file, never holding it whole in memory (albums are
 * hundreds of MB; session 10): the MD5 is computed over a read stream, the content check
 * reads the first bytes (the magic number) and runs ffprobe on the file, and the driver
 * streams the file to its key.
 */
export async function storeMasterFile(deps: StorageDeps, input: MasterFileInput, withinTransaction?: (tx: Tx) => Promise<void>): Promise<StorageObjectRow> {
  const { size } = await fs.promises.stat(input.file);
  if (size === 0) throw new StorageHttpError('invalid-argument', UPLOAD_MESSAGES.empty, 400);
  const hash = createHash('md5');
  await pipeline(fs.createReadStream(input.file), hash);
  const md5 = hash.digest('base64');
  const expected = input.metadata.md5Hash;
  if (expected && expected !== md5) throw new StorageHttpError('invalid-checksum', STORAGE_MESSAGES.invalidChecksum(input.path, expected, md5), 400);
  const checked = await checkMaster(input.file, await headOf(input.file, 64));
  // Not a lossless master: refused as a storage rule refuses (403), like a file that is not an image.
  if (!checked) throw new StorageHttpError('invalid-argument', UPLOAD_MESSAGES.notLosslessAudio, 403);

  const blobKey = randomBytes(16).toString('hex');
  await deps.driver.putFile(objectKey(blobKey), input.file);
  const now = new Date();
  const values = {
    bucket: input.bucket,
    path: input.path,
    blobKey,
    generation: now.getTime() * 1000 + Math.floor(Math.random() * 1000),
    size,
    contentType: CONTENT_TYPES[checked.format],
    md5Hash: md5,
    cacheControl: 'private, no-store',
    contentDisposition: null,
    contentEncoding: null,
    contentLanguage: null,
    customMetadata: { ...(input.metadata.customMetadata ?? {}), durationSeconds: String(Math.round(checked.probe.durationSeconds)) },
    downloadTokens: [randomUUID()],
    width: 0,
    height: 0,
    variantWidths: [],
    createdBy: input.createdBy,
    timeCreated: now,
    updated: now,
  };
  try {
    const { row, replaced } = await runTransaction(
      deps.db,
      async (tx) => {
        const [old] = await tx
          .select()
          .from(storageObjects)
          .where(and(eq(storageObjects.bucket, input.bucket), eq(storageObjects.path, input.path)))
          .for('update');
        const [stored] = await tx
          .insert(storageObjects)
          .values(values)
          .onConflictDoUpdate({ target: [storageObjects.bucket, storageObjects.path], set: values })
          .returning();
        await withinTransaction?.(tx);
        return { row: stored!, replaced: old };
      },
      { isolationLevel: 'read committed' },
    );
    // The encoded files of a replaced master stay until the tracks that used it are encoded again; its bytes go now.
    if (replaced) await deps.driver.delete(objectKey(replaced.blobKey)).catch((error: unknown) => deps.log?.warn({ err: error }, 'could not delete a replaced master'));
    return row;
  } catch (error) {
    await deps.driver.delete(objectKey(blobKey)).catch((cleanup: unknown) => deps.log?.warn({ err: cleanup }, 'could not delete a refused master'));
    throw error;
  }
}

/** Images are checked and re-encoded; masters checked and kept as they came. */
export function storeUpload(deps: StorageDeps, input: StoreImageInput, withinTransaction?: (tx: Tx) => Promise<void>): Promise<StorageObjectRow> {
  return isMasterPath(input.path) ? storeMaster(deps, input, withinTransaction) : storeImage(deps, input, withinTransaction);
}
