import { pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

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
