import { sql } from 'drizzle-orm';
import { bigint, boolean, check, date, index, integer, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { releases } from './digital.ts';
import { artists } from './roster.ts';

/**
 * Royalties (issue 36 parts 2 and 3, decisions 070 and 075): the parties a sale owes a share to,
 * the split rules that say how much, the label's recoupable costs, and the ledger: append-only
 * entries per party, each posted once.
 */

/** Someone a line's net sales are shared with: a roster artist, a producer, the label, another label. */
export const royaltyParties = pgTable(
  'royalty_party',
  {
    id: serial('id').primaryKey(),
    kind: text('kind', { enum: ['artist', 'producer', 'label', 'other-label'] }).notNull(),
    name: text('name').notNull(),
    /** A roster artist's party (one per artist); never deleted while entries name it. */
    artistId: integer('artist_id').references(() => artists.id, { onDelete: 'restrict' }),
    /** The shop's own label: takes what no rule gives away (one row, made by the migration). */
    house: boolean('house').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('royalty_party_artist_idx').on(table.artistId),
    uniqueIndex('royalty_party_house_idx')
      .on(table.house)
      .where(sql`${table.house}`),
  ],
);

/**
 * A split rule: for a release, a product, or an artist's roster default, from a moment on (the
 * label's day it applies from). Never changed once written: a change is a new rule.
 */
export const royaltyRules = pgTable(
  'royalty_rule',
  {
    id: serial('id').primaryKey(),
    subjectKind: text('subject_kind', { enum: ['release', 'product', 'artist'] }).notNull(),
    subjectId: text('subject_id').notNull(),
    /** The start of the label's day the rule applies from. */
    effectiveFrom: timestamp('effective_from', { withTimezone: true }).notNull(),
    /** A reserve for returns: this share of each earning held for `reserveDays` days. */
    reserveBp: integer('reserve_bp').notNull().default(0),
    reserveDays: integer('reserve_days').notNull().default(0),
    createdBy: text('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index('royalty_rule_subject_idx').on(table.subjectKind, table.subjectId, table.effectiveFrom),
    check('royalty_rule_reserve', sql`${table.reserveBp} BETWEEN 0 AND 10000 AND ${table.reserveDays} BETWEEN 0 AND 3650`),
  ],
);

/** A party's share of a rule, in basis points (a rule's shares sum to 10 000). */
export const royaltyRuleShares = pgTable(
  'royalty_rule_share',
  {
    ruleId: integer('rule_id')
      .notNull()
      .references(() => royaltyRules.id, { onDelete: 'cascade' }),
    partyId: integer('party_id')
      .notNull()
      .references(() => royaltyParties.id, { onDelete: 'restrict' }),
    position: integer('position').notNull(),
    shareBp: integer('share_bp').notNull(),
  },
  (table) => [primaryKey({ columns: [table.ruleId, table.partyId] }), check('royalty_rule_share_bp', sql`${table.shareBp} BETWEEN 1 AND 10000`)],
);

/** A recoupable cost of a release (pressing, advance, marketing), taken from a party's earnings of it. */
export const royaltyCosts = pgTable(
  'royalty_cost',
  {
    id: serial('id').primaryKey(),
    releaseId: integer('release_id')
      .notNull()
      .references(() => releases.id, { onDelete: 'restrict' }),
    partyId: integer('party_id')
      .notNull()
      .references(() => royaltyParties.id, { onDelete: 'restrict' }),
    kind: text('kind', { enum: ['pressing', 'advance', 'marketing'] }).notNull(),
    amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
    note: text('note').notNull().default(''),
    createdBy: text('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('royalty_cost_release_idx').on(table.releaseId, table.partyId), check('royalty_cost_positive', sql`${table.amountCents} > 0`)],
);

/**
 * A sold line's slice: the whole line, or one part of a bundle line, or one credited artist's
 * part of a line that takes their roster defaults; its net sales and the rule it was sold under
 * (null: the label takes all). Written once with the sale; refunds reverse under it.
 */
export const royaltySlices = pgTable(
  'royalty_slice',
  {
    orderId: text('order_id').notNull(),
    position: integer('position').notNull(),
    part: integer('part').notNull(),
    productId: text('product_id').notNull(),
    releaseId: integer('release_id'),
    ruleId: integer('rule_id').references(() => royaltyRules.id, { onDelete: 'restrict' }),
    netCents: bigint('net_cents', { mode: 'number' }).notNull(),
    soldAt: timestamp('sold_at', { withTimezone: true }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.orderId, table.position, table.part] })],
);

/**
 * The ledger: append-only, one row per source event, slice, party and kind (the unique key
 * makes a second posting of the same event a no-op). `earnedAt` is when the sales overview
 * counts the event (the order placed, the refund given, the dispute lost); `availableOn` the
 * label's day a reserve is released.
 */
export const royaltyEntries = pgTable(
  'royalty_entry',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    partyId: integer('party_id')
      .notNull()
      .references(() => royaltyParties.id, { onDelete: 'restrict' }),
    kind: text('kind', { enum: ['sale', 'return', 'recoup', 'reserve', 'release'] }).notNull(),
    source: text('source').notNull(),
    orderId: text('order_id').notNull(),
    position: integer('position').notNull(),
    part: integer('part').notNull(),
    releaseId: integer('release_id'),
    productId: text('product_id').notNull(),
    ruleId: integer('rule_id'),
    amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
    earnedAt: timestamp('earned_at', { withTimezone: true }).notNull(),
    availableOn: date('available_on', { mode: 'string' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('royalty_entry_once_idx').on(table.source, table.orderId, table.position, table.part, table.partyId, table.kind),
    index('royalty_entry_party_idx').on(table.partyId, table.earnedAt),
    index('royalty_entry_order_idx').on(table.orderId, table.position, table.part),
  ],
);
