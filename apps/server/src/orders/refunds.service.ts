import { randomBytes } from 'node:crypto';
import { and, asc, eq, inArray, ne, sql } from 'drizzle-orm';
import { CHECKOUT_MESSAGES, discountedLines, taxCents } from '@storefront/domain/pricing.ts';
import { linesCodeAppliesTo } from '@storefront/domain/discounts.ts';
import { GIFT_CARD_MESSAGES } from '@storefront/domain/gift-cards.ts';
import {
  planRefund,
  refundFailureReason,
  REFUND_MESSAGES,
  RefundRuleError,
  refundStatusOf,
  type RefundableLine,
  type RefundableOrder,
  type RefundStatus,
} from '@storefront/domain/refunds.ts';
import type { ReversalOrder, ReversalRefund } from '@storefront/domain/tax-reversal.ts';
import type { Db } from '../db/client.ts';
import { orderEvents, orderItems, orderRefunds, orders, users } from '../db/schema/index.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import { revokeForOrder } from '../digital/sales.service.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { AppError } from '../errors.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { publishLive } from '../live/live.publish.ts';
import { refundFailedMail, refundMail } from '../mail/templates.ts';
import { recordProviderEventOnce } from '../payments/provider-events.service.ts';
import { RefundRefusedError, type PaymentEvent, type PaymentProvider } from '../payments/provider.ts';
import { credit } from '../wallet/wallet.service.ts';
import { giftCardVariantsOf, orderHasLiveGiftCards, voidGiftCardsForRefund } from '../giftcards/giftcards.service.ts';
import { findCode } from '../discounts/discounts.service.ts';
import { categoriesOfProducts } from '../catalog/categories.service.ts';

/**
 * Refunds exactly once (decision 028). 1: under the order's row lock, the refund row (unique
 * per order and idempotency key) is written and the order's refundable amounts are reserved
 * by a conditional update. 2: outside any transaction, the card part goes to the provider
 * with a key derived from the refund's id, so a retry is the same provider refund. 3: one
 * conditional update (pending -> succeeded) credits the wallet part, sets the buyer's
 * status, records the history, queues the email and announces it live. A refusal instead
 * gives the reservation back.
 */
export interface RefundDeps {
  db: Db;
  jobs: JobQueue;
  provider: PaymentProvider;
  publicUrl: string;
  /** Background retries of card calls that got no answer (decision 034); defaults: 6 calls, 30 s doubling. */
  refundRetry?: { attempts: number; baseMs: number };
}

/** How long an admin's request waits for a card call another request or job is making. */
const BUSY_WAIT_MS = 25_000;

/** A card call holds its refund this long (beyond the Stripe SDK's 20 s timeout and two retries). */
const LEASE_MS = 120_000;
const retrySettings = (deps: RefundDeps) => deps.refundRetry ?? { attempts: 6, baseMs: 30_000 };

export interface RefundView {
  id: string;
  orderId: string;
  status: 'pending' | 'succeeded' | 'failed';
  walletCents: number;
  cardCents: number;
  /** The shipping (and its tax) among them (decision 050). */
  shippingCents: number;
  lines: { lineId: number; quantity: number }[];
  failure: string | null;
  /** Card calls without an answer are retried in the background (decision 034). */
  retry: { attempts: number; lastError: string | null; nextAttemptAt: string | null; gaveUp: boolean };
}

type RefundRow = typeof orderRefunds.$inferSelect;
type OrderRow = typeof orders.$inferSelect;

const viewOf = (row: RefundRow): RefundView => ({
  id: row.id,
  orderId: row.orderId,
  status: row.status,
  walletCents: row.walletCents,
  cardCents: row.cardCents,
  shippingCents: row.shippingCents,
  lines: row.lines,
  // Given up: the retries ran out, or the provider failed the refund after accepting it (its reason).
  failure: row.gaveUpAt ? (row.failure ?? REFUND_MESSAGES.cardGaveUp(row.attempts)) : row.failure,
  retry: { attempts: row.attempts, lastError: row.lastError, nextAttemptAt: row.nextAttemptAt?.toISOString() ?? null, gaveUp: row.gaveUpAt !== null },
});

/**
 * What the wallet part really took from the ledger: the wallet-only debit, a card checkout's
 * capture, or a late payment's debit. A late payment whose wallet part was no longer there
 * took nothing, whatever the order says, and gets nothing back.
 */
async function walletPaidCents(tx: Tx, order: OrderRow): Promise<number> {
  const result = await tx.execute(sql`
    SELECT coalesce(sum(CASE WHEN kind = 'debit' THEN -available_delta_cents ELSE -held_delta_cents END), 0)::bigint AS paid
    FROM ledger_entry
    WHERE user_id = ${order.userId}
      AND ((kind = 'debit' AND reference IN (${order.id}, ${`late:${order.checkoutId}`})) OR (kind = 'capture' AND reference = ${order.checkoutId}))`);
  return Math.min(order.walletAppliedCents, Number((result.rows[0] as { paid: string }).paid));
}

/**
 * What an order has left to refund, or has really given back. `reserved` (planning a refund): the
 * order's amounts and the lines of every refund that did not fail, pending ones included, so two
 * refunds never plan the same money. `settled` (what the buyer is told): without what pending
 * refunds have not yet given back (their card part; their wallet part until it is credited), and
 * the lines of succeeded refunds only (decision 034). Every writer of refunds holds the order's
 * row lock first, so under it these counts are exact.
 */
async function refundable(tx: Tx, order: OrderRow, view: 'reserved' | 'settled' = 'reserved'): Promise<RefundableOrder> {
  const items = await tx.select().from(orderItems).where(eq(orderItems.orderId, order.id)).orderBy(asc(orderItems.position));
  const rows = await tx
    .select({
      status: orderRefunds.status,
      lines: orderRefunds.lines,
      walletCents: orderRefunds.walletCents,
      cardCents: orderRefunds.cardCents,
      walletRefundedAt: orderRefunds.walletRefundedAt,
      shippingCents: orderRefunds.shippingCents,
    })
    .from(orderRefunds)
    .where(and(eq(orderRefunds.orderId, order.id), ne(orderRefunds.status, 'failed')));
  const refunded = new Map<number, number>();
  let [unsettledWallet, unsettledCard] = [0, 0];
  // Reserved by any refund that did not fail: the shipping is planned once (decision 050).
  const shippingRefunded = rows.some((row) => row.shippingCents > 0);
  for (const row of rows) {
    if (view === 'settled' && row.status === 'pending') {
      unsettledCard += row.cardCents;
      if (!row.walletRefundedAt) unsettledWallet += row.walletCents;
      continue;
    }
    for (const line of row.lines) refunded.set(line.lineId, (refunded.get(line.lineId) ?? 0) + line.quantity);
  }
  return {
    walletPaidCents: await walletPaidCents(tx, order),
    cardPaidCents: order.chargedCents,
    refundedWalletCents: Math.max(0, order.refundedWalletCents - unsettledWallet),
    refundedCardCents: Math.max(0, order.refundedCardCents - unsettledCard),
    lines: await withPaidShares(tx, order, items, refunded),
    // What the buyer paid for the shipping: it and the tax the order added on it (decisions 050, 060).
    shippingCents: order.shippingCents > 0 ? order.shippingCents + (order.shippingTaxCents ?? taxCents(order.shippingCents)) : 0,
    shippingRefunded,
  };
}

/**
 * The order's lines as a refund sees them (issue 27): what each line paid once the order's
 * discount code took its share (spread over the lines the code applies to, in proportion,
 * exactly as pricing spread it), and whether tax was charged on it (not on a gift card).
 */
async function withPaidShares(tx: Tx, order: OrderRow, items: (typeof orderItems.$inferSelect)[], refunded: Map<number, number>): Promise<RefundableLine[]> {
  const giftCardVariants = await giftCardVariantsOf(tx, order.id);
  let paid: number[] | undefined;
  if (order.discountCents > 0) {
    const code = order.discountCode ? await findCode(tx, order.discountCode) : undefined;
    let appliesTo: boolean[] | undefined;
    if (code) {
      const categories = code.scope === 'category' ? await categoriesOfProducts(tx, [...new Set(items.map((item) => item.productId))]) : new Map<string, string | null>();
      const lines = items.map((item) => ({ productId: item.productId, categoryId: categories.get(item.productId) ?? null, unitCents: item.unitCents, qty: item.qty }));
      appliesTo = linesCodeAppliesTo(code, lines);
    }
    // The code is gone or no longer names these lines: its discount is spread over every line.
    const discount = { kind: 'fixed' as const, value: order.discountCents, ...(appliesTo?.some(Boolean) ? { appliesTo } : {}) };
    paid = discountedLines(
      items.map((item) => ({ unitCents: item.unitCents, qty: item.qty })),
      discount,
      order.discountCents,
    ).map((line) => line.unitCents);
  }
  return items.map((item, index) => ({
    lineId: item.position,
    unitCents: item.unitCents,
    qty: item.qty,
    refundedQty: refunded.get(item.position) ?? 0,
    ...(paid ? { paidCents: paid[index]! } : {}),
    ...(giftCardVariants.has(item.variantId ?? item.productId) ? { taxed: false } : {}),
    // The line's tax basis at the order's own rate (decision 060), over the shares above; older orders have none.
    ...(item.paidCents !== null && item.taxCents !== null ? { paidCents: item.paidCents, taxCents: item.taxCents } : {}),
  }));
}

/** What the desk plans a refund from (decision 050): the same counts the server plans with, read outside a refund. */
export async function refundableOf(db: Db, orderId: string): Promise<RefundableOrder> {
  return runTransaction(
    db,
    async (tx) => {
      const [order] = await tx.select().from(orders).where(eq(orders.id, orderId));
      if (!order) throw new AppError('not-found', CHECKOUT_MESSAGES.orderNotFound);
      return refundable(tx, order);
    },
    { isolationLevel: 'repeatable read' },
  );
}

/**
 * True when the order's refunds, counted as reserved (pending ones included, a held one too),
 * give back all of it: fulfilment refuses such an order, so a refund that the provider failed
 * after accepting it (the buyer's status back to partial until the Retry) does not let it ship.
 * Called under the order's row lock.
 */
export async function refundsCoverOrder(tx: Tx, order: OrderRow): Promise<boolean> {
  // Every refund reserves some money (planRefund refuses an empty one): none reserved, none planned.
  if (order.refundedWalletCents + order.refundedCardCents === 0) return false;
  return refundStatusOf(await refundable(tx, order, 'reserved')) === 'refunded';
}

/** The buyer's Refunded / Partially refunded: only what really went back (decision 034). */
async function buyerRefundStatus(tx: Tx, order: OrderRow): Promise<RefundStatus | null> {
  return refundStatusOf(await refundable(tx, order, 'settled'));
}

/**
 * The gift cards a refund takes back (decision 053): by line, that many of the line's unredeemed
 * cards are voided in the refund's transaction (none left unredeemed: refused, the money stays).
 * A refund by amount names no units, so it is refused while the order has cards not voided.
 */
async function voidRefundedGiftCards(tx: Tx, orderId: string, lines: { lineId: number; quantity: number }[], byAmount: boolean): Promise<void> {
  if (byAmount) {
    if (await orderHasLiveGiftCards(tx, orderId)) throw new AppError('failed-precondition', GIFT_CARD_MESSAGES.refundByLine);
    return;
  }
  if (lines.length === 0) return;
  const items = await tx
    .select({ position: orderItems.position, variantId: orderItems.variantId, productId: orderItems.productId })
    .from(orderItems)
    .where(
      and(
        eq(orderItems.orderId, orderId),
        inArray(
          orderItems.position,
          lines.map((line) => line.lineId),
        ),
      ),
    );
  const units = new Map<string, number>();
  for (const line of lines) {
    const item = items.find((candidate) => candidate.position === line.lineId);
    const variantId = item?.variantId ?? item?.productId;
    if (variantId) units.set(variantId, (units.get(variantId) ?? 0) + line.quantity);
  }
  await voidGiftCardsForRefund(tx, orderId, units);
}

/** The provider key of the refund's current card round: `refund-<id>`, then `refund-<id>-2`, ... (decision 034). */
const cardKey = (row: RefundRow) => (row.cardRound === 1 ? `refund-${row.id}` : `refund-${row.id}-${row.cardRound}`);

export async function refundOrder(
  deps: RefundDeps,
  adminId: string,
  input: { orderId: string; lines?: { lineId: number; quantity: number }[]; shipping?: boolean; amountCents?: number; idempotencyKey: string },
): Promise<RefundView> {
  const started = await runTransaction(
    deps.db,
    async (tx) => {
      const [order] = await tx.select().from(orders).where(eq(orders.id, input.orderId)).for('update');
      if (!order) throw new AppError('not-found', CHECKOUT_MESSAGES.orderNotFound);
      const [existing] = await tx
        .select()
        .from(orderRefunds)
        .where(and(eq(orderRefunds.orderId, order.id), eq(orderRefunds.idempotencyKey, input.idempotencyKey)));
      if (existing) return { refund: existing, order };

      let plan;
      try {
        // Planned here from the order's rows under its lock: whatever the desk showed, the split is the server's.
        plan = planRefund(await refundable(tx, order), { lines: input.lines, shipping: input.shipping, amountCents: input.amountCents });
      } catch (error) {
        if (error instanceof RefundRuleError) throw new AppError('failed-precondition', error.message);
        throw error;
      }
      // Gift cards (decision 053): the refunded units' unredeemed cards are voided; a redeemed one is refused.
      await voidRefundedGiftCards(tx, order.id, plan.lines, input.amountCents !== undefined);
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
          idempotencyKey: input.idempotencyKey,
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
      // Nothing to send to a card: the whole refund is this transaction.
      if (plan.cardCents === 0) return { refund: (await completeRefund(tx, deps, refund!, null)) ?? refund!, order };
      return { refund: refund!, order };
    },
    { isolationLevel: 'read committed' },
  );
  if (started.refund.status !== 'pending') return viewOf(started.refund);
  // The same click again after the retries ran out: a new round, as the admin's Retry.
  if (started.refund.gaveUpAt) return retryRefund(deps, adminId, { orderId: started.refund.orderId, refundId: started.refund.id });
  return viewOf(await sendCardRefund(deps, started.refund.id));
}

/**
 * Takes the refund's card call for this process (decision 034): one call at a time across
 * processes and workers, counted. Null when another holds it or it is no longer pending.
 */
async function claimCardCall(db: Db, refundId: string): Promise<RefundRow | null> {
  const [claimed] = await db
    .update(orderRefunds)
    .set({ leaseUntil: sql`now() + ${`${LEASE_MS} milliseconds`}::interval`, attempts: sql`${orderRefunds.attempts} + 1`, nextAttemptAt: null })
    .where(and(eq(orderRefunds.id, refundId), eq(orderRefunds.status, 'pending'), sql`(${orderRefunds.leaseUntil} IS NULL OR ${orderRefunds.leaseUntil} < now())`))
    .returning();
  return claimed ?? null;
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
    const [current] = await deps.db.select().from(orderRefunds).where(eq(orderRefunds.id, refundId));
    return { row: current!, outcome: current!.status === 'pending' ? 'busy' : 'finished' };
  }
  const [order] = await deps.db.select().from(orders).where(eq(orders.id, claimed.orderId));
  let outcome: { refundId: string; status: 'succeeded' | 'failed' } | { refused: string };
  try {
    outcome = await deps.provider.refund({
      paymentIntentId: order!.paymentIntentId,
      amountCents: claimed.cardCents,
      idempotencyKey: cardKey(claimed),
      orderId: order!.id,
      refundId: claimed.id,
      round: claimed.cardRound,
    });
  } catch (error) {
    if (!(error instanceof RefundRefusedError)) {
      console.warn(`Card refund ${claimed.id} of order ${order!.id} did not get an answer (call ${claimed.attempts}):`, error);
      return { row: await recordUnanswered(deps, claimed, error), outcome: 'unanswered' };
    }
    outcome = { refused: error.message };
  }
  await runTransaction(
    deps.db,
    async (tx) => {
      if ('refused' in outcome || outcome.status === 'failed') return failRefund(tx, claimed, 'refused' in outcome ? outcome.refused : 'The card refund failed.');
      return completeRefund(tx, deps, claimed, outcome.refundId);
    },
    { isolationLevel: 'read committed' },
  );
  const [current] = await deps.db.select().from(orderRefunds).where(eq(orderRefunds.id, refundId));
  return { row: current!, outcome: 'finished' };
}

/** The call got no answer: the lease is given back and the next attempt scheduled, or the retries end. */
async function recordUnanswered(deps: RefundDeps, claimed: RefundRow, error: unknown): Promise<RefundRow> {
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

/** The admin's request: its card call's outcome, as an answer or the error the admin reads. */
async function sendCardRefund(deps: RefundDeps, refundId: string): Promise<RefundRow> {
  const call = await cardCall(deps, refundId);
  const outcome = call.outcome;
  let row = call.row;
  // A doubled click (or a retry job) holds the call: wait a little for its outcome, as the
  // first click does, instead of answering "still processing" at once.
  for (let waited = 0; outcome === 'busy' && row.status === 'pending' && row.leaseUntil && waited < BUSY_WAIT_MS; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    [row] = (await deps.db.select().from(orderRefunds).where(eq(orderRefunds.id, refundId))) as [RefundRow];
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
  const [refund] = await deps.db.select().from(orderRefunds).where(eq(orderRefunds.id, job.refundId));
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
  const stalled = await deps.db
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
  for (const { id } of stalled) await runRefundRetry(deps, { refundId: id });
  return stalled.length;
}

/**
 * The admin retries a refund whose background retries ran out: a new round of calls with the
 * same provider key (the card cannot be refunded twice), the first one now. After the provider
 * failed the refund (`refund.failed`), its round was moved on: this sends a new provider refund.
 */
export async function retryRefund(deps: RefundDeps, adminId: string, input: { orderId: string; refundId: string }): Promise<RefundView> {
  const reset = await runTransaction(
    deps.db,
    async (tx) => {
      const [row] = await tx
        .update(orderRefunds)
        .set({ gaveUpAt: null, attempts: 0, nextAttemptAt: null, failure: null })
        .where(and(eq(orderRefunds.id, input.refundId), eq(orderRefunds.orderId, input.orderId), eq(orderRefunds.status, 'pending'), sql`${orderRefunds.gaveUpAt} IS NOT NULL`))
        .returning();
      if (!row) return undefined;
      await tx.insert(orderEvents).values({ orderId: row.orderId, kind: 'refund-retried', actorId: adminId, detail: { refundId: row.id } });
      await recordAudit(tx, { actor: { userId: adminId }, action: 'order.refund-retry', targetType: 'order', targetId: row.orderId, after: { refundId: row.id } });
      return row;
    },
    { isolationLevel: 'read committed' },
  );
  if (!reset) {
    const [current] = await deps.db
      .select()
      .from(orderRefunds)
      .where(and(eq(orderRefunds.id, input.refundId), eq(orderRefunds.orderId, input.orderId)));
    if (!current) throw new AppError('not-found', REFUND_MESSAGES.refundNotFound);
    if (current.status === 'pending') throw new AppError('failed-precondition', REFUND_MESSAGES.stillRetrying);
    return viewOf(current);
  }
  return viewOf(await sendCardRefund(deps, reset.id));
}

/**
 * Step "revoke downloads" (issue 28, decision 061), in the transaction that completes a refund:
 * an order refunded in full gives back every download it granted; otherwise each line refunded
 * in full (by the succeeded refunds, this one included) gives back its release or track. A refund
 * of an amount alone, short of the whole order, leaves the downloads. How many grants went.
 */
async function revokeRefundedDownloads(tx: Tx, order: OrderRow, status: RefundStatus | null): Promise<number> {
  if (status === 'refunded') return revokeForOrder(tx, { userId: order.userId, orderId: order.id, productIds: 'all' });
  const settled = await refundable(tx, order, 'settled');
  const refundedLines = new Set(settled.lines.filter((line) => line.refundedQty >= line.qty).map((line) => line.lineId));
  if (refundedLines.size === 0) return 0;
  const items = await tx.select({ position: orderItems.position, productId: orderItems.productId }).from(orderItems).where(eq(orderItems.orderId, order.id));
  return revokeForOrder(tx, { userId: order.userId, orderId: order.id, productIds: items.filter((item) => refundedLines.has(item.position)).map((item) => item.productId) });
}

/**
 * Pending -> succeeded, once per card round: credits the wallet part (once for the refund, even when
 * a later round completes it again after the provider failed a card refund) and tells the buyer.
 * Null if another call got there first, or the provider failed this round meanwhile.
 */
async function completeRefund(tx: Tx, deps: RefundDeps, refund: RefundRow, providerRefundId: string | null): Promise<RefundRow | null> {
  // The order's lock first, as every refund writer takes it (one lock order: no deadlocks).
  await tx.select({ id: orders.id }).from(orders).where(eq(orders.id, refund.orderId)).for('update');
  const [current] = await tx.select().from(orderRefunds).where(eq(orderRefunds.id, refund.id)).for('update');
  if (!current || current.status !== 'pending' || current.cardRound !== refund.cardRound) return null;
  const creditWallet = refund.walletCents > 0 && current.walletRefundedAt === null;
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
      walletRefundedAt: creditWallet ? new Date() : current.walletRefundedAt,
    })
    .where(eq(orderRefunds.id, refund.id))
    .returning();
  const [order] = await tx.select().from(orders).where(eq(orders.id, refund.orderId));
  if (creditWallet) await credit(tx, order!.userId, refund.walletCents, `refund:${refund.id}`, 'refund', `refund of order ${order!.id}`);
  const status = await buyerRefundStatus(tx, order!);
  await tx.update(orders).set({ refundStatus: status }).where(eq(orders.id, order!.id));
  // Stripe Tax (decisions 051, 060): what this refund gave back is reversed from the order's tax transaction, once.
  if (order!.taxCalculationId) await deps.jobs.sendInTransaction(tx, 'reverse-tax', { orderId: order!.id, refundId: refund.id });
  const revokedDownloads = await revokeRefundedDownloads(tx, order!, status);
  await tx.insert(orderEvents).values({
    orderId: order!.id,
    kind: 'refunded',
    actorId: refund.adminId,
    detail: { refundId: refund.id, walletCents: creditWallet ? refund.walletCents : 0, cardCents: refund.cardCents, lines: refund.lines, providerRefundId, revokedDownloads },
  });
  const [buyer] = await tx.select({ email: users.email, name: users.name }).from(users).where(eq(users.id, order!.userId));
  if (buyer) {
    const mail = refundMail(
      buyer.email,
      buyer.name,
      { orderId: order!.id, walletCents: creditWallet ? refund.walletCents : 0, cardCents: refund.cardCents, full: status === 'refunded' },
      `${deps.publicUrl}/my-orders`,
    );
    await deps.jobs.sendInTransaction(tx, 'send-email', mail);
  }
  await publishLive(tx, { topic: 'orders', userId: order!.userId, id: order!.id }, { topic: 'all-orders', id: order!.id });
  return done ?? null;
}

/**
 * The provider refused: the reservation goes back (amounts; its lines stop counting as it is
 * failed), once. A refund whose wallet part already went back (an earlier card round that the
 * provider failed later) cannot be undone that way: it waits for the admin's Retry instead.
 */
async function failRefund(tx: Tx, refund: RefundRow, reason: string): Promise<RefundRow | null> {
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
async function holdForRetry(tx: Tx, refund: RefundRow, failure: { reason: string; providerRefundId: string | null }): Promise<RefundRow> {
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

/**
 * The provider's verified refund events, each recorded once per event id (decision 028):
 * `charge.refunded` and a refund that failed after it was accepted (decision 034).
 */
export async function applyRefundEvent(deps: RefundDeps, event: PaymentEvent): Promise<'applied' | 'duplicate' | 'ignored'> {
  if (event.type === 'refund-failed') return applyRefundFailure(deps, event);
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
      if (total <= order.refundedCardCents) return 'applied';
      await tx.update(orders).set({ refundedCardCents: total }).where(eq(orders.id, order.id));
      const status = await buyerRefundStatus(tx, { ...order, refundedCardCents: total });
      await tx.update(orders).set({ refundStatus: status }).where(eq(orders.id, order.id));
      // Refunded in full at the provider: the downloads it granted go too (issue 28).
      if (status === 'refunded') await revokeForOrder(tx, { userId: order.userId, orderId: order.id, productIds: 'all' });
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

/**
 * What the order's tax reversals are computed from (decision 060): its lines' and shipping's tax
 * basis, and its succeeded refunds in the order they were made.
 */
export async function reversalBasisOf(db: Db, orderId: string): Promise<{ order: ReversalOrder; refunds: ReversalRefund[] }> {
  const [order] = await db.select().from(orders).where(eq(orders.id, orderId));
  if (!order) throw new AppError('not-found', CHECKOUT_MESSAGES.orderNotFound);
  const items = await db.select().from(orderItems).where(eq(orderItems.orderId, orderId)).orderBy(asc(orderItems.position));
  const rows = await db
    .select()
    .from(orderRefunds)
    .where(and(eq(orderRefunds.orderId, orderId), eq(orderRefunds.status, 'succeeded')))
    .orderBy(asc(orderRefunds.createdAt), asc(orderRefunds.id));
  return {
    order: {
      lines: items.map((item) => ({
        lineId: item.position,
        qty: item.qty,
        paidCents: item.paidCents ?? item.unitCents * item.qty,
        taxCents: item.taxCents ?? taxCents(item.unitCents * item.qty),
      })),
      shippingCents: order.shippingCents,
      shippingTaxCents: order.shippingTaxCents ?? taxCents(order.shippingCents),
    },
    refunds: rows.map((row) => ({ id: row.id, lines: row.lines, shippingCents: row.shippingCents, amountCents: row.walletCents + row.cardCents })),
  };
}

/** The refunds of an order, oldest first (the detail view). */
export async function refundsOf(db: Db, orderId: string): Promise<RefundView[]> {
  const rows = await db.select().from(orderRefunds).where(eq(orderRefunds.orderId, orderId)).orderBy(asc(orderRefunds.createdAt));
  return rows.map(viewOf);
}

/**
 * What these orders' pending refunds have not given back yet (one index read): an order listed
 * here has a refund waiting for the payment provider or for the admin's Retry, and the buyer is
 * shown its amounts as refunded only once they are (decision 034).
 */
export async function unsettledRefunds(db: Db, orderIds: string[]): Promise<Map<string, { walletCents: number; cardCents: number }>> {
  const unsettled = new Map<string, { walletCents: number; cardCents: number }>();
  if (orderIds.length === 0) return unsettled;
  const rows = await db
    .select({ orderId: orderRefunds.orderId, walletCents: orderRefunds.walletCents, cardCents: orderRefunds.cardCents, walletRefundedAt: orderRefunds.walletRefundedAt })
    .from(orderRefunds)
    .where(and(inArray(orderRefunds.orderId, orderIds), eq(orderRefunds.status, 'pending')));
  for (const row of rows) {
    const sum = unsettled.get(row.orderId) ?? { walletCents: 0, cardCents: 0 };
    unsettled.set(row.orderId, { walletCents: sum.walletCents + (row.walletRefundedAt ? 0 : row.walletCents), cardCents: sum.cardCents + row.cardCents });
  }
  return unsettled;
}
