import { randomBytes } from 'node:crypto';
import { and, eq, inArray, isNotNull, isNull, sql } from 'drizzle-orm';
import { formatShipDate, PREORDER_MESSAGES } from '@storefront/domain/preorders.ts';
import { CHECKOUT_MESSAGES } from '@storefront/domain/pricing.ts';
import { REFUND_MESSAGES } from '@storefront/domain/refunds.ts';
import { contactOf } from '../accounts/accounts.service.ts';
import { recordAudit, type Actor } from '../audit/audit.service.ts';
import type { Db } from '../db/client.ts';
import { orderEvents, orderItems, orderShipments, orders } from '../db/schema/index.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { publishLive } from '../live/live.publish.ts';
import { shippedMail, shippedPartMail } from '../mail/templates.ts';
import { refundsCoverOrder } from './refunds.service.ts';

/**
 * Shipping an order: whole (Mark Fulfilled, spec section 4), or in parts (issue 27, decision
 * 054): each parcel is a row with its own tracking, and its lines name it. Under the order's row
 * lock, like refunds: a line ships once, and the parcel that ships the last line fulfils the order.
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

export interface FulfilOptions {
  maxAttempts?: number;
  actorId?: string | null;
  /** Who, for the admin audit log (decision 031). */
  actor?: Actor;
  tracking?: { carrier: string; number: string } | null;
  /** Queues the shipped email in the fulfilment's own transaction (once, with the change). */
  mail?: { jobs: JobQueue; publicUrl: string };
  /** The admin confirmed shipping preorder lines before their street date (decision 054). */
  confirmPreorder?: boolean;
}

/**
 * An order's lines (all, or these positions) still waiting for their street date: not released
 * by the release job and not shipped. The desk refuses to ship them without a confirmation.
 */
export async function waitingPreorderDates(tx: Tx, orderId: string, positions?: number[]): Promise<string[]> {
  const rows = await tx
    .selectDistinct({ shipsOn: orderItems.shipsOn })
    .from(orderItems)
    .where(
      and(
        eq(orderItems.orderId, orderId),
        positions ? inArray(orderItems.position, positions) : undefined,
        isNotNull(orderItems.shipsOn),
        isNull(orderItems.releasedAt),
        isNull(orderItems.shipmentId),
      ),
    );
  return rows.map((row) => row.shipsOn!).sort();
}

/** Refuses to ship lines before their street date unless the admin confirmed it (decision 054). */
export async function refuseEarlyShipping(tx: Tx, orderId: string, confirmed: boolean | undefined, positions?: number[]): Promise<void> {
  if (confirmed) return;
  const dates = await waitingPreorderDates(tx, orderId, positions);
  if (dates.length > 0) throw new AppError('failed-precondition', PREORDER_MESSAGES.notYetOut(dates.map(formatShipDate).join(', ')), { preorderDates: dates });
}

/**
 * Mark Fulfilled (spec section 4): the order becomes fulfilled and the buyer's copy
 * shipped, in one transaction retried on conflicts, with its history entry and the buyer's
 * email. A second call changes nothing and sends nothing.
 */
export async function markOrderFulfilled(db: Db, orderId: string, options: FulfilOptions = {}) {
  return runTransaction(
    db,
    async (tx) => {
      const [order] = await tx.select().from(orders).where(eq(orders.id, orderId)).for('update');
      if (!order) throw new AppError('not-found', CHECKOUT_MESSAGES.orderNotFound);
      // Under the same row lock as a refund: a fully refunded order is not shipped (decision 028),
      // nor one whose refunds in flight or held for a Retry give all of it back.
      if (!order.orderFulfilled && (order.refundStatus === 'refunded' || (await refundsCoverOrder(tx, order))))
        throw new AppError('failed-precondition', REFUND_MESSAGES.refundedCannotFulfil);
      if (!order.orderFulfilled) await refuseEarlyShipping(tx, orderId, options.confirmPreorder);
      const buyer = await contactOf(tx, order.userId);
      if (!order.orderFulfilled) {
        const tracking = options.tracking ?? null;
        await tx
          .update(orders)
          .set({ orderFulfilled: true, orderStatus: 'shipped', fulfilledAt: new Date(), carrier: tracking?.carrier ?? null, trackingNumber: tracking?.number ?? null })
          .where(eq(orders.id, orderId));
        // An order already shipped in parts (decision 054): what is left is its last parcel.
        const [part] = await tx.select({ id: orderShipments.id }).from(orderShipments).where(eq(orderShipments.orderId, orderId)).limit(1);
        if (part) {
          const id = `sh_${randomBytes(9).toString('base64url')}`;
          await tx.insert(orderShipments).values({ id, orderId, carrier: tracking?.carrier ?? null, trackingNumber: tracking?.number ?? null, actorId: options.actorId ?? null });
          await tx
            .update(orderItems)
            .set({ shipmentId: id })
            .where(and(eq(orderItems.orderId, orderId), isNull(orderItems.shipmentId)));
        }
        await tx
          .insert(orderEvents)
          .values({ orderId, kind: 'fulfilled', actorId: options.actorId ?? null, detail: tracking ? { carrier: tracking.carrier, trackingNumber: tracking.number } : {} });
        if (options.actor) {
          await recordAudit(tx, {
            actor: options.actor,
            action: 'order.fulfil',
            targetType: 'order',
            targetId: orderId,
            before: { orderFulfilled: false, orderStatus: order.orderStatus },
            after: { orderFulfilled: true, orderStatus: 'shipped', ...(tracking ? { carrier: tracking.carrier, trackingNumber: tracking.number } : {}) },
          });
        }
        await publishLive(tx, { topic: 'orders', userId: order.userId, id: orderId }, { topic: 'all-orders', id: orderId });
        if (buyer && options.mail) {
          await options.mail.jobs.sendInTransaction(tx, 'send-email', shippedMail(buyer.email, buyer.name, orderId, `${options.mail.publicUrl}/my-orders`, tracking));
        }
      }
      return { changed: !order.orderFulfilled, order, buyer };
    },
    { maxAttempts: options.maxAttempts },
  );
}
