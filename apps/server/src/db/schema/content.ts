import { date, integer, jsonb, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';

/** The label's editable pages (about, privacy, home gallery): loaded from content/ by the seed. */
export const contentPages = pgTable('content_pages', {
  slug: text('slug').primaryKey(),
  title: text('title').notNull(),
  body: jsonb('body').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** The History page's dated releases, one row each so the timeline can be listed and paged. */
export const timelineEntries = pgTable('timeline_entries', {
  id: serial('id').primaryKey(),
  releasedOn: date('released_on').notNull(),
  year: integer('year').notNull(),
  title: text('title').notNull(),
  format: text('format').notNull(),
  note: text('note').notNull().default(''),
});

/** One row per seeder that has run, so a restart never seeds twice. */
export const seedRuns = pgTable('seed_runs', {
  name: text('name').primaryKey(),
  ranAt: timestamp('ran_at', { withTimezone: true }).notNull().defaultNow(),
});
