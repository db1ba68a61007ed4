import { z } from 'zod';
import { defineFunction } from '../functions/registry.ts';
import { MAX_CART_LINES, MAX_LINE_QTY } from '@storefront/domain/pricing.ts';
import { CARRIERS, DESK_MESSAGES, ORDER_FILTERS, TRACKING_NUMBER_PATTERN } from '@storefront/domain/order-desk.ts';
import { AppError } from '../http/errors.ts';
import { getDeskOrder, listDeskOrders } from './desk.service.ts';
import { refundOrder, type RefundDeps } from './refunds.service.ts';
import { getOrderByPaymentIntent, listOpenOrders, listOrdersOf, markOrderFulfilled, orderCursor } from './orders.service.ts';

const pageInput = z
  .object({ limit: z.number().int().min(1).max(100).default(20), after: orderCursor.optional() })
  .strict()
  .nullish()
  .transform((value) => value ?? { limit: 20 });

const refundInput = z
  .object({
    orderId: z.string().min(1).max(64),
    /** Absent: a full refund of what is left. */
    lines: z
      .array(z.object({ lineId: z.number().int().min(0).max(999), quantity: z.number().int().min(1).max(MAX_LINE_QTY) }).strict())
      .min(1)
      .max(MAX_CART_LINES)
      .optional(),
    /** One per click of the refund dialog: a doubled or retried request refunds once. */
    idempotencyKey: z.string().regex(/^[\w-]{8,100}$/, 'The refund request needs an idempotency key of 8 to 100 letters, digits, - or _.'),
  })
  .strict();

const trackingFields = {
  carrier: z.enum(CARRIERS).optional(),
  trackingNumber: z.string().trim().regex(TRACKING_NUMBER_PATTERN, DESK_MESSAGES.trackingNumber).optional(),
};

function trackingComplete(value: { carrier?: string; trackingNumber?: string }, context: z.RefinementCtx) {
  if (value.trackingNumber && !value.carrier) context.addIssue({ code: 'custom', path: ['carrier'], message: DESK_MESSAGES.trackingNeedsCarrier });
  if (value.carrier && !value.trackingNumber) context.addIssue({ code: 'custom', path: ['trackingNumber'], message: DESK_MESSAGES.trackingNumber });
}

export function ordersFunctions(deps: RefundDeps) {
  return [
    defineFunction({
      name: 'listMyOrders',
      access: 'signed-in',
      input: pageInput,
      handler: async (page, { db, caller }) => listOrdersOf(db, caller!.userId, { limit: page.limit ?? 20, after: page.after }),
    }),
    defineFunction({
      name: 'getMyOrder',
      access: 'signed-in',
      input: z.object({ paymentIntentId: z.string().min(1).max(100) }).strict(),
      handler: async ({ paymentIntentId }, { db, caller }) => ({ order: await getOrderByPaymentIntent(db, caller!.userId, paymentIntentId) }),
    }),
    defineFunction({
      name: 'listOpenOrders',
      access: 'admin',
      input: pageInput,
      handler: async (page, { db }) => listOpenOrders(db, { limit: page.limit ?? 20, after: page.after }),
    }),
    defineFunction({
      name: 'markOrderFulfilled',
      access: 'admin',
      input: z.object({ orderId: z.string().min(1).max(64), maxAttempts: z.number().int().optional(), ...trackingFields }).strict().superRefine(trackingComplete),
      handler: async ({ orderId, maxAttempts, carrier, trackingNumber }, { db, caller }) => {
        const tracking = carrier && trackingNumber ? { carrier, number: trackingNumber } : null;
        await markOrderFulfilled(db, orderId, { maxAttempts, actorId: caller!.userId, actor: { userId: caller!.userId }, tracking, mail: deps });
        return { ok: true };
      },
    }),
    defineFunction({
      name: 'markOrdersFulfilled',
      access: 'admin',
      input: z
        .object({ orders: z.array(z.object({ orderId: z.string().min(1).max(64), ...trackingFields }).strict().superRefine(trackingComplete)).min(1).max(100) })
        .strict(),
      handler: async ({ orders }, { db, caller }) => {
        // One transaction per order: each is fulfilled (and its buyer mailed) once, whatever the others do.
        const results = [];
        for (const { orderId, carrier, trackingNumber } of orders) {
          const tracking = carrier && trackingNumber ? { carrier, number: trackingNumber } : null;
          try {
            const result = await markOrderFulfilled(db, orderId, { actorId: caller!.userId, actor: { userId: caller!.userId }, tracking, mail: deps });
            results.push({ orderId, ok: true, changed: result.changed });
          } catch (error) {
            if (!(error instanceof AppError)) throw error;
            results.push({ orderId, ok: false, changed: false, message: error.message });
          }
        }
        return { results };
      },
    }),
    defineFunction({
      name: 'listOrders',
      access: 'admin',
      input: z
        .object({
          status: z.enum(ORDER_FILTERS).default('all'),
          q: z.string().max(100).optional(),
          limit: z.number().int().min(1).max(100).default(20),
          after: orderCursor.optional(),
        })
        .strict(),
      handler: async (query, { db }) => listDeskOrders(db, query),
    }),
    defineFunction({
      name: 'getOrder',
      access: 'admin',
      input: z.object({ orderId: z.string().min(1).max(64) }).strict(),
      handler: async ({ orderId }, { db }) => getDeskOrder(db, orderId),
    }),
    defineFunction({
      name: 'refundOrder',
      access: 'admin',
      input: refundInput,
      handler: async (input, { caller }) => ({ refund: await refundOrder(deps, caller!.userId, input) }),
    }),
  ];
}
