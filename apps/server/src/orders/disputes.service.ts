import { eq } from 'drizzle-orm';
import { orderEvents, orders } from '../db/schema/index.ts';
import { runTransaction } from '../db/transaction.ts';
import { publishLive } from '../live/live.publish.ts';
import { recordProviderEventOnce } from '../payments/provider-events.service.ts';
import type { PaymentEvent } from '../payments/provider.ts';
import { postReturn } from '../royalties/ledger.service.ts';
import { disputeReturnToPost } from './order-figures.service.ts';
import type { RefundDeps } from './refunds.service.ts';

/**
 * Stripe's `charge.dispute.*` (decision 075), each event once: the order keeps the dispute's id,
 * status and amount, and shows as disputed. A dispute closed as lost is a return: the sales
 * overview counts it on the day it closed, and the royalty ledger reverses its goods part, in
 * this transaction, once (only the first close sets the day).
 */
export async function applyDispute(deps: RefundDeps, event: PaymentEvent): Promise<'applied' | 'duplicate' | 'ignored'> {
  const dispute = event.dispute;
  if (event.type !== 'dispute' || !dispute || !event.paymentIntentId) return 'ignored';
  return runTransaction(
    deps.db,
    async (tx) => {
      if (!(await recordProviderEventOnce(tx, { provider: deps.provider.name, eventId: event.eventId, type: `charge.dispute.${dispute.closed ? 'closed' : 'open'}` })))
        return 'duplicate';
      const [order] = await tx.select().from(orders).where(eq(orders.paymentIntentId, event.paymentIntentId!)).for('update');
      if (!order) return 'ignored';
      // Closed already: a late update changes nothing of what was counted.
      if (order.disputeClosedAt) return 'applied';
      const amountCents = Math.min(Math.max(0, dispute.amountCents), order.chargedCents);
      const closedAt = dispute.closed ? new Date() : null;
      await tx
        .update(orders)
        .set({ disputeId: dispute.id, disputeStatus: dispute.status, disputeAmountCents: amountCents, disputeClosedAt: closedAt })
        .where(eq(orders.id, order.id));
      await tx.insert(orderEvents).values({ orderId: order.id, kind: 'dispute', detail: { eventId: event.eventId, disputeId: dispute.id, status: dispute.status, amountCents } });
      if (closedAt && dispute.status === 'lost') await postReturn(tx, await disputeReturnToPost(tx, { orderId: order.id, disputeId: dispute.id, amountCents, closedAt }));
      await publishLive(tx, { topic: 'orders', userId: order.userId, id: order.id }, { topic: 'all-orders', id: order.id });
      return 'applied';
    },
    { isolationLevel: 'read committed' },
  );
}
