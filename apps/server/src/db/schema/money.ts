import { sql } from 'drizzle-orm';
import { type AnyPgColumn, bigint, boolean, check, date, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './accounts.ts';
import type { BundlePart } from '@storefront/domain/bundles.ts';

/**
 * Money: a wallet per user (available and held cents, never negative), an append-only
 * ledger whose sums equal those balances, checkouts (the pending side of a payment),
 * orders, and the provider events already processed.
 */
export const wallets = pgTable(
  'wallet',
  {
    userId: text('user_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'restrict' }),
    balanceCents: bigint('balance_cents', { mode: 'number' }).notNull().default(0),
    heldCents: bigint('held_cents', { mode: 'number' }).notNull().default(0),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [check('wallet_balance_not_negative', sql`${table.balanceCents} >= 0`), check('wallet_held_not_negative', sql`${table.heldCents} >= 0`)],
);

export const LEDGER_KINDS = ['grant', 'debit', 'hold', 'capture', 'release', 'refund'] as const;

export const ledgerEntries = pgTable(
  'ledger_entry',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    userId: text('user_id')
      .notNull()
      .references(() => wallets.userId, { onDelete: 'restrict' }),
    kind: text('kind', { enum: LEDGER_KINDS }).notNull(),
    /** Change of the available balance. */
    availableDeltaCents: bigint('available_delta_cents', { mode: 'number' }).notNull(),
    /** Change of the held amount. */
    heldDeltaCents: bigint('held_delta_cents', { mode: 'number' }).notNull().default(0),
    /** What the entry belongs to: an order, a checkout, a grant's external id. */
    reference: text('reference').notNull(),
    note: text('note').notNull().default(''),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index('ledger_user_idx').on(table.userId, table.id),
    // One entry of a kind per reference: a retried capture or release is a no-op.
    uniqueIndex('ledger_kind_reference_key').on(table.kind, table.reference),
  ],
);

// cancelled: the buyer left the payment page (decision 020).
// refunded: paid after its hold ended, when the stock was gone (issue 15): the card is refunded.
export const CHECKOUT_STATUSES = ['pending', 'paid', 'failed', 'expired', 'cancelled', 'refunded'] as const;

/** A checkout line: the product, the variant bought (issue 15; absent in checkouts made before it) and its shown name. */
export interface CheckoutLine {
  id: string;
  variantId?: string;
  name: string;
  qty: number;
  unitCents: number;
  /** Stock of a counted variant was set aside for this line (released or captured with the checkout). */
  stockHeld?: boolean;
  /** What the whole line paid for its goods after any discount, and the tax added on it (decision 060). */
  paidCents?: number;
  taxCents?: number;
  /** A preorder line's street date (decision 054). */
  shipsOn?: string;
  /** Files, not a parcel (issue 28): nothing to ship. */
  digital?: boolean;
  /** A gift card (decision 053): sent to its recipient by email; also `digital`. */
  giftCard?: boolean;
  /** A bundle line (issue 27, decision 055): the component variants it takes per bundle; its counted parts are what `stockHeld` set aside. */
  components?: BundlePart[];
}

export const checkouts = pgTable(
  'checkout',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    status: text('status', { enum: CHECKOUT_STATUSES }).notNull().default('pending'),
    provider: text('provider').notNull(),
    providerSessionId: text('provider_session_id').unique(),
    /** The payment page of this checkout, so a repeated or concurrent call answers the same. */
    paymentUrl: text('payment_url'),
    items: jsonb('items').$type<CheckoutLine[]>().notNull(),
    contact: jsonb('contact').$type<{ name: string; email: string; phone: string }>().notNull(),
    shipping: jsonb('shipping').$type<Record<string, string>>().notNull(),
    subtotalCents: bigint('subtotal_cents', { mode: 'number' }).notNull(),
    shippingCents: bigint('shipping_cents', { mode: 'number' }).notNull(),
    taxCents: bigint('tax_cents', { mode: 'number' }).notNull(),
    walletHeldCents: bigint('wallet_held_cents', { mode: 'number' }).notNull(),
    amountDueCents: bigint('amount_due_cents', { mode: 'number' }).notNull(),
    chargeCents: bigint('charge_cents', { mode: 'number' }).notNull(),
    /** Issue 26 (decision 051): the tax line's jurisdiction, tax inside VAT-inclusive prices, the shipping method, a Stripe Tax calculation. */
    taxJurisdiction: text('tax_jurisdiction').notNull().default(''),
    taxIncludedCents: bigint('tax_included_cents', { mode: 'number' }).notNull().default(0),
    shippingMethod: text('shipping_method'),
    taxCalculationId: text('tax_calculation_id'),
    /** The tax added on the shipping (decision 060); null on checkouts made before it. */
    shippingTaxCents: bigint('shipping_tax_cents', { mode: 'number' }),
    /** Taken off the subtotal by a discount code, held with the checkout (issue 27). */
    discountCents: bigint('discount_cents', { mode: 'number' }).notNull().default(0),
    discountCode: text('discount_code'),
    returnUrl: text('return_url').notNull().default('/order-confirmation'),
    /** The checkout's "Follow the artists" box (issue 37, decision 074): the paid order follows what was bought. */
    followArtists: boolean('follow_artists').notNull().default(false),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    settledAt: timestamp('settled_at', { withTimezone: true }),
  },
  (table) => [
    index('checkout_pending_idx').on(table.status, table.expiresAt),
    // A buyer's open checkout (at most one, decision 044) and their held units of a limited variant.
    index('checkout_user_pending_idx')
      .on(table.userId)
      .where(sql`${table.status} = 'pending'`),
  ],
);

/**
 * What the reconciler found broken and could not (or did) heal (decision 044): a paid checkout
 * without its outcome, a hold without a live checkout, a variant whose counts disagree. Shown
 * in the console as "needs attention" until a person marks it resolved. One row per kind and
 * subject: finding it again on the next run changes nothing.
 */
export const needsAttention = pgTable(
  'needs_attention',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    kind: text('kind').notNull(),
    /** The checkout, variant or wallet it is about. */
    subject: text('subject').notNull(),
    detail: text('detail').notNull(),
    /** Healed by the reconciler itself (stock put right, payment refunded); a person may still look. */
    healed: boolean('healed').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    resolvedAt: timestamp('resolved_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('needs_attention_kind_subject_key').on(table.kind, table.subject),
    index('needs_attention_open_idx')
      .on(table.createdAt)
      .where(sql`${table.resolvedAt} IS NULL`),
  ],
);

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
 * Card payments given back (issue 15: a late payment whose stock was gone). Written in the
 * transaction that handles the payment event, so once per checkout; a job asks the provider
 * with this checkout's idempotency key and records its refund id.
 */
export const paymentRefunds = pgTable('payment_refund', {
  checkoutId: text('checkout_id')
    .primaryKey()
    .references(() => checkouts.id),
  provider: text('provider').notNull(),
  paymentReference: text('payment_reference').notNull(),
  amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
  reason: text('reason').notNull(),
  providerRefundId: text('provider_refund_id'),
  /** The provider refused the refund (its message); an admin settles it by hand. */
  failure: text('failure'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  refundedAt: timestamp('refunded_at', { withTimezone: true }),
});

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
