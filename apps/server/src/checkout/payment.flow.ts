import { postEarnings } from './earnings.step.ts';
import { contactOf } from '../accounts/accounts.service.ts';
import { captureStock, releaseStock, takeStock } from '../catalog/variants.service.ts';
import { isRetryableTransactionError, runTransaction, type Tx } from '../db/transaction.ts';
import { captureUse, releaseUses, takeUse } from '../discounts/discounts.service.ts';
import { lateRefundMail } from '../mail/templates.ts';
import { grantForOrder } from '../digital/sales.service.ts';
import { activateGiftCards, dropPendingGiftCards, hasPendingGiftCards } from '../giftcards/giftcards.service.ts';
import { insertOrder } from '../orders/orders.service.ts';
import { recordProviderEventOnce } from '../payments/provider-events.service.ts';
import { RefundRefusedError, type PaymentEvent } from '../payments/provider.ts';
import { capture, debit, release } from '../wallet/wallet.service.ts';
import { heldDemand } from './cart.ts';
import { orderRecord } from './order-record.ts';
import { sendReceipt } from './receipt.step.ts';
import { followForPurchase } from '../fans/follows.service.ts';
import { releaseHolds } from './release.step.ts';
import { scheduleTaxRecord } from '../orders/tax.step.ts';
import type { CheckoutDeps } from './checkout.flow.ts';
import { closeCheckout } from './release.step.ts';
import { claimDropPurchase, nameDropOrder } from '../drops/drop-admission.service.ts';
import {
  checkoutIs,
  endPending,
  findCheckout,
  findPaymentRefund,
  lockCheckout,
  markCheckout,
  recordAttention,
  recordPaymentRefund,
  settlePaymentRefund,
  type Checkout,
} from './checkouts.service.ts';

/**
 * The payment's steps (issue 23, decision 044): apply payment, late payment, refund, and the
 * release at the hold's deadline. The invariant they keep: every payment the provider reports
 * completed ends in exactly one order or one full refund (never both, never neither), and
 * every unit or credit held is captured or released exactly once.
 *
 *   succeeded, checkout pending:  capture wallet + capture stock -> order      (else: refund, flagged)
 *   succeeded, checkout ended:    take stock + debit wallet again -> order     (else: refund)
 *   failed / expired, pending:    release
 */

/** Nothing could be captured or taken again for this payment: it is refunded instead. */
class CannotFulfil extends Error {}

/**
 * Applies a verified payment event exactly once: the event id is recorded in the same
 * transaction that captures the holds and writes the order (or refunds, or releases).
 * READ COMMITTED: the checkout row's lock orders two deliveries of one payment, and the
 * variant row (a drop's hottest) is held from its update to the commit only.
 */
export async function applyPaymentEvent(deps: CheckoutDeps, event: PaymentEvent): Promise<'applied' | 'duplicate' | 'ignored'> {
  if (event.type === 'ignored' || !event.checkoutId) return 'ignored';
  return runTransaction(
    deps.db,
    async (tx) => {
      if (!(await recordProviderEventOnce(tx, { provider: deps.provider.name, eventId: event.eventId, type: event.type }))) return 'duplicate';
      const checkout = await lockCheckout(tx, event.checkoutId!);
      if (!checkout) return 'ignored';
      if (event.sessionId && checkout.providerSessionId && event.sessionId !== checkout.providerSessionId) return 'ignored';
      if (event.type === 'succeeded') return applySucceeded(deps, tx, checkout, event);
      if (event.type !== 'failed' && event.type !== 'expired') return 'ignored';
      if (checkout.status !== 'pending') return 'duplicate';
      return (await closeInTransaction(tx, checkout, event.type)) ? 'applied' : 'duplicate';
    },
    { isolationLevel: 'read committed' },
  );
}

async function applySucceeded(deps: CheckoutDeps, tx: Tx, checkout: Checkout, event: PaymentEvent): Promise<'applied' | 'duplicate' | 'ignored'> {
  // Paid, or refunded already (a late payment whose stock was gone): once only.
  if (checkout.status === 'paid' || checkout.status === 'refunded') return 'duplicate';
  // The buyer cancelled before paying on our own page: that payment is refused (nothing was
  // charged). A provider's payment is real money: it goes the late-payment way.
  if (checkout.status === 'cancelled' && deps.provider.name === 'local') return 'ignored';
  const step = checkout.status === 'pending' ? capturePayment : takeLatePayment;
  // Step "claim drop admission" (decision 066): used by this order, or the payment is refunded.
  let drops: string[] = [];
  const outcome = await inSavepoint(tx, async () => {
    await step(tx, checkout);
    drops = await claimDropPurchase(tx, checkout.userId, checkout.items, checkout.id);
  });
  if (outcome !== 'ok') {
    await refundPayment(deps, tx, checkout, event, outcome);
    return 'applied';
  }
  await markCheckout(tx, checkout.id, 'paid');
  // The order is the checkout's priced record and its payment (order-record.ts, built once).
  const payment = {
    userId: checkout.userId,
    checkoutId: checkout.id,
    paymentIntentId: event.paymentIntentId ?? `pi_${checkout.id}`,
    walletAppliedCents: checkout.walletHeldCents,
    chargedCents: checkout.chargeCents,
  };
  const record = orderRecord(checkout, payment);
  const order = await insertOrder(tx, record);
  if (order.created) await scheduleTaxRecord(deps.jobs, tx, order.id, checkout.taxCalculationId);
  if (order.created) await nameDropOrder(tx, drops, checkout.userId, checkout.id, order.id);
  // Step "grant downloads" (issue 28): digital items and what physical ones carry, in the order's transaction.
  const digital = order.created && (await grantForOrder(tx, { userId: checkout.userId, orderId: order.id, productIds: checkout.items.map((item) => item.id) }));
  // Step "activate gift cards" (decision 053): live with the order; their emails are queued with it.
  if (order.created) await activateGiftCards(tx, deps.jobs, checkout.id, order.id);
  // Step "post earnings" (decision 075): the royalty ledger, with the order.
  if (order.created) await postEarnings(tx, order.id);
  // Step "follow what was bought" (decision 074): the checkout's box, once (only with the order this event created).
  if (order.created && checkout.followArtists)
    await followForPurchase(
      tx,
      checkout.userId,
      checkout.items.map((item) => item.id),
    );
  const buyer = order.created ? await contactOf(tx, checkout.userId) : undefined;
  if (buyer) await sendReceipt(deps, tx, buyer, order.id, record, digital);
  return 'applied';
}

/** Runs a step in a savepoint: 'ok', or why it could not (everything it did is undone). Conflicts rerun the whole event. */
async function inSavepoint(tx: Tx, step: () => Promise<void>): Promise<'ok' | string> {
  try {
    await tx.transaction(step);
    return 'ok';
  } catch (error) {
    if (isRetryableTransactionError(error)) throw error;
    if (error instanceof CannotFulfil) return error.message;
    // A broken invariant (a check constraint, a hold not there): refunded, and a person told.
    return `could not capture: ${error instanceof Error ? error.message : String(error)}`.slice(0, 300);
  }
}

/** Step "apply payment" of a live checkout: its held credit is spent and its held units sold. */
async function capturePayment(tx: Tx, checkout: Checkout): Promise<void> {
  // Its discount code's held use becomes the order's (issue 27).
  if (checkout.discountCode && !(await captureUse(tx, checkout.id))) throw new CannotFulfil('the held discount code use was not there');
  const demand = heldDemand(checkout.items);
  if (demand.length > 0) {
    const missing = await captureStock(tx, demand);
    if (missing.length > 0) throw new CannotFulfil(`held units of ${missing.join(', ')} were not there`);
  }
  await capture(tx, checkout.userId, checkout.walletHeldCents, checkout.id);
}

/**
 * Step "late payment": paid after its hold was released (a delayed payment method, or the
 * payment page paid just past the deadline). Honoured if the units and the wallet part can be
 * taken again now; otherwise the whole card payment is refunded.
 */
async function takeLatePayment(tx: Tx, checkout: Checkout): Promise<void> {
  // Its gift cards went with the ended checkout (issue 40 item 3): none to make live, so refunded.
  if (checkout.items.some((item) => item.giftCard) && !(await hasPendingGiftCards(tx, checkout.id))) throw new CannotFulfil('late payment: gift cards released');
  // Its discount code's use was released with the hold: taken again, or the payment is refunded (issue 27).
  if (checkout.discountCode) {
    const use = { code: checkout.discountCode, userId: checkout.userId, checkoutId: checkout.id, status: 'used' as const, discountCents: checkout.discountCents };
    if (!(await takeUse(tx, use))) throw new CannotFulfil('late payment: discount code used up');
  }
  const demand = heldDemand(checkout.items);
  if (demand.length > 0 && (await takeStock(tx, demand, false)).length > 0) throw new CannotFulfil('late payment: sold out');
  try {
    await debit(tx, checkout.userId, checkout.walletHeldCents, `late:${checkout.id}`);
  } catch (error) {
    if (isRetryableTransactionError(error)) throw error;
    throw new CannotFulfil('late payment: wallet credit gone');
  }
}

/**
 * Step "refund": no order for this payment. The checkout ends as refunded; what it still held
 * is released; the card payment is refunded through the provider by a job (its row here makes
 * that once per checkout, in the transaction that records the event), and the buyer is told.
 * A refund that was not a late payment (a hold that could not be captured) needs a person.
 */
async function refundPayment(deps: CheckoutDeps, tx: Tx, checkout: Checkout, event: PaymentEvent, reason: string) {
  await markCheckout(tx, checkout.id, 'refunded');
  // No order: its gift cards never go live (issue 40 item 3).
  if (checkout.items.some((item) => item.giftCard)) await dropPendingGiftCards(tx, [checkout.id]);
  if (checkout.status === 'pending') {
    // Its holds, as far as they are there (the capture above was rolled back to its savepoint).
    await inSavepoint(tx, () => release(tx, checkout.userId, checkout.walletHeldCents, checkout.id).then(() => undefined));
    await inSavepoint(tx, () => releaseStock(tx, heldDemand(checkout.items)).then(() => undefined));
    if (checkout.discountCode) await inSavepoint(tx, () => releaseUses(tx, [checkout.id]));
    console.error(`Paid checkout ${checkout.id} could not capture its holds (${reason}): its payment is refunded and recorded as needing attention.`);
    await recordAttention(tx, {
      kind: 'capture-failed',
      subject: checkout.id,
      detail: `A verified payment could not capture its holds (${reason}); the card payment is refunded.`,
      healed: true,
    });
  }
  const amountCents = event.amountCents ?? checkout.chargeCents;
  const recorded = await recordPaymentRefund(tx, {
    checkoutId: checkout.id,
    provider: deps.provider.name,
    paymentReference: event.paymentIntentId ?? `pi_${checkout.id}`,
    amountCents,
    reason: reason.startsWith('late payment') ? reason : `no order: ${reason}`,
  });
  if (!recorded) return;
  await deps.jobs.sendInTransaction(tx, 'refund-payment', { checkoutId: checkout.id });
  const buyer = await contactOf(tx, checkout.userId);
  if (buyer) {
    // The wallet part stays with the buyer (its hold was released, or is released above).
    const mail = lateRefundMail(buyer.email, buyer.name, { items: checkout.items, chargedCents: amountCents, walletCents: checkout.walletHeldCents }, `${deps.publicUrl}/shop`);
    await deps.jobs.sendInTransaction(tx, 'send-email', mail);
  }
}

/** A failed or expired payment of a pending checkout, in the event's transaction: released. */
async function closeInTransaction(tx: Tx, checkout: Checkout, status: 'failed' | 'expired'): Promise<boolean> {
  const ended = await endPending(tx, checkoutIs(checkout.id), status);
  await releaseHolds(tx, ended);
  return ended.length > 0;
}

/**
 * The refund job: the provider's one refund call (the order desk's too, decision 028), asked
 * once per checkout (its idempotency key), then the refund's id recorded. A refusal is
 * recorded for the order desk to see; any other failure throws so the job is retried with
 * the same key, which cannot refund twice.
 */
export async function sendRefund(deps: CheckoutDeps, checkoutId: string): Promise<void> {
  const row = await findPaymentRefund(deps.db, checkoutId);
  if (!row || row.providerRefundId || row.failure) return;
  try {
    const { refundId, status } = await deps.provider.refund({
      paymentIntentId: row.paymentReference,
      amountCents: row.amountCents,
      idempotencyKey: `refund-${checkoutId}`,
      orderId: checkoutId,
    });
    await settlePaymentRefund(
      deps.db,
      checkoutId,
      status === 'succeeded' ? { providerRefundId: refundId, refundedAt: new Date() } : { providerRefundId: refundId, failure: 'The card refund failed.' },
    );
  } catch (error) {
    if (!(error instanceof RefundRefusedError)) throw error;
    console.warn(`The card refund of payment ${checkoutId} (no order) was refused:`, error.message);
    await settlePaymentRefund(deps.db, checkoutId, { failure: error.message.slice(0, 500) });
  }
}

/**
 * Step "release at the deadline" (the job the card checkout scheduled for its hold's end, and
 * the reconciler for any it missed): the provider's page is closed first, so it cannot be paid
 * after we release; if it was paid already, the payment is applied instead.
 */
export async function expireCheckout(deps: CheckoutDeps, checkoutId: string, now = new Date()): Promise<'expired' | 'paid' | 'not-due' | 'closed'> {
  const checkout = await findCheckout(deps.db, checkoutId);
  if (!checkout || checkout.status !== 'pending') return 'closed';
  if (checkout.expiresAt > now) return 'not-due';
  if (checkout.providerSessionId && deps.provider.name !== 'local') {
    const paid = await deps.provider.expireSession(checkout.providerSessionId).then(
      () => false,
      async (error: unknown) => {
        // Refused: most likely paid meanwhile. The provider says how it ended.
        const state = await deps.provider.sessionState(checkout.providerSessionId!);
        if (state.state === 'paid') {
          await applyPaymentEvent(deps, succeededEvent(checkout, state.paymentIntentId));
          return true;
        }
        if (state.state === 'open') throw error;
        return false;
      },
    );
    if (paid) return 'paid';
  }
  return (await closeCheckout(deps.db, checkoutId, 'expired')) ? 'expired' : 'closed';
}

/** The event a reconciler makes of a payment the provider reports completed (its id: one per checkout). */
export function succeededEvent(checkout: Pick<Checkout, 'id' | 'providerSessionId' | 'chargeCents'>, paymentIntentId: string | null): PaymentEvent {
  return {
    eventId: `reconcile:${checkout.id}`,
    type: 'succeeded',
    checkoutId: checkout.id,
    sessionId: checkout.providerSessionId,
    paymentIntentId,
    amountCents: checkout.chargeCents,
  };
}
