import { sql } from 'drizzle-orm';
import { bigint, boolean, check, date, index, integer, pgTable, primaryKey, serial, text, timestamp, unique, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './accounts.ts';

/**
 * Digital releases (issue 28, decisions 056-057): an album, EP or single with its tracks,
 * each track's lossless master (a storage object under `masters/`) and the files the
 * encoding job made from it; download codes; and what each fan owns.
 */
export const releases = pgTable(
  'release',
  {
    id: serial('id').primaryKey(),
    kind: text('kind', { enum: ['album', 'ep', 'single'] }).notNull(),
    title: text('title').notNull(),
    artist: text('artist').notNull(),
    releaseDate: date('release_date').notNull(),
    /** The shop's own image path (an upload under products/ or content/), or ''. */
    artwork: text('artwork').notNull().default(''),
    credits: text('credits').notNull().default(''),
    upc: text('upc'),
    priceCents: bigint('price_cents', { mode: 'number' }).notNull(),
    /** "Name your price": a fan pays at least priceCents, more if they like. */
    nameYourPrice: boolean('name_your_price').notNull().default(false),
    /** The preview's length in seconds; null streams the full track (the label's choice). */
    previewSeconds: integer('preview_seconds').default(30),
    published: boolean('published').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    check('release_price_not_negative', sql`${table.priceCents} >= 0`),
    check('release_preview_range', sql`${table.previewSeconds} IS NULL OR ${table.previewSeconds} BETWEEN 5 AND 120`),
  ],
);

export const releaseTracks = pgTable(
  'release_track',
  {
    id: serial('id').primaryKey(),
    releaseId: integer('release_id')
      .notNull()
      .references(() => releases.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    title: text('title').notNull(),
    isrc: text('isrc'),
    lyrics: text('lyrics').notNull().default(''),
    /** Sold alone at this price; null: album only. */
    priceCents: bigint('price_cents', { mode: 'number' }),
    /** The master's storage path and the generation that was encoded (a new upload is a new generation). */
    masterPath: text('master_path'),
    masterGeneration: bigint('master_generation', { mode: 'number' }),
    durationSeconds: integer('duration_seconds'),
    /** The duration the release page shows when the label sets one; null shows the encoded master's. */
    shownDurationSeconds: integer('shown_duration_seconds'),
    /** "Name your price" for the track sold alone: a fan pays at least priceCents. */
    nameYourPrice: boolean('name_your_price').notNull().default(false),
    encodeStatus: text('encode_status', { enum: ['none', 'queued', 'encoding', 'ready', 'failed'] })
      .notNull()
      .default('none'),
    /** Formats done of AUDIO_FORMATS, for the console's progress. */
    encodeDone: integer('encode_done').notNull().default(0),
    encodeAttempts: integer('encode_attempts').notNull().default(0),
    encodeError: text('encode_error'),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('release_track_position_idx').on(table.releaseId, table.position),
    check('release_track_price_not_negative', sql`${table.priceCents} IS NULL OR ${table.priceCents} >= 0`),
    check('release_track_shown_duration_range', sql`${table.shownDurationSeconds} IS NULL OR ${table.shownDurationSeconds} BETWEEN 1 AND 86400`),
  ],
);

/** One encoded file of a track's master generation, behind the storage driver at `key`. */
export const trackFiles = pgTable(
  'track_file',
  {
    trackId: integer('track_id')
      .notNull()
      .references(() => releaseTracks.id, { onDelete: 'cascade' }),
    format: text('format').notNull(),
    masterGeneration: bigint('master_generation', { mode: 'number' }).notNull(),
    key: text('key').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    contentType: text('content_type').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.trackId, table.format] })],
);

/** Single-use download codes (cards in a vinyl sleeve): redeemed at most once, by one account. */
export const downloadCodes = pgTable(
  'download_code',
  {
    code: text('code').primaryKey(),
    releaseId: integer('release_id')
      .notNull()
      .references(() => releases.id, { onDelete: 'cascade' }),
    batch: text('batch').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    redeemedBy: text('redeemed_by').references(() => users.id, { onDelete: 'set null' }),
    redeemedAt: timestamp('redeemed_at', { withTimezone: true }),
  },
  (table) => [index('download_code_release_idx').on(table.releaseId, table.createdAt)],
);

/**
 * What a fan owns: a whole release (trackId null) or one track, from a purchase, a code or
 * a physical product that carries the release. One row per thing owned per source.
 */
export const digitalOwnership = pgTable(
  'digital_ownership',
  {
    id: serial('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    releaseId: integer('release_id')
      .notNull()
      .references(() => releases.id, { onDelete: 'cascade' }),
    trackId: integer('track_id').references(() => releaseTracks.id, { onDelete: 'cascade' }),
    source: text('source', { enum: ['purchase', 'code', 'bundle'] }).notNull(),
    /** The order id or the code. */
    sourceRef: text('source_ref').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    unique('digital_ownership_once').on(table.userId, table.releaseId, table.trackId, table.source, table.sourceRef).nullsNotDistinct(),
    index('digital_ownership_user_idx').on(table.userId, table.releaseId),
  ],
);

/**
 * Catalogue products that sell a release (or one track) as files, or carry it ("LP + instant
 * download"): an order of the product grants the release to its buyer. The product itself,
 * its price and stock are the catalogue's; this row is only the link.
 */
export const releaseProducts = pgTable(
  'release_product',
  {
    productId: text('product_id').primaryKey(),
    releaseId: integer('release_id')
      .notNull()
      .references(() => releases.id, { onDelete: 'cascade' }),
    /** No foreign key: when a track is removed, the next sync finds its link and withdraws the product. */
    trackId: integer('track_id'),
    kind: text('kind', { enum: ['sale', 'bundle'] }).notNull(),
  },
  (table) => [index('release_product_release_idx').on(table.releaseId)],
);
