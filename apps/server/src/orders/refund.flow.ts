import { REFUND_MESSAGES } from '@storefront/domain/refunds.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';
import { refundCard } from './refund-card.step.ts';
import { revokeDownloads } from './refund-downloads.step.ts';
import { voidGiftCards } from './refund-gift-cards.step.ts';
import { creditWallet } from './refund-wallet.step.ts';
import {
  claimCardCall,
  failRefund,
  lockOrder,
  markSucceeded,
  orderOfRefund,
  planOrderRefund,
  recordRefunded,
  refundById,
  refundByKey,
  refundOfOrder,
  reserveRefund,
  resetForRetry,
  setBuyerRefundStatus,
  stalledRefundIds,
  type RefundInput,
} from './refund-writes.service.ts';
import { viewOf, type RefundDeps, type RefundRow, type RefundView } from './refunds.service.ts';
import { scheduleTaxReversal } from './tax.step.ts';

/**
 * Refunds exactly once (decision 028), as checkout's flows read (decision 065): 1, under the
 * order's row lock, the refund is planned, its gift cards voided and its amounts reserved with
 * its row (unique per order and idempotency key); 2, outside any transaction, refund card (the
 * provider, with a key derived from the refund's id, so a retry is the same provider refund);
 * 3, one conditional update (pending -> succeeded), then credit wallet, reverse tax, revoke
 * downloads, and the history, the email and the live announcement. A refusal instead gives the
 * reservation back.
 */

/** How long an admin's request waits for a card call another request or job is making. */
const BUSY_WAIT_MS = 25_000;

/** The admin's refund of an order: by lines, the shipping, or an amount. */
export async function refundOrder(deps: RefundDeps, adminId: string, input: RefundInput): Promise<RefundView> {
  const started = await runTransaction(
    deps.db,
    async (tx) => {
      const order = await lockOrder(tx, input.orderId);
      const existing = await refundByKey(tx, order.id, input.idempotencyKey);
      if (existing) return existing;
      const plan = await planOrderRefund(tx, order, input);
      // Gift cards (decision 053): the refunded units' unredeemed cards are voided; a redeemed one is refused.
      await voidGiftCards(tx, order.id, plan.lines, input.amountCents !== undefined);
      const refund = await reserveRefund(tx, order, adminId, input.idempotencyKey, plan);
      // Nothing to send to a card: the whole refund is this transaction.
      if (plan.cardCents === 0) return (await completeRefund(tx, deps, refund, null)) ?? refund;
      return refund;
    },
    { isolationLevel: 'read committed' },
  );
  if (started.status !== 'pending') return viewOf(started);
  // The same click again after the retries ran out: a new round, as the admin's Retry.
  if (started.gaveUpAt) return retryRefund(deps, adminId, { orderId: started.orderId, refundId: started.id });
  return viewOf(await sendCardRefund(deps, started.id));
}

/**
 * Step 3: pending -> succeeded, once per card round, then its steps: credit wallet (once for the
 * refund, even when a later round completes it again after the provider failed a card refund),
 * the buyer's status, reverse tax, revoke downloads, and the buyer told. Null if another call got
 * there first, or the provider failed this round meanwhile.
 */
async function completeRefund(tx: Tx, deps: RefundDeps, refund: RefundRow, providerRefundId: string | null): Promise<RefundRow | null> {
  const succeeded = await markSucceeded(tx, refund, providerRefundId);
  if (!succeeded) return null;
  const { done, order, creditsWallet } = succeeded;
  if (creditsWallet) await creditWallet(tx, order, refund);
  const status = await setBuyerRefundStatus(tx, order);
  // Stripe Tax (decisions 051, 060): what this refund gave back is reversed from the order's tax transaction, once.
  await scheduleTaxReversal(deps.jobs, tx, order, refund.id);
  const revokedDownloads = await revokeDownloads(tx, order, status);
  await recordRefunded(tx, deps, { refund, order, status, creditsWallet, providerRefundId, revokedDownloads });
  return done ?? null;
}

type CardCall = { row: RefundRow; outcome: 'finished' | 'busy' | 'unanswered' };

/**
 * Step 2 and 3: one provider call (same key every time: the provider refunds once), then its
 * outcome recorded once. No answer: the next background attempt is scheduled with backoff,
 * or, after the last one, the refund is marked as given up for the admin to retry.
 */
async function cardCall(deps: RefundDeps, refundId: string): Promise<CardCall> {
  const claimed = await claimCardCall(deps.db, refundId);
  if (!claimed) {
    const current = await refundById(deps.db, refundId);
    return { row: current!, outcome: current!.status === 'pending' ? 'busy' : 'finished' };
  }
  const order = await orderOfRefund(deps.db, claimed);
  const outcome = await refundCard(deps, claimed, order!);
  if ('unanswered' in outcome) return { row: outcome.unanswered, outcome: 'unanswered' };
  await runTransaction(
    deps.db,
    async (tx) => {
      if ('refused' in outcome || outcome.status === 'failed') return failRefund(tx, claimed, 'refused' in outcome ? outcome.refused : 'The card refund failed.');
      return completeRefund(tx, deps, claimed, outcome.refundId);
    },
    { isolationLevel: 'read committed' },
  );
  return { row: (await refundById(deps.db, refundId))!, outcome: 'finished' };
}

/** The admin's request: its card call's outcome, as an answer or the error the admin reads. */
async function sendCardRefund(deps: RefundDeps, refundId: string): Promise<RefundRow> {
  const call = await cardCall(deps, refundId);
  const outcome = call.outcome;
  let row = call.row;
  // A doubled click (or a retry job) holds the call: wait a little for its outcome, as the
  // first click does, instead of answering "still processing" at once.
  for (let waited = 0; outcome === 'busy' && row.status === 'pending' && row.leaseUntil && waited < BUSY_WAIT_MS; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    row = (await refundById(deps.db, refundId))!;
  }
  if (row.status === 'failed') throw new AppError('failed-precondition', REFUND_MESSAGES.cardFailed);
  if (row.status === 'pending') throw new AppError('unavailable', row.gaveUpAt ? viewOf(row).failure! : REFUND_MESSAGES.cardPending);
  return row;
}

/**
 * The `refund-retry` job (decision 034): one more card call for a pending refund. pg-boss gives
 * a job to one worker; the lease makes a second job, a second process or the admin's own click
 * wait instead of calling at the same time; the provider key makes any call the same refund.
 */
export async function runRefundRetry(deps: RefundDeps, job: { refundId: string }): Promise<void> {
  const refund = await refundById(deps.db, job.refundId);
  if (!refund || refund.status !== 'pending' || refund.gaveUpAt) return;
  const { row, outcome } = await cardCall(deps, refund.id);
  // Another holds it: come back when its lease ends (if it finishes first, this finds nothing to do).
  if (outcome === 'busy' && row.status === 'pending' && row.leaseUntil) {
    await deps.jobs.send('refund-retry', { refundId: row.id }, { startAfter: new Date(row.leaseUntil.getTime() + 1000) });
  }
}

/**
 * A safety net each minute: a pending card refund whose holder died mid-call (its lease ran out
 * and no attempt is scheduled) gets its next call.
 */
export async function sweepStalledRefunds(deps: RefundDeps): Promise<number> {
  const stalled = await stalledRefundIds(deps.db);
  for (const { id } of stalled) await runRefundRetry(deps, { refundId: id });
  return stalled.length;
}

/**
 * The admin retries a refund whose background retries ran out: a new round of calls with the
 * same provider key (the card cannot be refunded twice), the first one now. After the provider
 * failed the refund (`refund.failed`), its round was moved on: this sends a new provider refund.
 */
export async function retryRefund(deps: RefundDeps, adminId: string, input: { orderId: string; refundId: string }): Promise<RefundView> {
  const reset = await runTransaction(deps.db, (tx) => resetForRetry(tx, adminId, input), { isolationLevel: 'read committed' });
  if (!reset) {
    const current = await refundOfOrder(deps.db, input);
    if (!current) throw new AppError('not-found', REFUND_MESSAGES.refundNotFound);
    if (current.status === 'pending') throw new AppError('failed-precondition', REFUND_MESSAGES.stillRetrying);
    return viewOf(current);
  }
  return viewOf(await sendCardRefund(deps, reset.id));
}
