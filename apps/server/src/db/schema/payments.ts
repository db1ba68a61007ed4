import { integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/** Provider events already handled: a re-delivered event is acknowledged and ignored. */
export const processedEvents = pgTable(
  'processed_event',
  {
    provider: text('provider').notNull(),
    eventId: text('event_id').notNull(),
    type: text('type').notNull(),
    processedAt: timestamp('processed_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.provider, table.eventId] })],
);

/**
 * The local payment provider's own refunds (decision 034): one row per idempotency key, so a
 * repeated or concurrent call with the same key is the same refund, as Stripe's would be.
 */
export const localRefunds = pgTable('local_refund', {
  idempotencyKey: text('idempotency_key').primaryKey(),
  refundId: text('refund_id').notNull().unique(),
  paymentIntentId: text('payment_intent_id').notNull(),
  amountCents: integer('amount_cents').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
