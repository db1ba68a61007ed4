import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './accounts.ts';
import { orders } from './money.ts';

/**
 * The order desk (issue 16): refunds, each once per (order, idempotency key), and the
 * history of every order (who did what, when).
 */
export const REFUND_STATES = ['pending', 'succeeded', 'failed'] as const;

export const orderRefunds = pgTable(
  'order_refund',
  {
    id: text('id').primaryKey(),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id),
    /** The admin's click: a retried or doubled request carries the same key and finds this row. */
    idempotencyKey: text('idempotency_key').notNull(),
    adminId: text('admin_id')
      .notNull()
      .references(() => users.id),
    walletCents: integer('wallet_cents').notNull(),
    cardCents: integer('card_cents').notNull(),
    lines: jsonb('lines').$type<{ lineId: number; quantity: number }[]>().notNull(),
    /** The shipping (and its tax) this refund gives back: it goes back once per order (decision 050). */
    shippingCents: integer('shipping_cents').notNull().default(0),
    status: text('status', { enum: REFUND_STATES }).notNull(),
    providerRefundId: text('provider_refund_id'),
    failure: text('failure'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    completedAt: timestamp('completed_at', { withTimezone: true }),
    /** Card calls made for this refund (each with the same provider key); retried in the background (decision 034). */
    attempts: integer('attempts').notNull().default(0),
    /** Why the last card call got no answer. */
    lastError: text('last_error'),
    /** The next background attempt; null when none is scheduled. */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
    /** Set when the background retries ran out: the admin sees it failed and may retry (same key). */
    gaveUpAt: timestamp('gave_up_at', { withTimezone: true }),
    /** One card call at a time across processes: the holder's lease ends here. */
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    /**
     * Which provider refund the card calls make: 1 is `refund-<id>`, n > 1 `refund-<id>-<n>`. A card
     * refund the provider failed after accepting it (Stripe's `refund.failed`) is final there, so
     * the admin's Retry makes the next round, a new provider refund (decision 034).
     */
    cardRound: integer('card_round').notNull().default(1),
    /** When the wallet part went back through the ledger (once: a card round again does not repeat it). */
    walletRefundedAt: timestamp('wallet_refunded_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('order_refund_key').on(table.orderId, table.idempotencyKey),
    // The shipping goes back once per order (decision 050): the planner checks it under the order's lock, this is the last word.
    uniqueIndex('order_refund_shipping_once')
      .on(table.orderId)
      .where(sql`${table.shippingCents} > 0 AND ${table.status} <> 'failed'`),
    check('order_refund_shipping_within', sql`${table.shippingCents} >= 0 AND ${table.shippingCents} <= ${table.walletCents} + ${table.cardCents}`),
    check('order_refund_amounts', sql`${table.walletCents} >= 0 AND ${table.cardCents} >= 0 AND ${table.walletCents} + ${table.cardCents} > 0`),
  ],
);

export const ORDER_EVENT_KINDS = [
  'created',
  'paid',
  'fulfilled',
  'refund-requested',
  'refunded',
  'refund-failed',
  'provider-refund',
  'refund-gave-up',
  'refund-retried',
  'shipped-part',
  'dispute',
] as const;

export const orderEvents = pgTable(
  'order_event',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ORDER_EVENT_KINDS }).notNull(),
    /** The admin who acted; null for the buyer or the payment provider. */
    actorId: text('actor_id').references(() => users.id),
    detail: jsonb('detail').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('order_event_order_idx').on(table.orderId, table.id)],
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
