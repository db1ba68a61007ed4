import type { Db } from '../db/client.ts';
import type { Tx } from '../db/transaction.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { setTaxTransaction, taxRecordOfOrder } from '../orders/orders.service.ts';
import type { TaxCalculator } from '../shipping/stripe-tax.ts';

/**
 * Steps "record tax" and "reverse tax" (issue 26, decision 051): with Stripe Tax, an order's
 * calculation becomes a tax transaction once the order exists, and a full refund reverses it.
 * Both are jobs sent in the order's (or refund's) transaction, so they happen exactly when it
 * commits, and are retried by the queue; Stripe's idempotency keys make a rerun harmless.
 */

export async function scheduleTaxRecord(jobs: JobQueue, tx: Tx, orderId: string, calculationId: string | null): Promise<void> {
  if (calculationId) await jobs.sendInTransaction(tx, 'record-tax', { orderId });
}

export async function recordTax(deps: { db: Db; tax?: TaxCalculator | null }, orderId: string): Promise<void> {
  const order = await taxRecordOfOrder(deps.db, orderId);
  if (!order?.calculationId || order.transactionId) return;
  if (!deps.tax) throw new Error('Stripe Tax is not configured: set STRIPE_SECRET_KEY to record tax transactions.');
  await setTaxTransaction(deps.db, orderId, await deps.tax.record(order.calculationId, orderId));
}

export async function reverseTax(deps: { db: Db; tax?: TaxCalculator | null }, orderId: string): Promise<void> {
  const order = await taxRecordOfOrder(deps.db, orderId);
  if (!order?.calculationId) return;
  if (!deps.tax) throw new Error('Stripe Tax is not configured: set STRIPE_SECRET_KEY to reverse tax transactions.');
  // Recorded first if its own job has not run yet: the reversal needs the transaction.
  if (!order.transactionId) await recordTax(deps, orderId);
  const recorded = await taxRecordOfOrder(deps.db, orderId);
  await deps.tax.reverse(recorded!.transactionId!, orderId);
}
