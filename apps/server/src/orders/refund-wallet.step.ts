import type { Tx } from '../db/transaction.ts';
import { credit } from '../wallet/wallet.service.ts';
import type { OrderRow, RefundRow } from './refunds.service.ts';

/**
 * Step "credit wallet": the refund's wallet part goes back to the buyer's wallet, once per refund
 * (its ledger reference is the refund's id), in the transaction that completes the refund.
 */
export async function creditWallet(tx: Tx, order: OrderRow, refund: RefundRow): Promise<void> {
  await credit(tx, order.userId, refund.walletCents, `refund:${refund.id}`, 'refund', `refund of order ${order.id}`);
}
