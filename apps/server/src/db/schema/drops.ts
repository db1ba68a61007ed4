import { sql } from 'drizzle-orm';
import { bigserial, boolean, check, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './accounts.ts';
import { productVariants } from './catalog.ts';

export const DROP_STATUS_VALUES = ['scheduled', 'live', 'sold-out', 'cancelled', 'postponed'] as const;
export const DROP_ENTRY_STATUS_VALUES = ['waiting', 'admitted', 'bought', 'left', 'expired', 'closed'] as const;
/** `pending`: a signed-out notify-me request waiting for its mailed link (issue 37 part 4, decision 076). */
export const WAITLIST_STATUS_VALUES = ['pending', 'waiting', 'offered', 'bought', 'left', 'missed'] as const;

/**
 * A drop (issue 35, decision 066). `seed` stays secret until the start has published
 * `entryListHash`; `seedHash` = SHA-256(seed) is public from scheduling on. `entryCount`
 * numbers the entries in join order (the join's own UPDATE of this row); `preQueueCount` is
 * the count at the start: entries 1..preQueueCount are shuffled, later ones follow in order.
 */
export const drops = pgTable(
  'drop',
  {
    id: text('id').primaryKey(),
    slug: text('slug').notNull(),
    name: text('name').notNull(),
    status: text('status', { enum: DROP_STATUS_VALUES }).notNull().default('scheduled'),
    startsAt: timestamp('starts_at', { withTimezone: true }).notNull(),
    queueOpensAt: timestamp('queue_opens_at', { withTimezone: true }).notNull(),
    perCustomerLimit: integer('per_customer_limit').notNull(),
    admissionsPerMinute: integer('admissions_per_minute').notNull(),
    maxAdmitted: integer('max_admitted').notNull(),
    checkoutWindowSeconds: integer('checkout_window_seconds').notNull(),
    challenge: boolean('challenge').notNull().default(true),
    seed: text('seed').notNull(),
    seedHash: text('seed_hash').notNull(),
    entryListHash: text('entry_list_hash'),
    seedRevealedAt: timestamp('seed_revealed_at', { withTimezone: true }),
    entryCount: integer('entry_count').notNull().default(0),
    preQueueCount: integer('pre_queue_count'),
    /** The highest position admitted so far. */
    nowServing: integer('now_serving').notNull().default(0),
    /** Admission batches so far: each admitted entry records its batch, the report checks their order. */
    batches: integer('batches').notNull().default(0),
    challengeFailures: integer('challenge_failures').notNull().default(0),
    startedAt: timestamp('started_at', { withTimezone: true }),
    soldOutAt: timestamp('sold_out_at', { withTimezone: true }),
    note: text('note'),
    createdBy: text('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('drop_slug_key').on(table.slug),
    index('drop_status_idx').on(table.status, table.startsAt),
    check('drop_limits_positive', sql`${table.perCustomerLimit} > 0 AND ${table.admissionsPerMinute} > 0 AND ${table.maxAdmitted} > 0 AND ${table.checkoutWindowSeconds} > 0`),
    check('drop_queue_before_start', sql`${table.queueOpensAt} < ${table.startsAt}`),
  ],
);

/** The variants sold in a drop; checkout looks a cart's variants up here. */
export const dropItems = pgTable(
  'drop_item',
  {
    dropId: text('drop_id')
      .notNull()
      .references(() => drops.id, { onDelete: 'cascade' }),
    variantId: text('variant_id')
      .notNull()
      .references(() => productVariants.id, { onDelete: 'cascade' }),
  },
  (table) => [primaryKey({ columns: [table.dropId, table.variantId] }), index('drop_item_variant_idx').on(table.variantId)],
);

/**
 * One entry per account and drop, numbered by the database in join order. An admission is
 * the entry in status `admitted` until `expiresAt`, with its signed token; it covers one
 * completed order (status `bought`, set in the order's transaction).
 */
export const dropEntries = pgTable(
  'drop_entry',
  {
    dropId: text('drop_id')
      .notNull()
      .references(() => drops.id, { onDelete: 'cascade' }),
    number: integer('number').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Null for a pre-queue entry until the start shuffles it. */
    position: integer('position'),
    status: text('status', { enum: DROP_ENTRY_STATUS_VALUES }).notNull().default('waiting'),
    joinedAt: timestamp('joined_at', { withTimezone: true }).notNull().defaultNow(),
    admittedAt: timestamp('admitted_at', { withTimezone: true }),
    batch: integer('batch'),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    token: text('token'),
    endedAt: timestamp('ended_at', { withTimezone: true }),
    /** The checkout (card) or order (wallet-only) the admission was used for. */
    checkoutId: text('checkout_id'),
    orderId: text('order_id'),
    unitsBought: integer('units_bought').notNull().default(0),
  },
  (table) => [
    primaryKey({ columns: [table.dropId, table.number] }),
    uniqueIndex('drop_entry_user_key').on(table.dropId, table.userId),
    index('drop_entry_queue_idx').on(table.dropId, table.status, table.position),
  ],
);

/** Proof-of-work challenges already used: each solves one join (decision 066). Kept until they expire. */
export const dropUsedChallenges = pgTable('drop_used_challenge', {
  signature: text('signature').primaryKey(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
});

/**
 * One waitlist per variant (the fans issue's "notify me" is the same list, decision 076). `seq`
 * keeps join order; an offer keeps a returned unit for one fan until `offerExpiresAt`. An entry
 * is an account's (`userId`) or, asked for signed out, an address's (`email`, normalised),
 * `pending` until its mailed link is opened; one entry per variant and account or address.
 */
export const variantWaitlist = pgTable(
  'variant_waitlist',
  {
    seq: bigserial('seq', { mode: 'number' }).primaryKey(),
    variantId: text('variant_id')
      .notNull()
      .references(() => productVariants.id, { onDelete: 'cascade' }),
    userId: text('user_id').references(() => users.id, { onDelete: 'cascade' }),
    /** A signed-out request's address (trimmed, lowercase); null for an account's entry. */
    email: text('email'),
    status: text('status', { enum: WAITLIST_STATUS_VALUES }).notNull().default('waiting'),
    joinedAt: timestamp('joined_at', { withTimezone: true }).notNull().defaultNow(),
    offeredAt: timestamp('offered_at', { withTimezone: true }),
    offerExpiresAt: timestamp('offer_expires_at', { withTimezone: true }),
    endedAt: timestamp('ended_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('variant_waitlist_user_key').on(table.variantId, table.userId),
    uniqueIndex('variant_waitlist_email_key').on(table.variantId, table.email),
    index('variant_waitlist_queue_idx').on(table.variantId, table.status, table.seq),
    check('variant_waitlist_who', sql`(${table.userId} IS NULL) <> (${table.email} IS NULL)`),
  ],
);
