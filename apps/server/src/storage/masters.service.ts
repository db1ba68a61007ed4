import { createHash, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { STORAGE_MESSAGES, UPLOAD_MESSAGES } from '@storefront/domain/storage.ts';
import { isMasterPath } from '@storefront/domain/storage-location.ts';
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

export async function storeMaster(deps: StorageDeps, input: StoreImageInput, withinTransaction?: (tx: Tx) => Promise<void>): Promise<StorageObjectRow> {
  if (input.bytes.length === 0) throw new StorageHttpError('invalid-argument', UPLOAD_MESSAGES.empty, 400);
  const md5 = createHash('md5').update(input.bytes).digest('base64');
  const expected = input.metadata.md5Hash;
  if (expected && expected !== md5) throw new StorageHttpError('invalid-checksum', STORAGE_MESSAGES.invalidChecksum(input.path, expected, md5), 400);
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'master-'));
  let checked: Awaited<ReturnType<typeof checkMaster>>;
  try {
    const file = path.join(dir, 'master');
    await fs.promises.writeFile(file, input.bytes);
    checked = await checkMaster(file, input.bytes.subarray(0, 64));
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
  // Not a lossless master: refused as a storage rule refuses (403), like a file that is not an image.
  if (!checked) throw new StorageHttpError('invalid-argument', UPLOAD_MESSAGES.notLosslessAudio, 403);

  const blobKey = randomBytes(16).toString('hex');
  await deps.driver.put(objectKey(blobKey), input.bytes);
  const now = new Date();
  const values = {
    bucket: input.bucket,
    path: input.path,
    blobKey,
    generation: now.getTime() * 1000 + Math.floor(Math.random() * 1000),
    size: input.bytes.length,
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
