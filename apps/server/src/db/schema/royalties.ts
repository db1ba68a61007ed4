import { sql } from 'drizzle-orm';
import { bigint, boolean, check, date, index, integer, jsonb, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './accounts.ts';
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
    /** Its connected payout account at the provider (Stripe Connect `acct_...`); none: its balance accrues (issue 36 part 5). */
    payoutAccountId: text('payout_account_id'),
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
    kind: text('kind', { enum: ['sale', 'return', 'recoup', 'reserve', 'release', 'payout'] }).notNull(),
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

/**
 * An issued statement (issue 36 part 4, decision 077): a party's period (a month or a quarter of
 * the label's days), closed once issued. Its document is the statement as issued and never
 * changes; the entries it counted are listed in royalty_statement_entry, so an entry posted later
 * (a correction dated in the period, a recoup or reserve change) is on the next statement.
 */
export const royaltyStatements = pgTable(
  'royalty_statement',
  {
    id: serial('id').primaryKey(),
    partyId: integer('party_id')
      .notNull()
      .references(() => royaltyParties.id, { onDelete: 'restrict' }),
    periodKind: text('period_kind', { enum: ['month', 'quarter'] }).notNull(),
    /** The label's first day of the period and the day after its last. */
    periodFrom: date('period_from', { mode: 'string' }).notNull(),
    periodTo: date('period_to', { mode: 'string' }).notNull(),
    timeZone: text('time_zone').notNull(),
    /** What it counts up to: the period's end, or the moment it was issued when that came first. */
    cutoffAt: timestamp('cutoff_at', { withTimezone: true }).notNull(),
    openingCents: bigint('opening_cents', { mode: 'number' }).notNull(),
    closingCents: bigint('closing_cents', { mode: 'number' }).notNull(),
    /** The statement as issued (figures, earnings by release and format): read back as it was. */
    document: jsonb('document').notNull(),
    issuedBy: text('issued_by'),
    issuedAt: timestamp('issued_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex('royalty_statement_period_idx').on(table.partyId, table.periodFrom), index('royalty_statement_party_idx').on(table.partyId, table.issuedAt)],
);

/** Which statement counted an entry: each entry on exactly one issued statement. */
export const royaltyStatementEntries = pgTable(
  'royalty_statement_entry',
  {
    entryId: bigint('entry_id', { mode: 'number' })
      .primaryKey()
      .references(() => royaltyEntries.id, { onDelete: 'restrict' }),
    statementId: integer('statement_id')
      .notNull()
      .references(() => royaltyStatements.id, { onDelete: 'restrict' }),
  },
  (table) => [index('royalty_statement_entry_statement_idx').on(table.statementId)],
);

/** A payout run for a period (issue 36 part 5, decision 077): planned once, then its payouts are sent (and resumed). */
export const royaltyPayoutRuns = pgTable(
  'royalty_payout_run',
  {
    id: text('id').primaryKey(),
    periodKind: text('period_kind', { enum: ['month', 'quarter'] }).notNull(),
    periodFrom: date('period_from', { mode: 'string' }).notNull(),
    periodTo: date('period_to', { mode: 'string' }).notNull(),
    /** Earnings up to here are paid: the period's end, or the moment the run was planned when that came first. */
    cutoffAt: timestamp('cutoff_at', { withTimezone: true }).notNull(),
    minimumCents: bigint('minimum_cents', { mode: 'number' }).notNull(),
    createdBy: text('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex('royalty_payout_run_period_idx').on(table.periodKind, table.periodFrom)],
);

/**
 * One party's payout of a run, written (with its ledger entry) before the transfer is asked for;
 * the transfer's idempotency key is derived from its id. `sending` is a claim that lapses at
 * `claimedUntil` (an instance that died mid-call): the next claim asks the provider first.
 */
export const royaltyPayouts = pgTable(
  'royalty_payout',
  {
    id: text('id').primaryKey(),
    runId: text('run_id')
      .notNull()
      .references(() => royaltyPayoutRuns.id, { onDelete: 'restrict' }),
    partyId: integer('party_id')
      .notNull()
      .references(() => royaltyParties.id, { onDelete: 'restrict' }),
    accountId: text('account_id').notNull(),
    amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
    status: text('status', { enum: ['pending', 'sending', 'paid', 'failed'] })
      .notNull()
      .default('pending'),
    attempts: integer('attempts').notNull().default(0),
    claimedUntil: timestamp('claimed_until', { withTimezone: true }),
    transferId: text('transfer_id'),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    settledAt: timestamp('settled_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('royalty_payout_once_idx').on(table.runId, table.partyId),
    index('royalty_payout_status_idx').on(table.runId, table.status),
    check('royalty_payout_positive', sql`${table.amountCents} > 0`),
  ],
);

/**
 * An invitation to a party's portal (issue 36 part 6, decision 080): mailed to an address as a
 * signed link naming this row; accepted once (by the account that opens it signed in), withdrawn
 * by the label, or expired.
 */
export const royaltyInvitations = pgTable(
  'royalty_invitation',
  {
    id: text('id').primaryKey(),
    partyId: integer('party_id')
      .notNull()
      .references(() => royaltyParties.id, { onDelete: 'restrict' }),
    email: text('email').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdBy: text('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    acceptedAt: timestamp('accepted_at', { withTimezone: true }),
    acceptedBy: text('accepted_by').references(() => users.id, { onDelete: 'set null' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (table) => [index('royalty_invitation_party_idx').on(table.partyId, table.createdAt)],
);

/** An account that holds a party (bound by an accepted invitation): it reads that party's portal. */
export const royaltyPartyMembers = pgTable(
  'royalty_party_member',
  {
    partyId: integer('party_id')
      .notNull()
      .references(() => royaltyParties.id, { onDelete: 'restrict' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    invitationId: text('invitation_id')
      .notNull()
      .references(() => royaltyInvitations.id, { onDelete: 'restrict' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.partyId, table.userId] }), index('royalty_party_member_user_idx').on(table.userId)],
);
