import { RefundRefusedError } from '../payments/provider.ts';
import { recordUnanswered } from './refund-writes.service.ts';
import type { OrderRow, RefundDeps, RefundRow } from './refunds.service.ts';

/**
 * Step "refund card" (decisions 028, 034): the card part goes to the provider outside any
 * transaction, with a key derived from the refund's id, so any retry is the same provider
 * refund. A call without an answer is recorded for a retry with backoff.
 */

/** The provider key of the refund's current card round: `refund-<id>`, then `refund-<id>-2`, ... (decision 034). */
const cardKey = (row: RefundRow) => (row.cardRound === 1 ? `refund-${row.id}` : `refund-${row.id}-${row.cardRound}`);

/** What the provider said of one card call: done, refused, or nothing (the row as recorded then). */
export type CardOutcome = { refundId: string; status: 'succeeded' | 'failed' } | { refused: string } | { unanswered: RefundRow };

/** One provider call for a claimed refund (same key every time: the provider refunds once). */
export async function refundCard(deps: RefundDeps, claimed: RefundRow, order: OrderRow): Promise<CardOutcome> {
  try {
    return await deps.provider.refund({
      paymentIntentId: order.paymentIntentId,
      amountCents: claimed.cardCents,
      idempotencyKey: cardKey(claimed),
      orderId: order.id,
      refundId: claimed.id,
      round: claimed.cardRound,
    });
  } catch (error) {
    if (!(error instanceof RefundRefusedError)) {
      console.warn(`Card refund ${claimed.id} of order ${order.id} did not get an answer (call ${claimed.attempts}):`, error);
      return { unanswered: await recordUnanswered(deps, claimed, error) };
    }
    return { refused: error.message };
  }
}
