import { index, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from './accounts.ts';

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
