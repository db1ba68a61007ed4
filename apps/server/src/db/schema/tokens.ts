import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, numeric, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from './accounts.ts';

/**
 * The token economy fed by the sister products (spec section 3): DAT assets and the
 * editions users own, token blocks, realtime wallet entries, credit summaries, utility
 * spend, platform metrics and reward tokens. Written through the service API only.
 */
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

/** Sister products' credentials for the service API: only a hash is kept. */
export const serviceTokens = pgTable('service_token', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  tokenHash: text('token_hash').notNull().unique(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  revokedAt: timestamp('revoked_at', { withTimezone: true }),
});

/**
 * Every service write's external id, per token and kind (decision 019): a replay is
 * acknowledged and changes nothing, and one product's ids never silence another's.
 */
export const serviceWrites = pgTable(
  'service_write',
  {
    tokenId: text('token_id').notNull(),
    kind: text('kind').notNull(),
    externalId: text('external_id').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.tokenId, table.kind, table.externalId] })],
);
