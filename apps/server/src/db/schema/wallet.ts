import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, numeric, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './accounts.ts';

/**
 * The wallet: a wallet per user (available and held cents, never negative) and an append-only
 * ledger whose sums equal those balances; then the token economy fed by the sister products
 * (spec section 3): DAT assets and the editions users own, token blocks, realtime wallet
 * entries, credit summaries, utility spend, platform metrics and reward tokens, written
 * through the service API only.
 */
export const wallets = pgTable(
  'wallet',
  {
    userId: text('user_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'restrict' }),
    balanceCents: bigint('balance_cents', { mode: 'number' }).notNull().default(0),
    heldCents: bigint('held_cents', { mode: 'number' }).notNull().default(0),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [check('wallet_balance_not_negative', sql`${table.balanceCents} >= 0`), check('wallet_held_not_negative', sql`${table.heldCents} >= 0`)],
);

export const LEDGER_KINDS = ['grant', 'debit', 'hold', 'capture', 'release', 'refund'] as const;

export const ledgerEntries = pgTable(
  'ledger_entry',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    userId: text('user_id')
      .notNull()
      .references(() => wallets.userId, { onDelete: 'restrict' }),
    kind: text('kind', { enum: LEDGER_KINDS }).notNull(),
    /** Change of the available balance. */
    availableDeltaCents: bigint('available_delta_cents', { mode: 'number' }).notNull(),
    /** Change of the held amount. */
    heldDeltaCents: bigint('held_delta_cents', { mode: 'number' }).notNull().default(0),
    /** What the entry belongs to: an order, a checkout, a grant's external id. */
    reference: text('reference').notNull(),
    note: text('note').notNull().default(''),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index('ledger_user_idx').on(table.userId, table.id),
    // One entry of a kind per reference: a retried capture or release is a no-op.
    uniqueIndex('ledger_kind_reference_key').on(table.kind, table.reference),
  ],
);

export const datAssets = pgTable(
  'dat_asset',
  {
    id: text('id').primaryKey(),
    creatorId: text('creator_id').notNull(),
    creatorUsername: text('creator_username').notNull(),
    songName: text('song_name').notNull(),
    artistName: text('artist_name').notNull(),
    artworkUrl: text('artwork_url').notNull(),
    releasedAt: timestamp('released_at', { withTimezone: true }).notNull(),
  },
  (table) => [index('dat_asset_released_idx').on(table.releasedAt.desc())],
);

export const datEditions = pgTable(
  'dat_edition',
  {
    assetId: text('asset_id')
      .notNull()
      .references(() => datAssets.id, { onDelete: 'cascade' }),
    edition: integer('edition').notNull(),
    ownerId: text('owner_id').references(() => users.id, { onDelete: 'set null' }),
    sold: integer('sold').notNull().default(0),
    royaltiesCents: bigint('royalties_cents', { mode: 'number' }).notNull().default(0),
    earningsCents: bigint('earnings_cents', { mode: 'number' }).notNull().default(0),
    /** The highest lifetime figure already attributed in `dat_earning` (decision 019). */
    earningsCountedCents: bigint('earnings_counted_cents', { mode: 'number' }).notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.assetId, table.edition] }), check('dat_edition_positive', sql`${table.edition} >= 1`), index('dat_edition_owner_idx').on(table.ownerId)],
);

export const tokenBlocks = pgTable('token_block', {
  id: text('id').primaryKey(),
  priceCents: bigint('price_cents', { mode: 'number' }).notNull(),
  platformRemaining: bigint('platform_remaining', { mode: 'number' }).notNull(),
  sellQty: bigint('sell_qty', { mode: 'number' }).notNull(),
  walletId: text('wallet_id').notNull(),
});

/** One realtime wallet entry of a user (datchainwallets/{uid}). */
export const walletEntries = pgTable(
  'wallet_entry',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    entryId: text('entry_id').notNull(),
    priceCents: bigint('price_cents', { mode: 'number' }).notNull().default(0),
    qty: numeric('qty', { mode: 'number' }).notNull().default(0),
    rewards: numeric('rewards', { mode: 'number' }).notNull().default(0),
    rebate: numeric('rebate', { mode: 'number' }).notNull().default(0),
    internalRebate: numeric('internal_rebate', { mode: 'number' }).notNull().default(0),
    internalRewards: numeric('internal_rewards', { mode: 'number' }).notNull().default(0),
    rewardsTokens: numeric('rewards_tokens', { mode: 'number' }).notNull().default(0),
    rebates: numeric('rebates', { mode: 'number' }).notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.userId, table.entryId] })],
);

/** currentCreditsStrings / earnedCreditsStrings, parsed once on the way in. */
export const creditSummaries = pgTable('credit_summary', {
  userId: text('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  currentCredits: numeric('current_credits', { mode: 'number' }).notNull().default(0),
  earnedCredits: numeric('earned_credits', { mode: 'number' }).notNull().default(0),
  streamEarningsCents: bigint('stream_earnings_cents', { mode: 'number' }).notNull().default(0),
  salesEarningsCents: bigint('sales_earnings_cents', { mode: 'number' }).notNull().default(0),
});

export const utilitySpend = pgTable('utility_spend', {
  userId: text('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  totalCents: bigint('total_cents', { mode: 'number' }).notNull().default(0),
  awarded: integer('awarded').notNull().default(0),
});

export const rewardTokenWallets = pgTable('reward_token_wallet', {
  userId: text('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  qty: numeric('qty', { mode: 'number' }).notNull().default(0),
});

/** metrics/utilitySold/totalCents, metrics/datToken/poolCents, metrics/datToken/circulating. */
export const platformMetrics = pgTable('platform_metric', {
  key: text('key', { enum: ['utilitySold.totalCents', 'datToken.poolCents', 'datToken.circulating'] }).primaryKey(),
  value: bigint('value', { mode: 'number' }).notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
