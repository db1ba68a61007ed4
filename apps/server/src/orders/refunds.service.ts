import { randomBytes } from 'node:crypto';
import { and, asc, eq, ne, sql } from 'drizzle-orm';
import { CHECKOUT_MESSAGES } from '@storefront/domain/pricing.ts';
import { planRefund, REFUND_MESSAGES, RefundRuleError, refundStatusOf, type RefundableOrder } from '@storefront/domain/refunds.ts';
import type { Db } from '../db/client.ts';
import { orderEvents, orderItems, orderRefunds, orders, processedEvents, users } from '../db/schema/index.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import { AppError } from '../http/errors.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { publishLive } from '../live/live.publish.ts';
import { refundMail } from '../mail/templates.ts';
import { RefundRefusedError, type PaymentEvent, type PaymentProvider } from '../payments/provider.ts';
import { credit } from '../wallet/wallet.service.ts';

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
}

export interface RefundView {
  id: string;
  orderId: string;
  status: 'pending' | 'succeeded' | 'failed';
  walletCents: number;
  cardCents: number;
  lines: { lineId: number; quantity: number }[];
  failure: string | null;
}

type RefundRow = typeof orderRefunds.$inferSelect;
type OrderRow = typeof orders.$inferSelect;

const viewOf = (row: RefundRow): RefundView => ({
  id: row.id,
  orderId: row.orderId,
  status: row.status,
  walletCents: row.walletCents,
  cardCents: row.cardCents,
  lines: row.lines,
  failure: row.failure,
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
 * Refunded quantities per line come from the order's refunds that did not fail. Every writer of
 * refunds holds the order's row lock first, so under it this count is exact.
 */
async function refundedQuantities(tx: Tx, orderId: string): Promise<Map<number, number>> {
  const rows = await tx.select({ lines: orderRefunds.lines }).from(orderRefunds).where(and(eq(orderRefunds.orderId, orderId), ne(orderRefunds.status, 'failed')));
  const refunded = new Map<number, number>();
  for (const { lines } of rows) for (const line of lines) refunded.set(line.lineId, (refunded.get(line.lineId) ?? 0) + line.quantity);
  return refunded;
}

async function refundable(tx: Tx, order: OrderRow): Promise<RefundableOrder> {
  const items = await tx.select().from(orderItems).where(eq(orderItems.orderId, order.id)).orderBy(asc(orderItems.position));
  const refunded = await refundedQuantities(tx, order.id);
  return {
    walletPaidCents: await walletPaidCents(tx, order),
    cardPaidCents: order.chargedCents,
    refundedWalletCents: order.refundedWalletCents,
    refundedCardCents: order.refundedCardCents,
    lines: items.map((item) => ({ lineId: item.position, unitCents: item.unitCents, qty: item.qty, refundedQty: refunded.get(item.position) ?? 0 })),
  };
}

export async function refundOrder(
  deps: RefundDeps,
  adminId: string,
  input: { orderId: string; lines?: { lineId: number; quantity: number }[]; idempotencyKey: string },
): Promise<RefundView> {
  const started = await runTransaction(
    deps.db,
    async (tx) => {
      const [order] = await tx.select().from(orders).where(eq(orders.id, input.orderId)).for('update');
      if (!order) throw new AppError('not-found', CHECKOUT_MESSAGES.orderNotFound);
      const [existing] = await tx.select().from(orderRefunds).where(and(eq(orderRefunds.orderId, order.id), eq(orderRefunds.idempotencyKey, input.idempotencyKey)));
      if (existing) return { refund: existing, order };

      let plan;
      try {
        plan = planRefund(await refundable(tx, order), input.lines);
      } catch (error) {
        if (error instanceof RefundRuleError) throw new AppError('failed-precondition', error.message);
        throw error;
      }
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
        .values({ id, orderId: order.id, idempotencyKey: input.idempotencyKey, adminId, walletCents: plan.walletCents, cardCents: plan.cardCents, lines: plan.lines, status: 'pending' })
        .returning();
      await tx.insert(orderEvents).values({ orderId: order.id, kind: 'refund-requested', actorId: adminId, detail: { refundId: id, walletCents: plan.walletCents, cardCents: plan.cardCents, lines: plan.lines } });
      // Nothing to send to a card: the whole refund is this transaction.
      if (plan.cardCents === 0) return { refund: (await completeRefund(tx, deps, refund!, null)) ?? refund!, order };
      return { refund: refund!, order };
    },
    { isolationLevel: 'read committed' },
  );
  if (started.refund.status !== 'pending') return viewOf(started.refund);
  return viewOf(await sendCardRefund(deps, started.refund, started.order));
}

/** Step 2 and 3: the provider call (retried with the same key), then its outcome recorded once. */
async function sendCardRefund(deps: RefundDeps, refund: RefundRow, order: OrderRow): Promise<RefundRow> {
  let outcome: { refundId: string; status: 'succeeded' | 'failed' } | { refused: string };
  try {
    outcome = await deps.provider.refund({ paymentIntentId: order.paymentIntentId, amountCents: refund.cardCents, idempotencyKey: `refund-${refund.id}`, orderId: order.id });
  } catch (error) {
    if (!(error instanceof RefundRefusedError)) {
      // Unknown outcome (network, provider down): the refund stays pending and reserved; the
      // same request again sends the same provider key, which cannot refund twice.
      console.warn(`Card refund ${refund.id} of order ${order.id} did not get an answer:`, error);
      throw new AppError('unavailable', REFUND_MESSAGES.cardPending);
    }
    outcome = { refused: error.message };
  }
  const finished = await runTransaction(
    deps.db,
    async (tx) => {
      if ('refused' in outcome || outcome.status === 'failed') return failRefund(tx, refund, 'refused' in outcome ? outcome.refused : 'The card refund failed.');
      return completeRefund(tx, deps, refund, outcome.refundId);
    },
    { isolationLevel: 'read committed' },
  );
  const [current] = finished ? [finished] : await deps.db.select().from(orderRefunds).where(eq(orderRefunds.id, refund.id));
  if (current!.status === 'failed') throw new AppError('failed-precondition', REFUND_MESSAGES.cardFailed);
  return current!;
}

/** Pending -> succeeded, once: credits the wallet part and tells the buyer. Null if another call got there first. */
async function completeRefund(tx: Tx, deps: RefundDeps, refund: RefundRow, providerRefundId: string | null): Promise<RefundRow | null> {
  // The order's lock first, as every refund writer takes it (one lock order: no deadlocks).
  await tx.select({ id: orders.id }).from(orders).where(eq(orders.id, refund.orderId)).for('update');
  const [done] = await tx
    .update(orderRefunds)
    .set({ status: 'succeeded', providerRefundId, completedAt: new Date() })
    .where(and(eq(orderRefunds.id, refund.id), eq(orderRefunds.status, 'pending')))
    .returning();
  if (!done) return null;
  const [order] = await tx.select().from(orders).where(eq(orders.id, refund.orderId));
  if (refund.walletCents > 0) await credit(tx, order!.userId, refund.walletCents, `refund:${refund.id}`, 'refund', `refund of order ${order!.id}`);
  const status = refundStatusOf(await refundable(tx, order!));
  await tx.update(orders).set({ refundStatus: status }).where(eq(orders.id, order!.id));
  await tx.insert(orderEvents).values({ orderId: order!.id, kind: 'refunded', actorId: refund.adminId, detail: { refundId: refund.id, walletCents: refund.walletCents, cardCents: refund.cardCents, lines: refund.lines, providerRefundId } });
  const [buyer] = await tx.select({ email: users.email, name: users.name }).from(users).where(eq(users.id, order!.userId));
  if (buyer) {
    const mail = refundMail(buyer.email, buyer.name, { orderId: order!.id, walletCents: refund.walletCents, cardCents: refund.cardCents, full: status === 'refunded' }, `${deps.publicUrl}/my-orders`);
    await deps.jobs.sendInTransaction(tx, 'send-email', mail);
  }
  await publishLive(tx, { topic: 'orders', userId: order!.userId, id: order!.id }, { topic: 'all-orders', id: order!.id });
  return done;
}

/** The provider refused: the reservation goes back (amounts; its lines stop counting as it is failed), once. */
async function failRefund(tx: Tx, refund: RefundRow, reason: string): Promise<RefundRow | null> {
  await tx.select({ id: orders.id }).from(orders).where(eq(orders.id, refund.orderId)).for('update');
  const [failed] = await tx
    .update(orderRefunds)
    .set({ status: 'failed', failure: reason.slice(0, 500), completedAt: new Date() })
    .where(and(eq(orderRefunds.id, refund.id), eq(orderRefunds.status, 'pending')))
    .returning();
  if (!failed) return null;
  await tx
    .update(orders)
    .set({ refundedWalletCents: sql`${orders.refundedWalletCents} - ${refund.walletCents}`, refundedCardCents: sql`${orders.refundedCardCents} - ${refund.cardCents}` })
    .where(eq(orders.id, refund.orderId));
  await tx.insert(orderEvents).values({ orderId: refund.orderId, kind: 'refund-failed', actorId: refund.adminId, detail: { refundId: refund.id, reason } });
  return failed;
}

/**
 * Stripe's `charge.refunded`, verified by the caller: recorded once per event id. The charge
 * carries its running refunded total, so a refund made in Stripe's dashboard is counted and
 * one of ours (already reserved) is not counted twice.
 */
export async function applyRefundEvent(deps: RefundDeps, event: PaymentEvent): Promise<'applied' | 'duplicate' | 'ignored'> {
  if (event.type !== 'refunded' || !event.paymentIntentId) return 'ignored';
  return runTransaction(
    deps.db,
    async (tx) => {
      const recorded = await tx
        .insert(processedEvents)
        .values({ provider: deps.provider.name, eventId: event.eventId, type: 'charge.refunded' })
        .onConflictDoNothing()
        .returning({ eventId: processedEvents.eventId });
      if (recorded.length === 0) return 'duplicate';
      const [order] = await tx.select().from(orders).where(eq(orders.paymentIntentId, event.paymentIntentId!)).for('update');
      if (!order) return 'ignored';
      const total = Math.min(order.chargedCents, Math.max(0, event.refundedCents ?? 0));
      await tx.insert(orderEvents).values({ orderId: order.id, kind: 'provider-refund', detail: { eventId: event.eventId, refundedCents: total } });
      if (total <= order.refundedCardCents) return 'applied';
      await tx.update(orders).set({ refundedCardCents: total }).where(eq(orders.id, order.id));
      const status = refundStatusOf(await refundable(tx, { ...order, refundedCardCents: total }));
      await tx.update(orders).set({ refundStatus: status }).where(eq(orders.id, order.id));
      await publishLive(tx, { topic: 'orders', userId: order.userId, id: order.id }, { topic: 'all-orders', id: order.id });
      return 'applied';
    },
    { isolationLevel: 'read committed' },
  );
}

/** The refunds of an order, oldest first (the detail view). */
export async function refundsOf(db: Db, orderId: string): Promise<RefundView[]> {
  const rows = await db.select().from(orderRefunds).where(eq(orderRefunds.orderId, orderId)).orderBy(asc(orderRefunds.createdAt));
  return rows.map(viewOf);
}
