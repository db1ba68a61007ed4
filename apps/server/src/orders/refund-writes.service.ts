import { randomBytes } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { CHECKOUT_MESSAGES } from '@storefront/domain/pricing.ts';
import { planRefund, REFUND_MESSAGES, RefundRuleError, type RefundPlan, type RefundStatus } from '@storefront/domain/refunds.ts';
import type { Db } from '../db/client.ts';
import { orderEvents, orderRefunds, orders, users } from '../db/schema/index.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { AppError } from '../errors.ts';
import { publishLive } from '../live/live.publish.ts';
import { refundMail } from '../mail/templates.ts';
import { postReturn, reverseFailedRefund } from '../royalties/ledger.service.ts';
import { refundReturnToPost } from './order-figures.service.ts';
import { buyerRefundStatus, refundable, type OrderRow, type RefundDeps, type RefundRow } from './refunds.service.ts';

/**
 * The writes of a refund's rows, each called by a step of refund.flow.ts (decisions 028, 034):
 * every writer takes the order's row lock first, then the refund's, so there is one lock order.
 */

/** A card call holds its refund this long (beyond the Stripe SDK's 20 s timeout and two retries). */
const LEASE_MS = 120_000;
const retrySettings = (deps: RefundDeps) => deps.refundRetry ?? { attempts: 6, baseMs: 30_000 };

export type RefundInput = { orderId: string; lines?: { lineId: number; quantity: number }[]; shipping?: boolean; amountCents?: number; idempotencyKey: string };

/** The order under its row lock, or not-found. */
export async function lockOrder(tx: Tx, orderId: string): Promise<OrderRow> {
  const [order] = await tx.select().from(orders).where(eq(orders.id, orderId)).for('update');
  if (!order) throw new AppError('not-found', CHECKOUT_MESSAGES.orderNotFound);
  return order;
}

/** The refund this idempotency key already made on the order, if any. */
export async function refundByKey(tx: Tx, orderId: string, idempotencyKey: string): Promise<RefundRow | undefined> {
  const [existing] = await tx
    .select()
    .from(orderRefunds)
    .where(and(eq(orderRefunds.orderId, orderId), eq(orderRefunds.idempotencyKey, idempotencyKey)));
  return existing;
}

/** Planned here from the order's rows under its lock: whatever the desk showed, the split is the server's. */
export async function planOrderRefund(tx: Tx, order: OrderRow, input: RefundInput): Promise<RefundPlan> {
  try {
    return planRefund(await refundable(tx, order), { lines: input.lines, shipping: input.shipping, amountCents: input.amountCents });
  } catch (error) {
    if (error instanceof RefundRuleError) throw new AppError('failed-precondition', error.message);
    throw error;
  }
}

/** The refund's row, with the order's amounts reserved for it, its history line and its audit row. */
export async function reserveRefund(tx: Tx, order: OrderRow, adminId: string, idempotencyKey: string, plan: RefundPlan): Promise<RefundRow> {
  const id = `rf_${randomBytes(9).toString('base64url')}`;
  // Reserved under the lock, and conditional anyway: the check constraints are the last word.
  const reserved = await tx
    .update(orders)
    .set({ refundedWalletCents: sql`${orders.refundedWalletCents} + ${plan.walletCents}`, refundedCardCents: sql`${orders.refundedCardCents} + ${plan.cardCents}` })
    .where(
      and(
        eq(orders.id, order.id),
        sql`${orders.refundedWalletCents} + ${plan.walletCents} <= ${orders.walletAppliedCents}`,
        sql`${orders.refundedCardCents} + ${plan.cardCents} <= ${orders.chargedCents}`,
      ),
    )
    .returning({ id: orders.id });
  if (reserved.length === 0) throw new AppError('failed-precondition', REFUND_MESSAGES.nothingLeft);
  const [refund] = await tx
    .insert(orderRefunds)
    .values({
      id,
      orderId: order.id,
      idempotencyKey,
      adminId,
      walletCents: plan.walletCents,
      cardCents: plan.cardCents,
      shippingCents: plan.shippingCents,
      lines: plan.lines,
      status: 'pending',
    })
    .returning();
  await tx.insert(orderEvents).values({
    orderId: order.id,
    kind: 'refund-requested',
    actorId: adminId,
    detail: { refundId: id, walletCents: plan.walletCents, cardCents: plan.cardCents, shippingCents: plan.shippingCents, lines: plan.lines },
  });
  // Every admin action is in the activity list (issue 25 item 13), in the same transaction.
  await recordAudit(tx, {
    actor: { userId: adminId },
    action: 'order.refund',
    targetType: 'order',
    targetId: order.id,
    after: { refundId: id, walletCents: plan.walletCents, cardCents: plan.cardCents, shippingCents: plan.shippingCents, lines: plan.lines },
  });
  // The royalty ledger's return (decision 075): with the reservation, as the sales overview counts it from now.
  await postReturn(tx, await refundReturnToPost(tx, id));
  return refund!;
}

/**
 * Pending -> succeeded, once per card round; whether this round credits the wallet part (once for
 * the refund, even when a later round completes it again after the provider failed a card
 * refund). Null if another call got there first, or the provider failed this round meanwhile.
 */
export async function markSucceeded(
  tx: Tx,
  refund: RefundRow,
  providerRefundId: string | null,
): Promise<{ done: RefundRow | undefined; order: OrderRow; creditsWallet: boolean } | null> {
  // The order's lock first, as every refund writer takes it (one lock order: no deadlocks).
  await tx.select({ id: orders.id }).from(orders).where(eq(orders.id, refund.orderId)).for('update');
  const [current] = await tx.select().from(orderRefunds).where(eq(orderRefunds.id, refund.id)).for('update');
  if (!current || current.status !== 'pending' || current.cardRound !== refund.cardRound) return null;
  const creditsWallet = refund.walletCents > 0 && current.walletRefundedAt === null;
  const [done] = await tx
    .update(orderRefunds)
    .set({
      status: 'succeeded',
      providerRefundId,
      completedAt: new Date(),
      leaseUntil: null,
      nextAttemptAt: null,
      gaveUpAt: null,
      failure: null,
      // Set only when a credit is written: a card-only refund has nothing that stays given back,
      // so a later refusal of its card part fails it (releasing the reservation) instead of
      // holding it for a Retry for ever.
      walletRefundedAt: creditsWallet ? new Date() : current.walletRefundedAt,
    })
    .where(eq(orderRefunds.id, refund.id))
    .returning();
  const [order] = await tx.select().from(orders).where(eq(orders.id, refund.orderId));
  return { done, order: order!, creditsWallet };
}

/** The buyer's Refunded / Partially refunded, set from what really went back. */
export async function setBuyerRefundStatus(tx: Tx, order: OrderRow): Promise<RefundStatus | null> {
  const status = await buyerRefundStatus(tx, order);
  await tx.update(orders).set({ refundStatus: status }).where(eq(orders.id, order.id));
  return status;
}

/** The refund's history line, the buyer's email and the live announcement of a completed refund. */
export async function recordRefunded(
  tx: Tx,
  deps: Pick<RefundDeps, 'jobs' | 'publicUrl'>,
  done: { refund: RefundRow; order: OrderRow; status: RefundStatus | null; creditsWallet: boolean; providerRefundId: string | null; revokedDownloads: number },
): Promise<void> {
  const { refund, order, status, creditsWallet, providerRefundId, revokedDownloads } = done;
  await tx.insert(orderEvents).values({
    orderId: order.id,
    kind: 'refunded',
    actorId: refund.adminId,
    detail: { refundId: refund.id, walletCents: creditsWallet ? refund.walletCents : 0, cardCents: refund.cardCents, lines: refund.lines, providerRefundId, revokedDownloads },
  });
  const [buyer] = await tx.select({ email: users.email, name: users.name }).from(users).where(eq(users.id, order.userId));
  if (buyer) {
    const mail = refundMail(
      buyer.email,
      buyer.name,
      { orderId: order.id, walletCents: creditsWallet ? refund.walletCents : 0, cardCents: refund.cardCents, full: status === 'refunded' },
      `${deps.publicUrl}/my-orders`,
    );
    await deps.jobs.sendInTransaction(tx, 'send-email', mail);
  }
  await publishLive(tx, { topic: 'orders', userId: order.userId, id: order.id }, { topic: 'all-orders', id: order.id });
}

/** A refund's row as it is now. */
export async function refundById(db: Db | Tx, refundId: string): Promise<RefundRow | undefined> {
  const [row] = await db.select().from(orderRefunds).where(eq(orderRefunds.id, refundId));
  return row;
}

/** The order a refund gives back from. */
export async function orderOfRefund(db: Db, refund: RefundRow): Promise<OrderRow | undefined> {
  const [order] = await db.select().from(orders).where(eq(orders.id, refund.orderId));
  return order;
}

/**
 * Takes the refund's card call for this process (decision 034): one call at a time across
 * processes and workers, counted. Null when another holds it or it is no longer pending.
 */
export async function claimCardCall(db: Db, refundId: string): Promise<RefundRow | null> {
  const [claimed] = await db
    .update(orderRefunds)
    .set({ leaseUntil: sql`now() + ${`${LEASE_MS} milliseconds`}::interval`, attempts: sql`${orderRefunds.attempts} + 1`, nextAttemptAt: null })
    .where(and(eq(orderRefunds.id, refundId), eq(orderRefunds.status, 'pending'), sql`(${orderRefunds.leaseUntil} IS NULL OR ${orderRefunds.leaseUntil} < now())`))
    .returning();
  return claimed ?? null;
}

/** The call got no answer: the lease is given back and the next attempt scheduled, or the retries end. */
export async function recordUnanswered(deps: RefundDeps, claimed: RefundRow, error: unknown): Promise<RefundRow> {
  const settings = retrySettings(deps);
  const reason = (error instanceof Error ? error.message : String(error)).slice(0, 500) || 'No answer from the payment provider.';
  return runTransaction(
    deps.db,
    async (tx) => {
      const gaveUp = claimed.attempts >= settings.attempts;
      const next = gaveUp ? null : new Date(Date.now() + settings.baseMs * 2 ** Math.min(claimed.attempts - 1, 20));
      const [row] = await tx
        .update(orderRefunds)
        .set({ lastError: reason, leaseUntil: null, nextAttemptAt: next, gaveUpAt: gaveUp ? new Date() : null })
        .where(and(eq(orderRefunds.id, claimed.id), eq(orderRefunds.status, 'pending'), eq(orderRefunds.cardRound, claimed.cardRound)))
        .returning();
      if (!row) return (await tx.select().from(orderRefunds).where(eq(orderRefunds.id, claimed.id)))[0]!;
      if (next) await deps.jobs.sendInTransaction(tx, 'refund-retry', { refundId: claimed.id }, { startAfter: next });
      else await tx.insert(orderEvents).values({ orderId: claimed.orderId, kind: 'refund-gave-up', detail: { refundId: claimed.id, attempts: claimed.attempts, reason } });
      const [order] = await tx.select({ userId: orders.userId }).from(orders).where(eq(orders.id, claimed.orderId));
      await publishLive(tx, { topic: 'orders', userId: order!.userId, id: claimed.orderId }, { topic: 'all-orders', id: claimed.orderId });
      return row;
    },
    { isolationLevel: 'read committed' },
  );
}

/**
 * The provider refused: the reservation goes back (amounts; its lines stop counting as it is
 * failed), once. A refund whose wallet part already went back (an earlier card round that the
 * provider failed later) cannot be undone that way: it waits for the admin's Retry instead.
 */
export async function failRefund(tx: Tx, refund: RefundRow, reason: string): Promise<RefundRow | null> {
  await tx.select({ id: orders.id }).from(orders).where(eq(orders.id, refund.orderId)).for('update');
  const [current] = await tx.select().from(orderRefunds).where(eq(orderRefunds.id, refund.id)).for('update');
  if (!current || current.status !== 'pending' || current.cardRound !== refund.cardRound) return null;
  if (current.walletRefundedAt) return holdForRetry(tx, current, { reason: reason.replace(/\.$/, ''), providerRefundId: null });
  const [failed] = await tx
    .update(orderRefunds)
    .set({ status: 'failed', failure: reason.slice(0, 500), completedAt: new Date(), leaseUntil: null, nextAttemptAt: null, gaveUpAt: null })
    .where(eq(orderRefunds.id, refund.id))
    .returning();
  await tx
    .update(orders)
    .set({ refundedWalletCents: sql`${orders.refundedWalletCents} - ${refund.walletCents}`, refundedCardCents: sql`${orders.refundedCardCents} - ${refund.cardCents}` })
    .where(eq(orders.id, refund.orderId));
  await tx.insert(orderEvents).values({ orderId: refund.orderId, kind: 'refund-failed', actorId: refund.adminId, detail: { refundId: refund.id, reason } });
  // No longer counted by the sales overview: its royalty return is reversed (decision 075).
  await reverseFailedRefund(tx, refund.id);
  return failed ?? null;
}

/**
 * The card part did not go back, but the refund stands (decision 034): the row is pending again and
 * given up, with the provider's reason, for the admin's Retry; its amounts stay reserved (the
 * wallet part, if it was credited, stays credited: a later round does not credit it again); its
 * card round moves on, so the Retry is a new provider refund and a late outcome of the failed
 * round changes nothing. The buyer's status counts only what really went back.
 * Called under the order's and the refund's row locks.
 */
export async function holdForRetry(tx: Tx, refund: RefundRow, failure: { reason: string; providerRefundId: string | null }): Promise<RefundRow> {
  const [held] = await tx
    .update(orderRefunds)
    .set({
      status: 'pending',
      failure: REFUND_MESSAGES.cardFailedAtProvider(failure.reason).slice(0, 500),
      gaveUpAt: new Date(),
      cardRound: refund.cardRound + 1,
      providerRefundId: null,
      completedAt: null,
      leaseUntil: null,
      nextAttemptAt: null,
      lastError: failure.reason.slice(0, 500),
    })
    .where(eq(orderRefunds.id, refund.id))
    .returning();
  const [order] = await tx.select().from(orders).where(eq(orders.id, refund.orderId));
  await tx
    .update(orders)
    .set({ refundStatus: await buyerRefundStatus(tx, order!) })
    .where(eq(orders.id, order!.id));
  await tx.insert(orderEvents).values({
    orderId: refund.orderId,
    kind: 'refund-failed',
    detail: { refundId: refund.id, reason: failure.reason, providerRefundId: failure.providerRefundId, cardCents: refund.cardCents, round: refund.cardRound },
  });
  await publishLive(tx, { topic: 'orders', userId: order!.userId, id: order!.id }, { topic: 'all-orders', id: order!.id });
  return held!;
}

/** Pending card refunds whose holder died mid-call: the lease ran out and no attempt is scheduled. */
export async function stalledRefundIds(db: Db): Promise<{ id: string }[]> {
  return db
    .select({ id: orderRefunds.id })
    .from(orderRefunds)
    .where(
      and(
        eq(orderRefunds.status, 'pending'),
        sql`${orderRefunds.gaveUpAt} IS NULL AND ${orderRefunds.cardCents} > 0`,
        sql`(${orderRefunds.leaseUntil} IS NULL OR ${orderRefunds.leaseUntil} < now())`,
        sql`coalesce(${orderRefunds.nextAttemptAt}, ${orderRefunds.createdAt}) < now() - interval '2 minutes'`,
      ),
    )
    .limit(100);
}

/** A given-up pending refund made ready for a new round of calls (the admin's Retry); undefined when it is not one. */
export async function resetForRetry(tx: Tx, adminId: string, input: { orderId: string; refundId: string }): Promise<RefundRow | undefined> {
  const [row] = await tx
    .update(orderRefunds)
    .set({ gaveUpAt: null, attempts: 0, nextAttemptAt: null, failure: null })
    .where(and(eq(orderRefunds.id, input.refundId), eq(orderRefunds.orderId, input.orderId), eq(orderRefunds.status, 'pending'), sql`${orderRefunds.gaveUpAt} IS NOT NULL`))
    .returning();
  if (!row) return undefined;
  await tx.insert(orderEvents).values({ orderId: row.orderId, kind: 'refund-retried', actorId: adminId, detail: { refundId: row.id } });
  await recordAudit(tx, { actor: { userId: adminId }, action: 'order.refund-retry', targetType: 'order', targetId: row.orderId, after: { refundId: row.id } });
  return row;
}

/** The refund of this order, or undefined. */
export async function refundOfOrder(db: Db, input: { orderId: string; refundId: string }): Promise<RefundRow | undefined> {
  const [current] = await db
    .select()
    .from(orderRefunds)
    .where(and(eq(orderRefunds.id, input.refundId), eq(orderRefunds.orderId, input.orderId)));
  return current;
}
