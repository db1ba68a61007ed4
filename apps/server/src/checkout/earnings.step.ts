import type { Tx } from '../db/transaction.ts';
import { saleToPost } from '../orders/order-figures.service.ts';
import { postOrderEarnings } from '../royalties/ledger.service.ts';

/**
 * Step "post earnings" (issue 36 part 3, decision 075): the order's net sales shared to the
 * parties of its lines' split rules, in the order's transaction, once. After gift cards are
 * activated: a gift card's line earns nothing. The order's figures are the orders' read model's.
 */
export async function postEarnings(tx: Tx, orderId: string): Promise<void> {
  const sale = await saleToPost(tx, orderId);
  if (sale) await postOrderEarnings(tx, sale);
}
