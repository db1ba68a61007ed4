import { and, asc, eq, inArray, ne, sql } from 'drizzle-orm';
import { CHECKOUT_MESSAGES, discountedLines, taxCents } from '@storefront/domain/pricing.ts';
import { linesCodeAppliesTo } from '@storefront/domain/discounts.ts';
import { REFUND_MESSAGES, refundStatusOf, type RefundableLine, type RefundableOrder, type RefundStatus } from '@storefront/domain/refunds.ts';
import type { ReversalOrder, ReversalRefund } from '@storefront/domain/tax-reversal.ts';
import type { Db } from '../db/client.ts';
import { orderItems, orderRefunds, orders } from '../db/schema/index.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { PaymentProvider } from '../payments/provider.ts';
import { giftCardVariantsOf } from '../giftcards/giftcards.service.ts';
import { findCode } from '../discounts/discounts.service.ts';
import { categoriesOfProducts } from '../catalog/categories.service.ts';

/**
 * The order_refund table (decisions 028, 034): a refund's row and what an order has left to
 * refund. The refund itself, step by step, is refund.flow.ts.
 */
export interface RefundDeps {
  db: Db;
  jobs: JobQueue;
  provider: PaymentProvider;
  publicUrl: string;
  /** Background retries of card calls that got no answer (decision 034); defaults: 6 calls, 30 s doubling. */
  refundRetry?: { attempts: number; baseMs: number };
}

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

export type RefundRow = typeof orderRefunds.$inferSelect;
export type OrderRow = typeof orders.$inferSelect;

export const viewOf = (row: RefundRow): RefundView => ({
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
export async function refundable(tx: Tx, order: OrderRow, view: 'reserved' | 'settled' = 'reserved'): Promise<RefundableOrder> {
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
export async function buyerRefundStatus(tx: Tx, order: OrderRow): Promise<RefundStatus | null> {
  return refundStatusOf(await refundable(tx, order, 'settled'));
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

/** The order's lines at these positions: what each sold (a variant, or a product without variants). */
export async function itemsAtPositions(tx: Tx, orderId: string, positions: number[]): Promise<{ position: number; variantId: string | null; productId: string }[]> {
  return tx
    .select({ position: orderItems.position, variantId: orderItems.variantId, productId: orderItems.productId })
    .from(orderItems)
    .where(and(eq(orderItems.orderId, orderId), inArray(orderItems.position, positions)));
}
