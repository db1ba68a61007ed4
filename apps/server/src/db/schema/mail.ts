import { sql } from 'drizzle-orm';
import { integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Addresses that refused mail for good (issue 37 part 2: a hard bounce, a permanent SMTP
 * refusal of the recipient): marketing mail is not sent to them again. Order, account and
 * download mail ignores this list.
 */
export const mailSuppressions = pgTable('mail_suppression', {
  email: text('email').primaryKey(),
  reason: text('reason').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Mail kept by the dev mailbox when no SMTP server is configured (never in production). */
export const devMailbox = pgTable('dev_mailbox', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  to: text('to').notNull(),
  subject: text('subject').notNull(),
  text: text('text').notNull(),
  html: text('html').notNull(),
  sentAt: timestamp('sent_at', { withTimezone: true })
    .notNull()
    .default(sql`now()`),
});
