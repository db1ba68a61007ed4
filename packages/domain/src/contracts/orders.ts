import { z } from 'zod';
import { defineContract, okOutput, optionalNullable } from './define.ts';

/** One line of an order or a quote: the price is the server's at the time. */
export const orderLineOutput = z.object({ id: z.string(), name: z.string(), qty: z.number(), unitCents: z.number() });

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
  }),
  shipping: z.object({ name: z.string(), address: z.record(z.string(), z.string()) }),
  contact: z.object({ name: z.string(), email: z.string(), phone: z.string() }),
  orderFulfilled: z.boolean(),
  orderStatus: z.string().nullable(),
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
    input: z.object({ orderId: z.string().min(1).max(64), maxAttempts: optionalNullable(z.number().int()) }).strict(),
    output: okOutput,
  }),
};
