import { sql } from 'drizzle-orm';
import { bigint, check, customType, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from './accounts.ts';

/**
 * Storage objects (spec section 3, "Storage object metadata"). The bytes live behind the
 * storage driver under `blobKey`, a random key: object paths never reach the file system.
 */
export const storageObjects = pgTable(
  'storage_object',
  {
    bucket: text('bucket').notNull(),
    path: text('path').notNull(),
    blobKey: text('blob_key').notNull(),
    generation: bigint('generation', { mode: 'number' }).notNull(),
    size: integer('size').notNull(),
    contentType: text('content_type').notNull(),
    md5Hash: text('md5_hash').notNull(),
    cacheControl: text('cache_control'),
    contentDisposition: text('content_disposition'),
    contentEncoding: text('content_encoding'),
    contentLanguage: text('content_language'),
    customMetadata: jsonb('custom_metadata').$type<Record<string, string>>().notNull().default({}),
    downloadTokens: text('download_tokens').array().notNull(),
    /** Pixel size of the stored image, and the widths of its WebP variants. */
    width: integer('width').notNull(),
    height: integer('height').notNull(),
    variantWidths: integer('variant_widths').array().notNull(),
    createdBy: text('created_by').references(() => users.id, { onDelete: 'set null' }),
    timeCreated: timestamp('time_created', { withTimezone: true }).notNull().defaultNow(),
    updated: timestamp('updated', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.bucket, table.path] })],
);

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

/** A part of a session's S3 multipart upload (decision 022). */
export interface StoredUploadPart {
  partNumber: number;
  etag: string;
  size: number;
}

/**
 * Resumable uploads: the bytes received so far sit in a staging file (local disk) or in
 * the parts of an S3 multipart upload plus a buffer below S3's smallest part size
 * (`storage_upload_pending`); `received` is the offset a resumed upload continues from.
 * A row outlives a dropped connection and is shared by every instance.
 */
export const storageUploadSessions = pgTable(
  'storage_upload_session',
  {
    id: text('id').primaryKey(),
    bucket: text('bucket').notNull(),
    path: text('path').notNull(),
    totalSize: integer('total_size').notNull(),
    /** What the client declared; the stored type comes from the bytes. */
    declaredContentType: text('declared_content_type'),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default({}),
    received: integer('received').notNull().default(0),
    status: text('status', { enum: ['active', 'final', 'canceled', 'failed', 'expired'] })
      .notNull()
      .default('active'),
    /** S3: the multipart upload holding this session's parts (started at the first full part), and those parts. */
    multipartUploadId: text('multipart_upload_id'),
    parts: jsonb('parts').$type<StoredUploadPart[]>().notNull().default([]),
    /** When the bytes of an ended (cancelled, refused, expired) session were deleted. */
    reclaimedAt: timestamp('reclaimed_at', { withTimezone: true }),
    createdBy: text('created_by')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (table) => [
    check('storage_upload_session_received_range', sql`${table.received} >= 0 AND ${table.received} <= ${table.totalSize}`),
    index('storage_upload_session_expires_idx').on(table.expiresAt),
  ],
);

/** S3: received bytes not yet sent as a part (parts must be at least 5 MiB, except the last). */
export const storageUploadPending = pgTable('storage_upload_pending', {
  sessionId: text('session_id')
    .primaryKey()
    .references(() => storageUploadSessions.id, { onDelete: 'cascade' }),
  bytes: bytea('bytes').notNull(),
});
