import { createHash, randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { and, eq, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { STORAGE_MESSAGES, type StorageObjectResource } from '@storefront/domain/storage.ts';
import { downloadUrl } from '@storefront/domain/storage-location.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { storageObjects } from '../db/schema/index.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import { createLocalDriver, type StorageDriver } from './storage.driver.ts';
import { StorageHttpError } from './storage.errors.ts';
import { createS3Driver } from './storage.s3.ts';
import { makeVariants, processImage } from './storage.images.ts';
import type { UploadMetadata } from './storage.metadata.ts';

/**
 * Objects: storing an uploaded image (checked, re-encoded, with its variants), reading
 * its metadata and bytes, and deleting it. Only this file and storage.sessions.ts touch
 * the storage tables.
 */
export interface StorageDeps {
  db: Db;
  config: Config;
  driver: StorageDriver;
  log?: FastifyBaseLogger;
}

export type StorageObjectRow = typeof storageObjects.$inferSelect;

export function createStorageDeps(options: { db: Db; config: Config; driver?: StorageDriver; log?: FastifyBaseLogger }): StorageDeps {
  return {
    db: options.db,
    config: options.config,
    driver: options.driver ?? createDriver(options.config),
    ...(options.log ? { log: options.log } : {}),
  };
}

/** The driver the settings choose: S3 for STORAGE_URL=s3://..., the local disk otherwise. */
export function createDriver(config: Config): StorageDriver {
  return config.s3 ? createS3Driver(config.s3) : createLocalDriver(path.join(config.dataDir, 'storage'));
}

export const objectKey = (blobKey: string) => `objects/${blobKey}`;
export const variantKey = (blobKey: string, width: number) => `variants/${blobKey}/${width}.webp`;

/**
 * An object's metadata in Firebase Storage's resource shape (the official SDK reads it
 * unchanged: `name` is the full path, custom metadata under `metadata`, download tokens
 * comma-separated); our own SDK turns it back with `fromStorageResource`.
 */
export function toMetadata(row: StorageObjectRow): StorageObjectResource {
  const optional = (key: string, value: string | null) => (value === null ? {} : { [key]: value });
  return {
    kind: 'storage#object',
    id: `${row.bucket}/${row.path}/${row.generation}`,
    bucket: row.bucket,
    name: row.path,
    size: String(row.size),
    contentType: row.contentType,
    timeCreated: row.timeCreated.toISOString(),
    updated: row.updated.toISOString(),
    md5Hash: row.md5Hash,
    ...optional('cacheControl', row.cacheControl),
    ...optional('contentDisposition', row.contentDisposition),
    ...optional('contentEncoding', row.contentEncoding),
    ...optional('contentLanguage', row.contentLanguage),
    metadata: row.customMetadata,
    downloadTokens: row.downloadTokens.join(','),
    generation: String(row.generation),
    metageneration: '1',
  };
}

/** One page of a folder listing: the objects directly in it and its sub-folders (with a trailing '/'). */
export async function listFolder(
  db: Db,
  bucket: string,
  prefix: string,
  options: { maxResults: number; pageToken: string | undefined },
): Promise<{ prefixes: string[]; items: { name: string; bucket: string }[]; nextPageToken?: string }> {
  // Every path under the prefix, in order, after the page token (the last name of the previous page).
  const like = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const rows = await db
    .select({ path: storageObjects.path })
    .from(storageObjects)
    .where(
      and(
        eq(storageObjects.bucket, bucket),
        sql`${storageObjects.path} LIKE ${like}`,
        options.pageToken ? sql`${storageObjects.path} COLLATE "C" > ${options.pageToken}` : undefined,
      ),
    )
    .orderBy(sql`${storageObjects.path} COLLATE "C"`);
  const prefixes: string[] = [];
  const items: { name: string; bucket: string }[] = [];
  let last: string | undefined;
  for (const { path: objectPath } of rows) {
    if (prefixes.length + items.length >= options.maxResults) return { prefixes, items, nextPageToken: last! };
    const rest = objectPath.slice(prefix.length);
    const slash = rest.indexOf('/');
    if (slash === -1) {
      items.push({ name: objectPath, bucket });
      last = objectPath;
    } else {
      const folder = `${prefix}${rest.slice(0, slash + 1)}`;
      if (prefixes[prefixes.length - 1] !== folder) prefixes.push(folder);
      // Past every path in this folder: '/' + 1 is '0'.
      last = `${folder.slice(0, -1)}0`;
    }
  }
  return { prefixes, items };
}

/** Changes the settable metadata of an object (a PATCH); null clears a field. */
export async function updateObjectMetadata(db: Db, bucket: string, objectPath: string, metadata: UploadMetadata): Promise<StorageObjectRow | undefined> {
  const changes: Partial<typeof storageObjects.$inferInsert> = { updated: new Date() };
  if (metadata.cacheControl !== undefined) changes.cacheControl = metadata.cacheControl;
  if (metadata.contentDisposition !== undefined) changes.contentDisposition = metadata.contentDisposition;
  if (metadata.contentEncoding !== undefined) changes.contentEncoding = metadata.contentEncoding;
  if (metadata.contentLanguage !== undefined) changes.contentLanguage = metadata.contentLanguage;
  if (metadata.customMetadata !== undefined) changes.customMetadata = metadata.customMetadata ?? {};
  const [row] = await db
    .update(storageObjects)
    .set(changes)
    .where(and(eq(storageObjects.bucket, bucket), eq(storageObjects.path, objectPath)))
    .returning();
  return row;
}

/** The same-origin download URL of an object: what a product stores as its image. */
export function objectDownloadUrl(row: Pick<StorageObjectRow, 'bucket' | 'path' | 'downloadTokens'>): string {
  const token = row.downloadTokens[0];
  if (!token) throw new StorageHttpError('no-download-url', STORAGE_MESSAGES.noDownloadUrl, 404);
  return downloadUrl('', { bucket: row.bucket, path: row.path }, token);
}

export async function findObject(db: Db, bucket: string, objectPath: string): Promise<StorageObjectRow | undefined> {
  const [row] = await db
    .select()
    .from(storageObjects)
    .where(and(eq(storageObjects.bucket, bucket), eq(storageObjects.path, objectPath)));
  return row;
}

function md5Base64(bytes: Buffer): string {
  return createHash('md5').update(bytes).digest('base64');
}

async function deleteBlobs(deps: StorageDeps, blobKey: string, widths: number[]) {
  const keys = [objectKey(blobKey), ...widths.map((width) => variantKey(blobKey, width))];
  const results = await Promise.allSettled(keys.map((key) => deps.driver.delete(key)));
  for (const result of results) {
    // Left-over bytes cost disk space, not correctness: say so and go on.
    if (result.status === 'rejected') deps.log?.warn({ err: result.reason, blobKey }, 'could not delete stored bytes');
  }
}

export interface StoreImageInput {
  bucket: string;
  path: string;
  bytes: Buffer;
  metadata: UploadMetadata;
  createdBy: string | null;
}

/**
 * Checks and re-encodes an image, stores it with its WebP variants and writes its
 * metadata with a fresh download token (so every new content gets new URLs).
 * `withinTransaction` runs in the transaction that writes the row.
 */
export async function storeImage(deps: StorageDeps, input: StoreImageInput, withinTransaction?: (tx: Tx) => Promise<void>): Promise<StorageObjectRow> {
  const expected = input.metadata.md5Hash;
  if (expected) {
    const actual = md5Base64(input.bytes);
    if (actual !== expected) {
      throw new StorageHttpError('invalid-checksum', STORAGE_MESSAGES.invalidChecksum(input.path, expected, actual), 400);
    }
  }
  const image = await processImage(input.bytes);
  const variants = await makeVariants(image);
  const blobKey = randomBytes(16).toString('hex');
  const widths = variants.map((variant) => variant.width);
  try {
    await deps.driver.put(objectKey(blobKey), image.data);
    await Promise.all(variants.map((variant) => deps.driver.put(variantKey(blobKey, variant.width), variant.data)));
  } catch (error) {
    await deleteBlobs(deps, blobKey, widths);
    throw error;
  }

  const now = new Date();
  const values = {
    bucket: input.bucket,
    path: input.path,
    blobKey,
    generation: now.getTime() * 1000 + Math.floor(Math.random() * 1000),
    size: image.data.length,
    contentType: image.contentType,
    md5Hash: md5Base64(image.data),
    cacheControl: input.metadata.cacheControl ?? null,
    contentDisposition: input.metadata.contentDisposition ?? null,
    contentEncoding: input.metadata.contentEncoding ?? null,
    contentLanguage: input.metadata.contentLanguage ?? null,
    customMetadata: input.metadata.customMetadata ?? {},
    downloadTokens: [randomUUID()],
    width: image.width,
    height: image.height,
    variantWidths: widths,
    createdBy: input.createdBy,
    timeCreated: now,
    updated: now,
  };
  let result: { row: StorageObjectRow; replaced: StorageObjectRow | undefined };
  try {
    result = await runTransaction(
      deps.db,
      async (tx) => {
        const [replaced] = await tx
          .select()
          .from(storageObjects)
          .where(and(eq(storageObjects.bucket, input.bucket), eq(storageObjects.path, input.path)))
          .for('update');
        const [row] = await tx
          .insert(storageObjects)
          .values(values)
          .onConflictDoUpdate({ target: [storageObjects.bucket, storageObjects.path], set: values })
          .returning();
        await withinTransaction?.(tx);
        return { row: row!, replaced };
      },
      { isolationLevel: 'read committed' },
    );
  } catch (error) {
    await deleteBlobs(deps, blobKey, widths);
    throw error;
  }
  if (result.replaced) await deleteBlobs(deps, result.replaced.blobKey, result.replaced.variantWidths);
  return result.row;
}

/** Deletes an object and its bytes; false when there was none. */
export async function deleteObject(deps: StorageDeps, bucket: string, objectPath: string): Promise<boolean> {
  const [row] = await deps.db
    .delete(storageObjects)
    .where(and(eq(storageObjects.bucket, bucket), eq(storageObjects.path, objectPath)))
    .returning();
  if (!row) return false;
  await deleteBlobs(deps, row.blobKey, row.variantWidths);
  return true;
}

/**
 * Deletes an object and its bytes only if it is still the generation that was looked at (a
 * new upload to the same path since is kept); the deleted row, or undefined.
 */
export async function deleteObjectGeneration(deps: StorageDeps, bucket: string, objectPath: string, generation: number): Promise<StorageObjectRow | undefined> {
  const [row] = await deps.db
    .delete(storageObjects)
    .where(and(eq(storageObjects.bucket, bucket), eq(storageObjects.path, objectPath), eq(storageObjects.generation, generation)))
    .returning();
  if (row) await deleteBlobs(deps, row.blobKey, row.variantWidths);
  return row;
}

/** The object when `token` is one of its download tokens (the capability a download URL carries). */
export async function findByToken(db: Db, bucket: string, objectPath: string, token: string | undefined) {
  if (!token) return undefined;
  const row = await findObject(db, bucket, objectPath);
  return row && row.downloadTokens.includes(token) ? row : undefined;
}
