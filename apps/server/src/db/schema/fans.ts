import { sql } from 'drizzle-orm';
import { bigint, index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './accounts.ts';
import { artists } from './roster.ts';

/**
 * A fan's follow of the label or of one roster artist (issue 37 part 1, decision 074). Artists
 * are not accounts, so these are kept apart from `follows` (the label's accounts followed at
 * signup, which the sister products read). `artist_id` null: the label. One row per fan and
 * target; deleting the account or the artist removes it.
 */
export const fanFollows = pgTable(
  'fan_follow',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    artistId: integer('artist_id').references(() => artists.id, { onDelete: 'cascade' }),
    /** How it was made: 'button' (a page or /account) or 'purchase' (an order, with its box ticked). */
    source: text('source', { enum: ['button', 'purchase'] }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex('fan_follow_target_idx').on(table.userId, sql`coalesce(${table.artistId}, 0)`), index('fan_follow_artist_idx').on(table.artistId)],
);
