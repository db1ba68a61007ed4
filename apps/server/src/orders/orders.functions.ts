import { z } from 'zod';
import { defineFunction } from '../functions/registry.ts';
import { MAX_CART_LINES, MAX_LINE_QTY } from '@storefront/domain/pricing.ts';
import { shippedMail } from '../mail/templates.ts';
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
      input: z.object({ orderId: z.string().min(1).max(64), maxAttempts: z.number().int().optional() }).strict(),
      handler: async ({ orderId, maxAttempts }, { db, caller }) => {
        const result = await markOrderFulfilled(db, orderId, maxAttempts, caller?.userId ?? null);
        if (result.changed && result.buyer) {
          await deps.jobs.send('send-email', shippedMail(result.buyer.email, result.buyer.name, orderId, `${deps.publicUrl}/my-orders`));
        }
        return { ok: true };
      },
    }),
    defineFunction({
      name: 'refundOrder',
      access: 'admin',
      input: refundInput,
      handler: async (input, { caller }) => ({ refund: await refundOrder(deps, caller!.userId, input) }),
    }),
  ];
}
