import type { Db } from '../db/client.ts';
import type { Tx } from '../db/transaction.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { taxReversals } from '@storefront/domain/tax-reversal.ts';
import { setTaxTransaction, taxRecordOfOrder } from './orders.service.ts';
import { reversalBasisOf } from './refunds.service.ts';
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

/** Queued with the refund that gave something back, when the order's tax was calculated by Stripe Tax (decisions 051, 060). */
export async function scheduleTaxReversal(jobs: JobQueue, tx: Tx, order: { id: string; taxCalculationId: string | null }, refundId: string): Promise<void> {
  if (order.taxCalculationId) await jobs.sendInTransaction(tx, 'reverse-tax', { orderId: order.id, refundId });
}

export async function recordTax(deps: { db: Db; tax?: TaxCalculator | null }, orderId: string): Promise<void> {
  const order = await taxRecordOfOrder(deps.db, orderId);
  if (!order?.calculationId || order.transactionId) return;
  if (!deps.tax) throw new Error('Stripe Tax is not configured: set STRIPE_SECRET_KEY to record tax transactions.');
  await setTaxTransaction(deps.db, orderId, await deps.tax.record(order.calculationId, orderId));
}

/**
 * Reverses what a refund gave back (decision 060): the whole transaction for a first refund of
 * everything, else that refund's lines, shipping or amount (taxReversals). Without a refund id (a
 * job sent before partial reversals): the whole transaction. Each reversal has its own reference
 * and idempotency key, so a rerun is the same reversal at Stripe and a refund is reversed once.
 */
export async function reverseTax(deps: { db: Db; tax?: TaxCalculator | null }, orderId: string, refundId?: string): Promise<void> {
  const order = await taxRecordOfOrder(deps.db, orderId);
  if (!order?.calculationId) return;
  if (!deps.tax) throw new Error('Stripe Tax is not configured: set STRIPE_SECRET_KEY to reverse tax transactions.');
  // Recorded first if its own job has not run yet: the reversal needs the transaction.
  if (!order.transactionId) await recordTax(deps, orderId);
  const recorded = await taxRecordOfOrder(deps.db, orderId);
  const transactionId = recorded!.transactionId!;
  if (!refundId) {
    await deps.tax.reverse(transactionId, orderId);
    return;
  }
  const basis = await reversalBasisOf(deps.db, orderId);
  const reversal = taxReversals(basis.order, basis.refunds).get(refundId);
  if (!reversal) return;
  if (reversal.mode === 'full') await deps.tax.reverse(transactionId, orderId);
  else await deps.tax.reversePart(transactionId, reversal, { reference: `${orderId}-${refundId}`, idempotencyKey: `tax-reverse-${refundId}` });
}
