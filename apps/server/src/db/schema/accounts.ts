import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * Accounts: Better Auth's tables (user, session, account, verification, rateLimit) with
 * the shop's profile fields on the user row, so an account and its profile are one
 * insert. Column names follow Better Auth's field names.
 */
export const users = pgTable(
  'user',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    email: text('email').notNull().unique(),
    emailVerified: boolean('email_verified').notNull().default(false),
    image: text('image'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    username: text('username').notNull(),
    usernameLower: text('username_lower').notNull(),
    city: text('city').notNull().default(''),
    country: text('country'),
    state: text('state'),
    accountType: text('account_type').notNull().default('Fan'),
    role: text('role').notNull().default('user'),
    deviceToken: text('device_token'),
    lastOperationTime: timestamp('last_operation_time', { withTimezone: true }),
  },
  (table) => [uniqueIndex('user_username_lower_key').on(table.usernameLower)],
);

export const sessions = pgTable(
  'session',
  {
    id: text('id').primaryKey(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    token: text('token').notNull().unique(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    ipAddress: text('ip_address'),
    userAgent: text('user_agent'),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
  },
  (table) => [index('session_user_id_idx').on(table.userId)],
);

export const authAccounts = pgTable(
  'account',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    providerId: text('provider_id').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    accessToken: text('access_token'),
    refreshToken: text('refresh_token'),
    idToken: text('id_token'),
    accessTokenExpiresAt: timestamp('access_token_expires_at', { withTimezone: true }),
    refreshTokenExpiresAt: timestamp('refresh_token_expires_at', { withTimezone: true }),
    scope: text('scope'),
    password: text('password'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('account_user_id_idx').on(table.userId)],
);

export const verifications = pgTable(
  'verification',
  {
    id: text('id').primaryKey(),
    identifier: text('identifier').notNull(),
    value: text('value').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('verification_identifier_idx').on(table.identifier)],
);

/** Better Auth's rate-limit counters, kept in Postgres so limits hold across processes. */
export const authRateLimits = pgTable('rate_limit', {
  id: text('id').primaryKey(),
  key: text('key').notNull().unique(),
  count: integer('count').notNull(),
  lastRequest: bigint('last_request', { mode: 'number' }).notNull(),
});

/** The shop's own fixed-window limits (signup), one atomic upsert per hit. */
export const rateLimitWindows = pgTable('rate_limit_window', {
  key: text('key').primaryKey(),
  count: integer('count').notNull(),
  windowStart: timestamp('window_start', { withTimezone: true }).notNull(),
});

/**
 * Wrong passwords per account (decision 043), keyed by the normalised email whether or not
 * an account has it (the answers tell nothing). An unknown device may try while `failures`
 * is below the free allowance; past it, one try per lock period, doubling. A success or the
 * mailed unlock link (stored as SHA-256) clears the row.
 */
export const signInGuards = pgTable('sign_in_guard', {
  email: text('email').primaryKey(),
  failures: integer('failures').notNull().default(0),
  lastFailureAt: timestamp('last_failure_at', { withTimezone: true }).notNull().defaultNow(),
  lockedUntil: timestamp('locked_until', { withTimezone: true }),
  unlockTokenHash: text('unlock_token_hash').unique(),
  unlockExpiresAt: timestamp('unlock_expires_at', { withTimezone: true }),
});

export const follows = pgTable(
  'follow',
  {
    followerId: text('follower_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    followeeId: text('followee_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.followerId, table.followeeId] }), index('follow_followee_idx').on(table.followeeId)],
);

/** The realtime store's per-user credits and stats (spec section 3), all zero at signup. */
export const userStats = pgTable('user_stats', {
  userId: text('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  credits: integer('credits').notNull().default(0),
  totalSpns: integer('total_spns').notNull().default(0),
  salesSingles: integer('sales_singles').notNull().default(0),
  salesAlbums: integer('sales_albums').notNull().default(0),
  salesVideos: integer('sales_videos').notNull().default(0),
});

/** Items in a creator's catalogue (non-Fan accounts): albums, singles, videos, video albums. */
export const catalogueItems = pgTable(
  'catalogue_item',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['album', 'single', 'video', 'videoalbum'] }).notNull(),
    itemId: text('item_id').notNull(),
    addedAt: timestamp('added_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.userId, table.kind, table.itemId] })],
);

/** The allowed-portal-users list (spec section 6). */
export const portalAllowedUsers = pgTable('portal_allowed_user', {
  userId: text('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
});

/**
 * A shopper's saved shipping addresses (issue 17): each address used at checkout, once
 * (keyed by a hash of its fields), the last used first; at most 10 per user. Deleted
 * with the account.
 */
export const savedAddresses = pgTable(
  'saved_address',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** sha256 of the address's fields: the same address used twice is one row. */
    id: text('id').notNull(),
    address: jsonb('address').$type<Record<string, string>>().notNull(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.userId, table.id] }), index('saved_address_user_used_idx').on(table.userId, table.lastUsedAt)],
);
