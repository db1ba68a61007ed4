import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './accounts.ts';
import { products } from './catalog.ts';
import { artists } from './roster.ts';

/**
 * A fan's follow of the label or of one roster artist (issue 37 part 1, decision 074). Artists
 * are not accounts, so these are kept apart from `follows` (the label's accounts followed at
 * signup, which the sister products read). `artist_id` null: the label. One row per fan and
 * target; deleting the account or the artist removes it.
 */
export const fanFollows = pgTable(
  'fan_follow',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    artistId: integer('artist_id').references(() => artists.id, { onDelete: 'cascade' }),
    /** How it was made: 'button' (a page or /account) or 'purchase' (an order, with its box ticked). */
    source: text('source', { enum: ['button', 'purchase'] }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex('fan_follow_target_idx').on(table.userId, sql`coalesce(${table.artistId}, 0)`), index('fan_follow_artist_idx').on(table.artistId)],
);

/**
 * Marketing consent (issue 37 part 2, decision 074), kept apart from orders: one row per
 * address (normalised: trimmed, lowercase), with when, how (`source`) and from which page it
 * was given, and when it was withdrawn. `pending` waits for the mailed link of the public
 * sign-up form (double opt-in); only `given` may receive marketing mail.
 */
export const marketingConsents = pgTable(
  'marketing_consent',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    email: text('email').notNull(),
    /** The account it belongs to, if any (deleting the account removes the row). */
    userId: text('user_id').references(() => users.id, { onDelete: 'cascade' }),
    status: text('status', { enum: ['pending', 'given', 'withdrawn'] }).notNull(),
    /** How it was given: the checkout's box, the signup's, the public form (confirmed by mail), or /account. */
    source: text('source', { enum: ['checkout', 'signup', 'form', 'account'] }).notNull(),
    /** The page it was given on (a path of the shop). */
    page: text('page').notNull().default(''),
    requestedAt: timestamp('requested_at', { withTimezone: true }).notNull().defaultNow(),
    givenAt: timestamp('given_at', { withTimezone: true }),
    withdrawnAt: timestamp('withdrawn_at', { withTimezone: true }),
    /** How it was withdrawn: /account, the signed-out page's button, or a mail client's one-click POST. */
    withdrawnBy: text('withdrawn_by', { enum: ['account', 'link', 'one-click'] }),
  },
  (table) => [uniqueIndex('marketing_consent_email_idx').on(table.email), index('marketing_consent_user_idx').on(table.userId)],
);

/**
 * A signed-in fan's wishlist (issue 37 part 5, decision 076): one row per fan and product.
 * `seenAvailable` is whether the product could be bought (in stock, or open for preorder) when
 * last looked at; a row that sees it become available is told once (`toldAt`), to a consenting fan.
 */
export const wishlistItems = pgTable(
  'wishlist_item',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    productId: text('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    seenAvailable: boolean('seen_available').notNull().default(true),
    toldAt: timestamp('told_at', { withTimezone: true }),
  },
  (table) => [primaryKey({ columns: [table.userId, table.productId] }), index('wishlist_item_product_idx').on(table.productId)],
);
