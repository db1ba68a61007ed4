import { and, eq, isNull, lte, sql } from 'drizzle-orm';
import { orderItems, orders } from '../db/schema/index.ts';
import type { Tx } from '../db/transaction.ts';
import { publishLive } from '../live/live.publish.ts';

/**
 * Preorder lines of orders (decision 054). Each change is one conditional UPDATE whose RETURNING
 * names the lines it changed: a second worker (or a re-run after a restart) waits on the same
 * rows and then finds nothing left to change, so nothing is announced twice.
 */

/** A preorder line changed, with its order's buyer. */
export interface PreorderLine {
  orderId: string;
  userId: string;
  productId: string;
  variantId: string | null;
  name: string;
  refunded: boolean;
}

/** What each change returns: the line and its order's buyer. */
const changedLine = {
  orderId: orderItems.orderId,
  userId: orders.userId,
  productId: orderItems.productId,
  variantId: orderItems.variantId,
  name: orderItems.name,
  refunded: sql<boolean>`${orders.refundStatus} IS NOT DISTINCT FROM 'refunded'`,
};

/** The release job's lines: preorder lines whose street date is on or before `today` become ordinary. */
export async function releaseDueLines(tx: Tx, today: string): Promise<PreorderLine[]> {
  const rows = await tx
    .update(orderItems)
    .set({ releasedAt: new Date() })
    .from(orders)
    .where(and(eq(orders.id, orderItems.orderId), lte(orderItems.shipsOn, today), isNull(orderItems.releasedAt)))
    .returning(changedLine);
  await announce(tx, rows);
  return rows;
}

/**
 * A street date the label moved (decision 054): the unshipped, unreleased lines of this variant
 * bought for `from` now ship on `to`.
 */
export async function moveLineDates(tx: Tx, move: { variantId: string; from: string; to: string }): Promise<PreorderLine[]> {
  const rows = await tx
    .update(orderItems)
    .set({ shipsOn: move.to })
    .from(orders)
    .where(
      and(
        eq(orders.id, orderItems.orderId),
        eq(orderItems.variantId, move.variantId),
        eq(orderItems.shipsOn, move.from),
        isNull(orderItems.releasedAt),
        isNull(orderItems.shipmentId),
      ),
    )
    .returning(changedLine);
  await announce(tx, rows);
  return rows;
}

/** My Orders and the desk show the change at once. */
async function announce(tx: Tx, rows: PreorderLine[]): Promise<void> {
  for (const { orderId, userId } of new Map(rows.map((row) => [row.orderId, row])).values()) {
    await publishLive(tx, { topic: 'orders', userId, id: orderId }, { topic: 'all-orders', id: orderId });
  }
}
