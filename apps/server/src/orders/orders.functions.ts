import { defineFunction } from '../functions/registry.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { shippedMail } from '../mail/templates.ts';
import { getOrderByPaymentIntent, listOpenOrders, listOrdersOf, markOrderFulfilled } from './orders.service.ts';

export function ordersFunctions(deps: { jobs: JobQueue; publicUrl: string }) {
  return [
    defineFunction('listMyOrders', async (page, { db, caller }) => listOrdersOf(db, caller.userId, page)),
    defineFunction('getMyOrder', async ({ paymentIntentId }, { db, caller }) => ({ order: await getOrderByPaymentIntent(db, caller.userId, paymentIntentId) })),
    defineFunction('listOpenOrders', async (page, { db }) => listOpenOrders(db, page)),
    defineFunction('markOrderFulfilled', async ({ orderId, maxAttempts }, { db }) => {
      const result = await markOrderFulfilled(db, orderId, maxAttempts);
      if (result.changed && result.buyer) {
        await deps.jobs.send('send-email', shippedMail(result.buyer.email, result.buyer.name, orderId, `${deps.publicUrl}/my-orders`));
      }
      return { ok: true };
    }),
  ];
}
