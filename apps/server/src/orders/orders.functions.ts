import { defineFunction } from '../functions/registry.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { getOrderByPaymentIntent, listOpenOrders, listOrdersOf, markOrderFulfilled } from './orders.service.ts';

export function ordersFunctions(deps: { jobs: JobQueue; publicUrl: string }) {
  return [
    defineFunction('listMyOrders', async (page, { db, caller }) => listOrdersOf(db, caller.userId, page)),
    defineFunction('getMyOrder', async ({ paymentIntentId }, { db, caller }) => ({ order: await getOrderByPaymentIntent(db, caller.userId, paymentIntentId) })),
    defineFunction('listOpenOrders', async (page, { db }) => listOpenOrders(db, page)),
    defineFunction('markOrderFulfilled', async ({ orderId, maxAttempts }, { db }) => {
      await markOrderFulfilled({ db, jobs: deps.jobs, publicUrl: deps.publicUrl }, orderId, maxAttempts);
      return { ok: true };
    }),
  ];
}
