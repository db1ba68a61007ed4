import { z } from 'zod';
import { CARRIERS, DESK_MESSAGES, ORDER_FILTERS, TRACKING_NUMBER_PATTERN } from '../order-desk.ts';
import { MAX_CART_LINES, MAX_LINE_QTY } from '../pricing.ts';
import { PREORDER_MESSAGES } from '../preorders.ts';
import { defineContract, nullableDefault, okOutput, optionalNullable } from './define.ts';

/** One line of an order or a quote: the price is the server's at the time. */
export const orderLineOutput = z.object({
  id: z.string(),
  /** The variant bought (decision 027), so a client can buy it again; absent on lines of products without variants' ids (older orders). */
  variantId: z.string().optional(),
  name: z.string(),
  qty: z.number(),
  unitCents: z.number(),
  /** A preorder line (decision 054): the street date it ships on, YYYY-MM-DD; absent once it is out. */
  shipsOn: z.string().optional(),
  /** The parcel the line left in, when the order ships in parts (decision 054). */
  shipmentId: z.string().optional(),
  /** Files in the buyer's library, nothing to ship (issue 28); absent for a line that ships. */
  digital: z.boolean().optional(),
  /** A gift card line (decision 053): also `digital`, sent to its recipient by email (issue 39). */
  giftCard: z.boolean().optional(),
  /** A bundle line (issue 27, decision 055): the component variants it takes, `qty` of each per bundle. */
  components: z.array(z.object({ productId: z.string(), variantId: z.string(), name: z.string(), qty: z.number() })).optional(),
});

/** An order as the order functions return it (spec section 3, Order). */
export const orderOutput = z.object({
  id: z.string(),
  paymentIntentId: z.string(),
  createdAt: z.string(),
  uid: z.string(),
  items: z.array(orderLineOutput),
  totals: z.object({
    subtotalCents: z.number(),
    shippingCents: z.number(),
    taxCents: z.number(),
    walletAppliedCents: z.number(),
    /** What the card was charged, card fee included; 0 for a wallet-only order. */
    chargedCents: z.number(),
    /** Taken off the subtotal by a discount code (issue 27); absent or 0 without one. */
    discountCents: z.number().optional(),
  }),
  /** Issue 26: the tax line's jurisdiction, tax already inside VAT-inclusive prices, the shipping method. */
  tax: z.object({ jurisdiction: z.string(), includedCents: z.number(), shippingMethod: z.string().nullable() }).optional(),
  /** The discount code the order used (issue 27); absent or null without one. */
  discountCode: z.string().nullable().optional(),
  shipping: z.object({ name: z.string(), address: z.record(z.string(), z.string()) }),
  contact: z.object({ name: z.string(), email: z.string(), phone: z.string() }),
  orderFulfilled: z.boolean(),
  orderStatus: z.string().nullable(),
  /** Order desk (issue 16): refunds so far and the parcel's tracking. */
  refundStatus: z.enum(['partially_refunded', 'refunded']).nullable(),
  refunded: z.object({ walletCents: z.number(), cardCents: z.number() }),
  tracking: z.object({ carrier: z.string(), number: z.string() }).nullable(),
  /** A refund is waiting for the payment provider (retried in the background, decision 034). */
  refundPending: z.boolean().optional(),
  /** The parcels of an order shipped in parts (decision 054), oldest first; each line's `shipmentId` names its parcel. */
  shipments: z.array(z.object({ id: z.string(), carrier: z.string().nullable(), trackingNumber: z.string().nullable(), shippedAt: z.string() })).optional(),
  /** A card dispute (decision 075): Stripe's status (a lost one counts as a return) and its amount; absent without one. */
  dispute: z.object({ status: z.string(), amountCents: z.number() }).optional(),
});

/** One page of a keyset-paged order list; `next` goes back as `after`. */
export const ordersPageOutput = z.object({ items: z.array(orderOutput), next: z.string().nullable() });

/**
 * A page cursor: the order's created_at in epoch microseconds, then its id. Postgres keeps
 * microseconds; a JS Date only milliseconds, which skipped or repeated orders made within
 * one millisecond. Any string this accepts is a timestamp Postgres can take.
 */
export const orderCursor = z.string().regex(/^-?\d{1,16}\|[\w-]{1,64}$/, 'That page cursor is not valid.');

const DEFAULT_PAGE_SIZE = 20;

/** A page request; `{"data": null}` asks for the first page. */
export const pageInput = z
  .object({
    limit: z
      .number()
      .int()
      .min(1)
      .max(100)
      .nullish()
      .transform((value) => value ?? DEFAULT_PAGE_SIZE),
    after: optionalNullable(orderCursor),
  })
  .strict()
  .nullish()
  .transform((value) => value ?? { limit: DEFAULT_PAGE_SIZE, after: undefined });

/** An order on the desk: its lines by position, which a refund by line names. */
export const deskOrderOutput = orderOutput.extend({
  lines: z.array(z.object({ lineId: z.number(), productId: z.string(), name: z.string(), qty: z.number(), unitCents: z.number(), digital: z.boolean().optional() })),
});

/** One refund of an order (decision 028). */
export const refundOutput = z.object({
  id: z.string(),
  orderId: z.string(),
  status: z.enum(['pending', 'succeeded', 'failed']),
  walletCents: z.number(),
  cardCents: z.number(),
  /** The shipping (and its tax) among them; it goes back once per order (decision 050). */
  shippingCents: z.number(),
  lines: z.array(z.object({ lineId: z.number(), quantity: z.number() })),
  failure: z.string().nullable(),
  /** Card calls that got no answer are retried in the background; `gaveUp`: the admin may retry (decision 034). */
  retry: z.object({ attempts: z.number(), lastError: z.string().nullable(), nextAttemptAt: z.string().nullable(), gaveUp: z.boolean() }),
});

/**
 * What an order has left to refund, as the server plans refunds (decision 050): the desk shows a
 * refund's split with the domain's planRefund before the admin confirms; the server plans it again.
 */
export const refundableOutput = z.object({
  walletPaidCents: z.number(),
  cardPaidCents: z.number(),
  refundedWalletCents: z.number(),
  refundedCardCents: z.number(),
  lines: z.array(
    z.object({ lineId: z.number(), unitCents: z.number(), qty: z.number(), refundedQty: z.number(), paidCents: z.number().optional(), taxCents: z.number().optional() }),
  ),
  shippingCents: z.number(),
  shippingRefunded: z.boolean(),
});

/** One entry of an order's history on the desk. */
export const orderHistoryEntryOutput = z.object({
  kind: z.string(),
  at: z.string(),
  by: z.string().nullable(),
  detail: z.record(z.string(), z.unknown()),
});

const orderId = z.string().min(1).max(64);

const trackingFields = {
  carrier: optionalNullable(z.enum(CARRIERS)),
  trackingNumber: optionalNullable(z.string().trim().regex(TRACKING_NUMBER_PATTERN, DESK_MESSAGES.trackingNumber)),
};

/** Tracking is both a carrier and a number, or neither. */
function trackingComplete(value: { carrier?: string; trackingNumber?: string }, context: z.RefinementCtx) {
  if (value.trackingNumber && !value.carrier) context.addIssue({ code: 'custom', path: ['carrier'], message: DESK_MESSAGES.trackingNeedsCarrier });
  if (value.carrier && !value.trackingNumber) context.addIssue({ code: 'custom', path: ['trackingNumber'], message: DESK_MESSAGES.trackingNumber });
}

/** The admin confirmed shipping preorder lines before their street date (decision 054); without it, that is refused. */
const confirmPreorder = optionalNullable(z.boolean());

export const ordersContracts = {
  listMyOrders: defineContract({ access: 'signed-in', input: pageInput, output: ordersPageOutput }),
  getMyOrder: defineContract({
    access: 'signed-in',
    input: z.object({ paymentIntentId: z.string().min(1).max(100) }).strict(),
    // null while the payment is still being confirmed.
    output: z.object({ order: orderOutput.nullable() }),
  }),
  listOpenOrders: defineContract({ access: 'admin', input: pageInput, output: ordersPageOutput }),
  markOrderFulfilled: defineContract({
    access: 'admin',
    input: z
      .object({ orderId, maxAttempts: optionalNullable(z.number().int()), ...trackingFields, confirmPreorder })
      .strict()
      .superRefine(trackingComplete),
    output: okOutput,
  }),
  /** Bulk Mark Fulfilled (issue 16.2): each order in its own transaction, each result reported. */
  markOrdersFulfilled: defineContract({
    access: 'admin',
    input: z
      .object({
        orders: z
          .array(
            z
              .object({ orderId, ...trackingFields, confirmPreorder })
              .strict()
              .superRefine(trackingComplete),
          )
          .min(1)
          .max(100),
      })
      .strict(),
    output: z.object({
      results: z.array(z.object({ orderId: z.string(), ok: z.boolean(), changed: z.boolean(), message: z.string().optional() })),
    }),
  }),
  /** The order desk (issue 16.1): every order by status and search, newest first. */
  listOrders: defineContract({
    access: 'admin',
    input: z
      .object({
        status: nullableDefault(z.enum(ORDER_FILTERS), 'all'),
        q: optionalNullable(z.string().max(100)),
        limit: nullableDefault(z.number().int().min(1).max(100), DEFAULT_PAGE_SIZE),
        after: optionalNullable(orderCursor),
      })
      .strict(),
    output: z.object({ items: z.array(deskOrderOutput), next: z.string().nullable() }),
  }),
  getOrder: defineContract({
    access: 'admin',
    input: z.object({ orderId }).strict(),
    output: z.object({ order: deskOrderOutput, history: z.array(orderHistoryEntryOutput), refunds: z.array(refundOutput), refundable: refundableOutput }),
  }),
  /**
   * Refunds exactly once (decision 028): all that is left, the given lines and/or the shipping, or
   * an amount (decision 050); the server plans the split between card and wallet.
   */
  refundOrder: defineContract({
    access: 'admin',
    input: z
      .object({
        orderId,
        /** Absent: a full refund of what is left. */
        lines: optionalNullable(
          z
            .array(z.object({ lineId: z.number().int().min(0).max(999), quantity: z.number().int().min(1).max(MAX_LINE_QTY) }).strict())
            .min(1)
            .max(MAX_CART_LINES),
        ),
        /** The shipping and its tax (once per order), alone or with lines. */
        shipping: optionalNullable(z.boolean()),
        /** An amount in cents, alone: split between card and wallet in proportion to what each has left. */
        amountCents: optionalNullable(z.number().int().min(1).max(100_000_000)),
        /** One per click of the refund dialog: a doubled or retried request refunds once. */
        idempotencyKey: z.string().regex(/^[\w-]{8,100}$/, 'The refund request needs an idempotency key of 8 to 100 letters, digits, - or _.'),
      })
      .strict(),
    output: z.object({ refund: refundOutput }),
  }),
  /**
   * Ships some of an order's lines as one parcel with its own tracking (decision 054): the buyer
   * sees each parcel in My Orders and gets the shipped email for it; the last parcel fulfils the order.
   */
  shipOrderPart: defineContract({
    access: 'admin',
    input: z
      .object({
        orderId,
        lineIds: z
          .array(z.number().int().min(0).max(999))
          .min(1, PREORDER_MESSAGES.noLinesToShip)
          .max(MAX_CART_LINES)
          .refine((ids) => new Set(ids).size === ids.length, PREORDER_MESSAGES.lineNotInOrder),
        ...trackingFields,
        confirmPreorder,
      })
      .strict()
      .superRefine(trackingComplete),
    output: z.object({ ok: z.literal(true), shipmentId: z.string(), orderFulfilled: z.boolean() }),
  }),
  /** A card refund whose background retries ran out, sent again with the same provider key (decision 034). */
  retryRefund: defineContract({
    access: 'admin',
    input: z.object({ orderId, refundId: z.string().min(1).max(64) }).strict(),
    output: z.object({ refund: refundOutput }),
  }),
};
