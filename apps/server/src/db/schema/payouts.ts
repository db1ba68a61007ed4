import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from './accounts.ts';

/** A creator's payout account at the payment provider: one per user. */
export const payoutAccounts = pgTable('payout_account', {
  userId: text('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  provider: text('provider').notNull(),
  providerAccountId: text('provider_account_id').notNull().unique(),
  payoutsEnabled: boolean('payouts_enabled').notNull().default(false),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Cash-out requests; their sum can never exceed what the user earned. */
export const payoutRequests = pgTable(
  'payout_request',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => payoutAccounts.userId),
    amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
    status: text('status', { enum: ['requested', 'paid', 'failed'] })
      .notNull()
      .default('requested'),
    providerTransferId: text('provider_transfer_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    settledAt: timestamp('settled_at', { withTimezone: true }),
  },
  (table) => [check('payout_amount_positive', sql`${table.amountCents} > 0`), index('payout_request_user_idx').on(table.userId, table.createdAt.desc())],
);

/**
 * The local provider's transfers (tests and offline use): one row per transfer it made, with how
 * many times it was asked for it. As Stripe, a key seen within its window answers with the same
 * transfer; after the window a call makes a new one.
 */
export const localTransfers = pgTable(
  'local_transfer',
  {
    transferId: text('transfer_id').primaryKey(),
    idempotencyKey: text('idempotency_key').notNull(),
    requestId: text('request_id').notNull(),
    transferGroup: text('transfer_group'),
    accountId: text('account_id').notNull(),
    amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
    asked: integer('asked').notNull().default(1),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('local_transfer_key_idx').on(table.idempotencyKey, table.createdAt), index('local_transfer_request_idx').on(table.requestId)],
);

/**
 * What each edition earned, attributed to its owner at the time (decision 019): a rise of
 * an edition's lifetime figure is one row for whoever owned it then. Append-only, and
 * independent of the edition row: a later owner never inherits it, and payouts are
 * measured against it.
 */
export const datEarnings = pgTable(
  'dat_earning',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    ownerId: text('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    assetId: text('asset_id').notNull(),
    edition: integer('edition').notNull(),
    cents: bigint('cents', { mode: 'number' }).notNull(),
    /** The service write that reported it: `<token id>:<kind>:<external id>`. */
    reference: text('reference').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [check('dat_earning_positive', sql`${table.cents} > 0`), index('dat_earning_owner_idx').on(table.ownerId)],
);
