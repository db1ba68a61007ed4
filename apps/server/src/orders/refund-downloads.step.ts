import type { RefundStatus } from '@storefront/domain/refunds.ts';
import type { Tx } from '../db/transaction.ts';
import { revokeForOrder } from '../digital/sales.service.ts';
import { itemsAtPositions, refundable, type OrderRow } from './refunds.service.ts';

/**
 * Step "revoke downloads" (issue 28, decision 061), in the transaction that completes a refund:
 * an order refunded in full gives back every download it granted; otherwise each line refunded
 * in full (by the succeeded refunds, this one included) gives back its release or track. A refund
 * of an amount alone, short of the whole order, leaves the downloads. How many grants went.
 */
export async function revokeDownloads(tx: Tx, order: OrderRow, status: RefundStatus | null): Promise<number> {
  if (status === 'refunded') return revokeForOrder(tx, { userId: order.userId, orderId: order.id, productIds: 'all' });
  const settled = await refundable(tx, order, 'settled');
  const refundedLines = new Set(settled.lines.filter((line) => line.refundedQty >= line.qty).map((line) => line.lineId));
  if (refundedLines.size === 0) return 0;
  const items = await itemsAtPositions(tx, order.id, [...refundedLines]);
  return revokeForOrder(tx, { userId: order.userId, orderId: order.id, productIds: items.map((item) => item.productId) });
}
