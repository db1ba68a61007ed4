import type { Tx } from '../db/transaction.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { receiptMail } from '../mail/templates.ts';
import type { OrderRecord } from './order-record.ts';
import { taxOfReceipt } from './pricing.step.ts';

/**
 * Step "send receipt" (issue 34: one receipt sender): the buyer's receipt of a new order, from
 * the order's own record, queued in the order's transaction so it is sent once it commits.
 * With downloads (issue 28) it links the buyer's library.
 */
export async function sendReceipt(
  deps: { jobs: JobQueue; publicUrl: string },
  tx: Tx,
  buyer: { email: string; name: string },
  orderId: string,
  order: OrderRecord,
  digital: boolean,
): Promise<void> {
  const totals = {
    subtotalCents: order.subtotalCents,
    shippingCents: order.shippingCents,
    taxCents: order.taxCents,
    walletAppliedCents: order.walletAppliedCents,
    chargedCents: order.chargedCents,
    discountCents: order.discountCents,
  };
  const receipt = { id: orderId, items: order.items, totals, tax: taxOfReceipt(order), discountCode: order.discountCode };
  await deps.jobs.sendInTransaction(
    tx,
    'send-email',
    receiptMail(buyer.email, buyer.name, receipt, `${deps.publicUrl}/my-orders`, digital ? `${deps.publicUrl}/library` : undefined),
  );
}
