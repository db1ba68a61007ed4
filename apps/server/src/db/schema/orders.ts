import { sql } from 'drizzle-orm';
import { type AnyPgColumn, bigint, boolean, check, date, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './accounts.ts';
import type { BundlePart } from '@storefront/domain/bundles.ts';

/** Orders: an order, its lines and parcels, the desk's search terms, its refunds and its history. */

/** The text the desk's search matches (the same expression as its index). */
export function orderSearchText(table: { contact: AnyPgColumn; shipping: AnyPgColumn }) {
  return sql`lower(coalesce(${table.contact}->>'email', '') || ' ' || coalesce(${table.contact}->>'name', '') || ' ' || coalesce(${table.shipping}->>'name', ''))`;
}

export const orders = pgTable(
  'order',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    /** Unique: a retried or re-delivered checkout can never make a second order. */
    checkoutId: text('checkout_id').notNull().unique(),
    paymentIntentId: text('payment_intent_id').notNull().unique(),
    subtotalCents: bigint('subtotal_cents', { mode: 'number' }).notNull(),
    shippingCents: bigint('shipping_cents', { mode: 'number' }).notNull(),
    taxCents: bigint('tax_cents', { mode: 'number' }).notNull(),
    walletAppliedCents: bigint('wallet_applied_cents', { mode: 'number' }).notNull(),
    chargedCents: bigint('charged_cents', { mode: 'number' }).notNull(),
    /** Issue 26 (decision 051): the tax line's jurisdiction, tax inside VAT-inclusive prices, the shipping method, the Stripe Tax transaction. */
    taxJurisdiction: text('tax_jurisdiction').notNull().default(''),
    taxIncludedCents: bigint('tax_included_cents', { mode: 'number' }).notNull().default(0),
    shippingMethod: text('shipping_method'),
    taxCalculationId: text('tax_calculation_id'),
    taxTransactionId: text('tax_transaction_id'),
    /** The tax added on the shipping, at the order's own rate (decision 060); null on orders made before it (9.25%). */
    shippingTaxCents: bigint('shipping_tax_cents', { mode: 'number' }),
    /** Taken off the subtotal by a discount code (issue 27): the goods paid are subtotal - discount. */
    discountCents: bigint('discount_cents', { mode: 'number' }).notNull().default(0),
    discountCode: text('discount_code'),
    contact: jsonb('contact').$type<{ name: string; email: string; phone: string }>().notNull(),
    shipping: jsonb('shipping').$type<Record<string, string>>().notNull(),
    orderFulfilled: boolean('order_fulfilled').notNull().default(false),
    orderStatus: text('order_status'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    fulfilledAt: timestamp('fulfilled_at', { withTimezone: true }),
    /** Given back so far, per part (decision 028); checked never to exceed what the part paid. */
    refundedWalletCents: integer('refunded_wallet_cents').notNull().default(0),
    refundedCardCents: integer('refunded_card_cents').notNull().default(0),
    refundStatus: text('refund_status', { enum: ['partially_refunded', 'refunded'] }),
    carrier: text('carrier'),
    trackingNumber: text('tracking_number'),
    /** A card dispute (Stripe's charge.dispute.*, decision 075): its id, status, amount, and when it closed. A lost one is a return. */
    disputeId: text('dispute_id'),
    disputeStatus: text('dispute_status'),
    disputeAmountCents: bigint('dispute_amount_cents', { mode: 'number' }),
    disputeClosedAt: timestamp('dispute_closed_at', { withTimezone: true }),
  },
  (table) => [
    check('order_refunded_wallet_within_paid', sql`${table.refundedWalletCents} BETWEEN 0 AND ${table.walletAppliedCents}`),
    check('order_refunded_card_within_paid', sql`${table.refundedCardCents} BETWEEN 0 AND ${table.chargedCents}`),
    // Both lists read newest first, id breaking ties: ORDER BY created_at DESC, id DESC. The
    // index must match it exactly (DESC sorts nulls first), or Postgres sorts every row.
    index('order_user_created_idx').on(table.userId, table.createdAt.desc().nullsFirst(), table.id.desc().nullsFirst()),
    // The order desk's search (issue 16): buyer email, contact and ship-to names in one
    // lowercase text, matched by trigrams (migration 0013 creates pg_trgm).
    // The search text's exact value, for the terms the trigram index of `order_search_term` found (decision 034).
    index('order_search_text_idx').on(orderSearchText(table)),
    index('order_fulfilled_created_idx')
      .on(table.createdAt.desc().nullsFirst(), table.id.desc().nullsFirst())
      .where(sql`${table.orderFulfilled} = true`),
    index('order_refunded_created_idx')
      .on(table.createdAt.desc().nullsFirst(), table.id.desc().nullsFirst())
      .where(sql`${table.refundStatus} IS NOT NULL`),
    index('order_all_created_idx').on(table.createdAt.desc().nullsFirst(), table.id.desc().nullsFirst()),
    index('order_open_created_idx')
      .on(table.createdAt.desc().nullsFirst(), table.id.desc().nullsFirst())
      .where(sql`${table.orderFulfilled} = false`),
  ],
);

export const orderItems = pgTable(
  'order_item',
  {
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    productId: text('product_id').notNull(),
    /** The variant bought (issue 15); null on orders made before variants. */
    variantId: text('variant_id'),
    name: text('name').notNull(),
    qty: integer('qty').notNull(),
    unitCents: bigint('unit_cents', { mode: 'number' }).notNull(),
    /**
     * The line's tax basis (decision 060): what the whole line paid for its goods after any discount,
     * and the tax added on top of it at the order's own rate (0 where prices include tax). A refund
     * of some units gives back their share of both. Null on orders made before it: list price and 9.25%.
     */
    paidCents: bigint('paid_cents', { mode: 'number' }),
    taxCents: bigint('tax_cents', { mode: 'number' }),
    /** A preorder line (decision 054): the street date it was bought for (moved with the label's date); null: in stock. */
    shipsOn: date('ships_on', { mode: 'string' }),
    /** When the release job made this preorder line ordinary (its buyer was mailed "it's out"). */
    releasedAt: timestamp('released_at', { withTimezone: true }),
    /** The parcel this line left in (a split shipment, decision 054); null: not shipped yet. */
    shipmentId: text('shipment_id'),
    /** A digital line (issue 28): files in the buyer's library, never on a packing list. */
    digital: boolean('digital').notNull().default(false),
    /** A bundle line (issue 27, decision 055): the component variants it took per bundle; null for any other line. */
    components: jsonb('components').$type<BundlePart[]>(),
  },
  (table) => [
    primaryKey({ columns: [table.orderId, table.position] }),
    check('order_item_qty_positive', sql`${table.qty} > 0`),
    index('order_item_name_lower_idx').on(sql`lower(${table.name})`),
    // A variant's units sold (the reconciler's invariant) and a buyer's units of a limited one.
    index('order_item_variant_idx').on(table.variantId),
    // Whether a product was ever ordered (the console offers Delete only where it can succeed, issue 29 item 5).
    index('order_item_product_idx').on(table.productId),
    // The release job's and a date move's lines: preorder lines not yet released (decision 054).
    index('order_item_preorder_idx')
      .on(table.shipsOn)
      .where(sql`${table.shipsOn} IS NOT NULL AND ${table.releasedAt} IS NULL`),
  ],
);

/** One parcel of an order shipped in parts (decision 054): its own lines (order_item.shipment_id) and tracking. */
export const orderShipments = pgTable(
  'order_shipment',
  {
    id: text('id').primaryKey(),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    carrier: text('carrier'),
    trackingNumber: text('tracking_number'),
    actorId: text('actor_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('order_shipment_order_idx').on(table.orderId, table.createdAt)],
);

/**
 * The order desk's search terms (decision 034): every distinct search text of an order (buyer
 * email, contact and ship-to name) and every distinct line name, each once, kept by triggers
 * on "order" and "order_item" (migration refund_retry). A buyer orders many times and a line is
 * one of the catalogue's names, so these tables are far smaller than the orders; their trigram
 * indexes find the matching terms, and the orders are then read by the exact term's btree.
 * (Trigram indexes on 1M orders read every posting list of the trigrams all orders share.)
 */
export const orderSearchTerms = pgTable('order_search_term', { term: text('term').primaryKey() }, (table) => [
  index('order_search_term_trgm_idx').using('gin', sql`${table.term} gin_trgm_ops`),
]);

export const orderItemTerms = pgTable('order_item_term', { term: text('term').primaryKey() }, (table) => [
  index('order_item_term_trgm_idx').using('gin', sql`${table.term} gin_trgm_ops`),
]);

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
