import { randomBytes } from 'node:crypto';
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import { PREORDER_MESSAGES } from '@storefront/domain/preorders.ts';
import { CHECKOUT_MESSAGES } from '@storefront/domain/pricing.ts';
import { REFUND_MESSAGES } from '@storefront/domain/refunds.ts';
import { contactOf } from '../accounts/accounts.service.ts';
import { recordAudit, type Actor } from '../audit/audit.service.ts';
import type { Db } from '../db/client.ts';
import { orderEvents, orderItems, orderShipments, orders } from '../db/schema/index.ts';
import { runTransaction } from '../db/transaction.ts';
import { AppError } from '../errors.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { publishLive } from '../live/live.publish.ts';
import { shippedPartMail } from '../mail/templates.ts';
import { refuseEarlyShipping } from './orders.service.ts';
import { refundsCoverOrder } from './refunds.service.ts';

/**
 * Shipping an order in parts (issue 27, decision 054): each parcel is a row with its own
 * tracking, and its lines name it. Under the order's row lock, like Mark Fulfilled and refunds:
 * a line ships once, and the parcel that ships the last line fulfils the order.
 */
export interface ShipPartInput {
  orderId: string;
  lineIds: number[];
  tracking: { carrier: string; number: string } | null;
  confirmPreorder?: boolean;
}

export async function shipOrderPart(deps: { db: Db; jobs: JobQueue; publicUrl: string }, actor: Actor & { userId: string }, input: ShipPartInput) {
  return runTransaction(
    deps.db,
    async (tx) => {
      const [order] = await tx.select().from(orders).where(eq(orders.id, input.orderId)).for('update');
      if (!order) throw new AppError('not-found', CHECKOUT_MESSAGES.orderNotFound);
      if (order.refundStatus === 'refunded' || (await refundsCoverOrder(tx, order))) throw new AppError('failed-precondition', REFUND_MESSAGES.refundedCannotFulfil);
      if (order.orderFulfilled) throw new AppError('failed-precondition', PREORDER_MESSAGES.lineNotInOrder);
      const open = await tx
        .select({ position: orderItems.position, name: orderItems.name, qty: orderItems.qty })
        .from(orderItems)
        .where(and(eq(orderItems.orderId, order.id), inArray(orderItems.position, input.lineIds), isNull(orderItems.shipmentId)));
      if (open.length !== input.lineIds.length) throw new AppError('failed-precondition', PREORDER_MESSAGES.lineNotInOrder);
      await refuseEarlyShipping(tx, order.id, input.confirmPreorder, input.lineIds);
      const id = `sh_${randomBytes(9).toString('base64url')}`;
      await tx
        .insert(orderShipments)
        .values({ id, orderId: order.id, carrier: input.tracking?.carrier ?? null, trackingNumber: input.tracking?.number ?? null, actorId: actor.userId });
      await tx
        .update(orderItems)
        .set({ shipmentId: id })
        .where(and(eq(orderItems.orderId, order.id), inArray(orderItems.position, input.lineIds)));
      const [left] = await tx
        .select({ n: sql<number>`count(*)::int` })
        .from(orderItems)
        .where(and(eq(orderItems.orderId, order.id), isNull(orderItems.shipmentId)));
      const fulfilled = left!.n === 0;
      const tracking = input.tracking ? { carrier: input.tracking.carrier, trackingNumber: input.tracking.number } : {};
      if (fulfilled) {
        await tx
          .update(orders)
          .set({ orderFulfilled: true, orderStatus: 'shipped', fulfilledAt: new Date(), carrier: input.tracking?.carrier ?? null, trackingNumber: input.tracking?.number ?? null })
          .where(eq(orders.id, order.id));
      }
      await tx.insert(orderEvents).values({ orderId: order.id, kind: 'shipped-part', actorId: actor.userId, detail: { shipmentId: id, lines: input.lineIds, ...tracking } });
      if (fulfilled) await tx.insert(orderEvents).values({ orderId: order.id, kind: 'fulfilled', actorId: actor.userId, detail: { shipmentId: id } });
      await recordAudit(tx, {
        actor,
        action: 'order.ship-part',
        targetType: 'order',
        targetId: order.id,
        before: { orderFulfilled: false },
        after: { shipmentId: id, lines: input.lineIds, orderFulfilled: fulfilled, ...tracking },
      });
      await publishLive(tx, { topic: 'orders', userId: order.userId, id: order.id }, { topic: 'all-orders', id: order.id });
      const buyer = await contactOf(tx, order.userId);
      if (buyer) {
        const part = { orderId: order.id, lines: open, last: fulfilled };
        await deps.jobs.sendInTransaction(tx, 'send-email', shippedPartMail(buyer.email, buyer.name, part, `${deps.publicUrl}/my-orders`, input.tracking));
      }
      return { ok: true as const, shipmentId: id, orderFulfilled: fulfilled };
    },
    { isolationLevel: 'read committed' },
  );
}
