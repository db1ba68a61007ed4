import { sql } from 'drizzle-orm';
import { bigint, boolean, index, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './accounts.ts';
import type { BundlePart } from '@storefront/domain/bundles.ts';

/**
 * Checkout: checkouts (the pending side of a payment), what the reconciler found broken, and
 * the card payments given back when a late payment's stock was gone.
 */

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
