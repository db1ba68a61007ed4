import type { Tx } from '../db/transaction.ts';
import { postOrderEarnings } from '../royalties/ledger.service.ts';

/**
 * Step "post earnings" (issue 36 part 3, decision 075): the order's net sales shared to the
 * parties of its lines' split rules, in the order's transaction, once. After gift cards are
 * activated: a gift card's line earns nothing.
 */
export async function postEarnings(tx: Tx, orderId: string): Promise<void> {
  await postOrderEarnings(tx, orderId);
}
