import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './accounts.ts';
import { products } from './catalog.ts';
import { checkouts } from './checkout.ts';
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

export const ANNOUNCEMENT_STATUS_VALUES = ['draft', 'sending', 'paused', 'cancelled', 'sent'] as const;
/**
 * A recipient's state (decision 079): `queued` waits; `sending` is claimed (committed) before the
 * mail is handed to SMTP; then `sent`, `failed` (the SMTP server refused it), `bounced` (a
 * permanent refusal of the address) or `unknown` (a crash, or a lost connection, left its fate
 * unknown: listed in the report, never sent again). `skipped`: not sent (consent withdrawn or the
 * address suppressed before its turn, or the announcement cancelled).
 */
export const RECIPIENT_STATE_VALUES = ['queued', 'sending', 'sent', 'failed', 'bounced', 'unknown', 'skipped'] as const;

/**
 * An announcement the label writes in the console (issue 37 part 3, decision 079), sent to the
 * consenting followers of the label or of chosen artists. `linkPath` and `linkTitle` are the
 * release, product or drop it links to, resolved when saved.
 */
export const announcements = pgTable(
  'announcement',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    subject: text('subject').notNull(),
    body: text('body').notNull(),
    /** The shop's own image path (an upload checked by its bytes), or ''. */
    image: text('image').notNull().default(''),
    linkKind: text('link_kind', { enum: ['release', 'product', 'drop'] }),
    linkId: text('link_id'),
    linkTitle: text('link_title').notNull().default(''),
    linkPath: text('link_path').notNull().default(''),
    /** The audience: the label's followers (and its news subscribers without an account), and/or these artists' followers. */
    toLabel: boolean('to_label').notNull().default(true),
    artistIds: integer('artist_ids')
      .array()
      .notNull()
      .default(sql`'{}'::integer[]`),
    status: text('status', { enum: ANNOUNCEMENT_STATUS_VALUES }).notNull().default('draft'),
    /** An automatic announcement's event (`drop-scheduled:<id>`, ...): one announcement per event, whatever repeats it. Null: written by the label. */
    automaticKey: text('automatic_key'),
    createdBy: text('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (table) => [index('announcement_status_idx').on(table.status), uniqueIndex('announcement_automatic_key_idx').on(table.automaticKey)],
);

/**
 * One row per recipient of an announcement (decision 079): the primary key makes a fan at most
 * one mail per announcement, across instances. A sender claims rows (`sending`, with its
 * session as `claimedBy`, committed) before it hands them to SMTP.
 */
export const announcementRecipients = pgTable(
  'announcement_recipient',
  {
    announcementId: bigint('announcement_id', { mode: 'number' })
      .notNull()
      .references(() => announcements.id, { onDelete: 'cascade' }),
    /** Normalised (trimmed, lowercase), as consent keeps it. */
    email: text('email').notNull(),
    seq: bigint('seq', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    name: text('name').notNull().default(''),
    state: text('state', { enum: RECIPIENT_STATE_VALUES }).notNull().default('queued'),
    claimedBy: text('claimed_by'),
    claimedAt: timestamp('claimed_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    detail: text('detail').notNull().default(''),
  },
  (table) => [
    primaryKey({ columns: [table.announcementId, table.email] }),
    index('announcement_recipient_state_idx').on(table.announcementId, table.state, table.seq),
    // The claims in flight, for the sweep that finds those of a dead sender.
    index('announcement_recipient_sending_idx')
      .on(table.claimedBy)
      .where(sql`${table.state} = 'sending'`),
    check('announcement_recipient_claimed', sql`${table.state} <> 'sending' OR ${table.claimedBy} IS NOT NULL`),
  ],
);

export const AUTOMATIC_KINDS = ['release-live', 'preorder-open', 'drop-scheduled'] as const;

/** The automatic announcements the label turned on (decision 079): a row per kind; absent is off. */
export const announcementAutomations = pgTable('announcement_automation', {
  kind: text('kind', { enum: AUTOMATIC_KINDS }).primaryKey(),
  enabled: boolean('enabled').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
