import { date, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from './accounts.ts';

export const PREORDER_NOTICE_KINDS = ['released', 'moved'] as const;

/**
 * The preorder mails sent (decision 054): one row per buyer, item, kind and date, written in the
 * transaction that queues the mail, so a second worker, a re-run or a restart finds the row and
 * sends nothing more. `itemId` is the product (or the variant whose own date it is).
 */
export const preorderNotices = pgTable(
  'preorder_notice',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    itemId: text('item_id').notNull(),
    kind: text('kind', { enum: PREORDER_NOTICE_KINDS }).notNull(),
    /** The street date the mail announced (a moved date: the new one). */
    shipsOn: date('ships_on', { mode: 'string' }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.userId, table.itemId, table.kind, table.shipsOn] })],
);
