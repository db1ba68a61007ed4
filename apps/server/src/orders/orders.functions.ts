import { z } from 'zod';
import { defineFunction } from '../functions/registry.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { getOrderByPaymentIntent, listOpenOrders, listOrdersOf, markOrderFulfilled, orderCursor } from './orders.service.ts';

const pageInput = z
  .object({ limit: z.number().int().min(1).max(100).default(20), after: orderCursor.optional() })
  .strict()
  .nullish()
  .transform((value) => value ?? { limit: 20 });

export function ordersFunctions(deps: { jobs: JobQueue; publicUrl: string }) {
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
      handler: async ({ orderId, maxAttempts }, { db }) => {
        await markOrderFulfilled({ db, jobs: deps.jobs, publicUrl: deps.publicUrl }, orderId, maxAttempts);
        return { ok: true };
      },
    }),
  ];
}
