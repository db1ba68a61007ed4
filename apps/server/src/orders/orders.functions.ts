import { defineFunction } from '../functions/registry.ts';
import { AppError } from '../errors.ts';
import { getDeskOrder, listDeskOrders } from './desk.service.ts';
import { type RefundDeps } from './refunds.service.ts';
import { refundOrder, retryRefund } from './refund.flow.ts';
import { getOrderByPaymentIntent, listOpenOrders, listOrdersOf } from './order-views.service.ts';
import { markOrderFulfilled, shipOrderPart } from './shipments.service.ts';

const trackingOf = (carrier: string | undefined, number: string | undefined) => (carrier && number ? { carrier, number } : null);

export function ordersFunctions(deps: RefundDeps) {
  return [
    defineFunction('listMyOrders', async (page, { db, caller }) => listOrdersOf(db, caller.userId, page)),
    defineFunction('getMyOrder', async ({ paymentIntentId }, { db, caller }) => ({ order: await getOrderByPaymentIntent(db, caller.userId, paymentIntentId) })),
    defineFunction('listOpenOrders', async (page, { db }) => listOpenOrders(db, page)),
    defineFunction('markOrderFulfilled', async ({ orderId, maxAttempts, carrier, trackingNumber, confirmPreorder }, { db, caller }) => {
      await markOrderFulfilled(db, orderId, {
        maxAttempts,
        actorId: caller.userId,
        actor: { userId: caller.userId },
        tracking: trackingOf(carrier, trackingNumber),
        mail: deps,
        confirmPreorder,
      });
      return { ok: true };
    }),
    defineFunction('markOrdersFulfilled', async ({ orders }, { db, caller }) => {
      // One transaction per order: each is fulfilled (and its buyer mailed) once, whatever the others do.
      const results = [];
      for (const { orderId, carrier, trackingNumber, confirmPreorder } of orders) {
        try {
          const result = await markOrderFulfilled(db, orderId, {
            actorId: caller.userId,
            actor: { userId: caller.userId },
            tracking: trackingOf(carrier, trackingNumber),
            mail: deps,
            confirmPreorder,
          });
          results.push({ orderId, ok: true, changed: result.changed });
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          results.push({ orderId, ok: false, changed: false, message: error.message });
        }
      }
      return { results };
    }),
    defineFunction('listOrders', async (query, { db }) => listDeskOrders(db, query)),
    defineFunction('getOrder', async ({ orderId }, { db }) => getDeskOrder(db, orderId)),
    defineFunction('shipOrderPart', async ({ orderId, lineIds, carrier, trackingNumber, confirmPreorder }, { caller }) =>
      shipOrderPart(deps, { userId: caller.userId }, { orderId, lineIds, tracking: trackingOf(carrier, trackingNumber), confirmPreorder }),
    ),
    defineFunction('refundOrder', async (input, { caller }) => ({ refund: await refundOrder(deps, caller.userId, input) })),
    defineFunction('retryRefund', async (input, { caller }) => ({ refund: await retryRefund(deps, caller.userId, input) })),
  ];
}
