import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './accounts.ts';
import { products } from './catalog.ts';
import { checkouts } from './money.ts';
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
    source: text('source', { enum: ['checkout', 'signup', 'form', 'account', 'import'] }).notNull(),
    /** The page it was given on (a path of the shop). */
    page: text('page').notNull().default(''),
    requestedAt: timestamp('requested_at', { withTimezone: true }).notNull().defaultNow(),
    givenAt: timestamp('given_at', { withTimezone: true }),
    withdrawnAt: timestamp('withdrawn_at', { withTimezone: true }),
    /** How it was withdrawn: /account, the signed-out page's button, or a mail client's one-click POST. */
    withdrawnBy: text('withdrawn_by', { enum: ['account', 'link', 'one-click'] }),
    /** The name and country an imported file gave (decision 078); an account's own are on the account. */
    name: text('name'),
    country: text('country'),
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

/**
 * The label's audience settings (issue 37 part 7, decision 078): one row. `cartReminderHours`
 * null: no reminder of an unpaid checkout (the default); a number: the hours after the checkout
 * was made when its one reminder goes.
 */
export const audienceSettings = pgTable('audience_settings', {
  id: integer('id').primaryKey().default(1),
  cartReminderHours: integer('cart_reminder_hours'),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * The reminder of an unpaid checkout, claimed once (decision 078): the row is inserted in the
 * transaction that queues its mail, so a checkout is reminded at most once across instances;
 * `sent` false records a checkout looked at and passed over (bought since, a drop, no consent).
 */
export const checkoutReminders = pgTable('checkout_reminder', {
  checkoutId: text('checkout_id')
    .primaryKey()
    .references(() => checkouts.id, { onDelete: 'cascade' }),
  sent: boolean('sent').notNull(),
  reason: text('reason').notNull().default(''),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
