import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { products } from './catalog.ts';
import { releases, releaseTracks } from './digital.ts';

/**
 * The label's roster (issue 36 part 1, decision 070): artists as the label's own records, not
 * accounts. Releases, tracks and products name them through the credit tables below; a
 * credit's foreign key refuses to delete an artist anything names (it can only be merged).
 */
export const artists = pgTable(
  'artist',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    /** The page's address, /artist/<slug>; the ones it had before stay in artist_slug and redirect. */
    slug: text('slug').notNull(),
    bio: text('bio').notNull().default(''),
    /** The shop's own image path (an upload), or ''. */
    image: text('image').notNull().default(''),
    links: jsonb('links').$type<{ label: string; url: string }[]>().notNull().default([]),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex('artist_slug_idx').on(table.slug), check('artist_slug_form', sql`${table.slug} ~ '^[a-z0-9]+(-[a-z0-9]+)*$'`)],
);

/** An address an artist had before (a rename or a merge): its page redirects to the artist's current one. */
export const artistSlugs = pgTable(
  'artist_slug',
  {
    slug: text('slug').primaryKey(),
    artistId: integer('artist_id')
      .notNull()
      .references(() => artists.id, { onDelete: 'cascade' }),
  },
  (table) => [index('artist_slug_artist_idx').on(table.artistId)],
);

/** The artists a release names, in credit order. */
export const releaseArtists = pgTable(
  'release_artist',
  {
    releaseId: integer('release_id')
      .notNull()
      .references(() => releases.id, { onDelete: 'cascade' }),
    artistId: integer('artist_id')
      .notNull()
      .references(() => artists.id, { onDelete: 'restrict' }),
    position: integer('position').notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.releaseId, table.artistId] }), index('release_artist_artist_idx').on(table.artistId)],
);

/** The artists a track names beyond its release's (a feature, a remix). */
export const trackArtists = pgTable(
  'track_artist',
  {
    trackId: integer('track_id')
      .notNull()
      .references(() => releaseTracks.id, { onDelete: 'cascade' }),
    artistId: integer('artist_id')
      .notNull()
      .references(() => artists.id, { onDelete: 'restrict' }),
    position: integer('position').notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.trackId, table.artistId] }), index('track_artist_artist_idx').on(table.artistId)],
);

/** The artists a product names (merch, a record that carries a release). */
export const productArtists = pgTable(
  'product_artist',
  {
    productId: text('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    artistId: integer('artist_id')
      .notNull()
      .references(() => artists.id, { onDelete: 'restrict' }),
    position: integer('position').notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.productId, table.artistId] }), index('product_artist_artist_idx').on(table.artistId)],
);
