import { and, eq, ne, sql } from 'drizzle-orm';
import { refundFailureReason } from '@storefront/domain/refunds.ts';
import { orderEvents, orderRefunds, orders, users } from '../db/schema/index.ts';
import { runTransaction } from '../db/transaction.ts';
import { revokeForOrder } from '../digital/sales.service.ts';
import { publishLive } from '../live/live.publish.ts';
import { refundFailedMail } from '../mail/templates.ts';
import { recordProviderEventOnce } from '../payments/provider-events.service.ts';
import type { PaymentEvent } from '../payments/provider.ts';
import { repostProviderRefund } from '../royalties/ledger.service.ts';
import { applyDispute } from './disputes.service.ts';
import { providerReturnOf } from './order-figures.service.ts';
import { holdForRetry } from './refund-writes.service.ts';
import { buyerRefundStatus, type RefundDeps } from './refunds.service.ts';

/**
 * The provider's verified refund events, each recorded once per event id (decision 028):
 * `charge.refunded` and a refund that failed after it was accepted (decision 034).
 */
export async function applyRefundEvent(deps: RefundDeps, event: PaymentEvent): Promise<'applied' | 'duplicate' | 'ignored'> {
  if (event.type === 'refund-failed') return applyRefundFailure(deps, event);
  if (event.type === 'dispute') return applyDispute(deps, event);
  return applyChargeRefunded(deps, event);
}

/**
 * Stripe's `charge.refunded`. The charge carries its running refunded total, so a refund made in
 * Stripe's dashboard is counted and one of ours (already reserved) is not counted twice.
 */
async function applyChargeRefunded(deps: RefundDeps, event: PaymentEvent): Promise<'applied' | 'duplicate' | 'ignored'> {
  if (event.type !== 'refunded' || !event.paymentIntentId) return 'ignored';
  return runTransaction(
    deps.db,
    async (tx) => {
      if (!(await recordProviderEventOnce(tx, { provider: deps.provider.name, eventId: event.eventId, type: 'charge.refunded' }))) return 'duplicate';
      const [order] = await tx.select().from(orders).where(eq(orders.paymentIntentId, event.paymentIntentId!)).for('update');
      if (!order) return 'ignored';
      const total = Math.min(order.chargedCents, Math.max(0, event.refundedCents ?? 0));
      await tx.insert(orderEvents).values({ orderId: order.id, kind: 'provider-refund', detail: { eventId: event.eventId, refundedCents: total } });
      // The royalty ledger follows the overview's return outside the desk (its amount and its day, decision 075).
      if (total <= order.refundedCardCents) {
        await repostProviderRefund(tx, order.id, event.eventId, await providerReturnOf(tx, order.id, event.eventId));
        return 'applied';
      }
      await tx.update(orders).set({ refundedCardCents: total }).where(eq(orders.id, order.id));
      const status = await buyerRefundStatus(tx, { ...order, refundedCardCents: total });
      await tx.update(orders).set({ refundStatus: status }).where(eq(orders.id, order.id));
      // Refunded in full at the provider: the downloads it granted go too (issue 28).
      if (status === 'refunded') await revokeForOrder(tx, { userId: order.userId, orderId: order.id, productIds: 'all' });
      await repostProviderRefund(tx, order.id, event.eventId, await providerReturnOf(tx, order.id, event.eventId));
      await publishLive(tx, { topic: 'orders', userId: order.userId, id: order.id }, { topic: 'all-orders', id: order.id });
      return 'applied';
    },
    { isolationLevel: 'read committed' },
  );
}

/**
 * A card refund the provider accepted and then failed (Stripe's `refund.failed`, or
 * `charge.refund.updated` / `refund.updated` with status failed; decision 034). Our refund is
 * named by the metadata sent with it (refund id and card round), or, for one sent before that, by
 * the provider refund id recorded when it completed. Applied once per card round: a replayed
 * event is a duplicate by its id; the second event type for the same failure, or a failure of an
 * earlier round arriving after the Retry's round, finds the round moved on and changes nothing.
 */
async function applyRefundFailure(deps: RefundDeps, event: PaymentEvent): Promise<'applied' | 'duplicate' | 'ignored'> {
  const failed = event.refund;
  if (!failed || !event.paymentIntentId) return 'ignored';
  return runTransaction(
    deps.db,
    async (tx) => {
      if (!(await recordProviderEventOnce(tx, { provider: deps.provider.name, eventId: event.eventId, type: failed.eventType }))) return 'duplicate';
      const [named] = await tx
        .select({ id: orderRefunds.id, orderId: orderRefunds.orderId })
        .from(orderRefunds)
        .where(failed.refundId ? eq(orderRefunds.id, failed.refundId) : eq(orderRefunds.providerRefundId, failed.id));
      // Every refund writer locks the order first, then the refund.
      const [order] = await tx.select().from(orders).where(eq(orders.paymentIntentId, event.paymentIntentId!)).for('update');
      const reason = refundFailureReason(failed.failureReason);
      if (!order) {
        // A payment with no order (a late payment sent back, or a dashboard refund of one): nothing
        // of ours to hold, but the money did not go back, so an operator must hear of it.
        console.warn(`The payment provider failed refund ${failed.id} (${failed.amountCents} cents) of payment ${event.paymentIntentId}, which has no order: ${reason}`);
        return 'ignored';
      }
      if (!named || named.orderId !== order.id) {
        // Not one of ours (made in the dashboard): the admin reads it in the history, and the card
        // total that charge.refunded raised for it drops again, never below what our own refunds
        // hold (the buyer is no longer shown it as refunded, and the admin can refund it here).
        // One failure may come as two event types (refund.failed and charge.refund.updated): once.
        const [seen] = await tx
          .select({ id: orderEvents.id })
          .from(orderEvents)
          .where(and(eq(orderEvents.orderId, order.id), eq(orderEvents.kind, 'refund-failed'), sql`${orderEvents.detail}->>'providerRefundId' = ${failed.id}`))
          .limit(1);
        if (seen) return 'ignored';
        await tx.insert(orderEvents).values({ orderId: order.id, kind: 'refund-failed', detail: { providerRefundId: failed.id, reason, cardCents: failed.amountCents } });
        const [ours] = await tx
          .select({ cardCents: sql<number>`coalesce(sum(${orderRefunds.cardCents}), 0)::int` })
          .from(orderRefunds)
          .where(and(eq(orderRefunds.orderId, order.id), ne(orderRefunds.status, 'failed')));
        const lowered = Math.max(ours!.cardCents, order.refundedCardCents - Math.max(0, failed.amountCents));
        if (lowered < order.refundedCardCents) {
          const refundStatus = await buyerRefundStatus(tx, { ...order, refundedCardCents: lowered });
          await tx.update(orders).set({ refundedCardCents: lowered, refundStatus }).where(eq(orders.id, order.id));
          await publishLive(tx, { topic: 'orders', userId: order.userId, id: order.id }, { topic: 'all-orders', id: order.id });
        }
        return 'applied';
      }
      const [refund] = await tx.select().from(orderRefunds).where(eq(orderRefunds.id, named.id)).for('update');
      const round = failed.round ?? (refund!.providerRefundId === failed.id ? refund!.cardRound : null);
      if (refund!.status === 'failed' || round !== refund!.cardRound) return 'ignored';
      await holdForRetry(tx, refund!, { reason, providerRefundId: failed.id });
      // The buyer was mailed this card part as refunded: they hear that it did not arrive.
      if (refund!.status === 'succeeded') {
        const [buyer] = await tx.select({ email: users.email, name: users.name }).from(users).where(eq(users.id, order.userId));
        if (buyer) {
          const mail = refundFailedMail(buyer.email, buyer.name, { orderId: order.id, cardCents: refund!.cardCents, reason }, `${deps.publicUrl}/my-orders`);
          await deps.jobs.sendInTransaction(tx, 'send-email', mail);
        }
      }
      return 'applied';
    },
    { isolationLevel: 'read committed' },
  );
}
