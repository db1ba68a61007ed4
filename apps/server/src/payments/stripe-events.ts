import type Stripe from 'stripe';
import type { PaymentEvent } from './provider.ts';

/**
 * Reads a verified Stripe-format event. The local provider signs its events in the
 * same format, so one handler serves both.
 */
export function toPaymentEvent(event: Stripe.Event): PaymentEvent {
  const base = { eventId: event.id, checkoutId: null, sessionId: null, paymentIntentId: null, amountCents: null };
  if (event.type === 'charge.refunded') {
    // Recorded once per event id; the amount is the charge's running total (decision 028).
    const charge = event.data.object as Stripe.Charge;
    const paymentIntentId = typeof charge.payment_intent === 'string' ? charge.payment_intent : (charge.payment_intent?.id ?? null);
    return { ...base, type: 'refunded', paymentIntentId, amountCents: charge.amount ?? null, refundedCents: charge.amount_refunded ?? null };
  }
  if (event.type === 'refund.failed' || event.type === 'charge.refund.updated' || event.type === 'refund.updated') {
    // A refund Stripe accepted and later failed (docs.stripe.com/refunds#failed-refunds): current
    // API versions send refund.failed, older ones (and selected payment methods) an update with
    // status failed; both may come for one refund, and are applied once (decision 034).
    const refund = event.data.object as Stripe.Refund;
    if (refund.status !== 'failed' && refund.status !== 'canceled') return { ...base, type: 'ignored' };
    const paymentIntentId = typeof refund.payment_intent === 'string' ? refund.payment_intent : (refund.payment_intent?.id ?? null);
    const round = Number(refund.metadata?.round ?? '');
    return {
      ...base,
      type: 'refund-failed',
      paymentIntentId,
      amountCents: refund.amount ?? null,
      refund: {
        id: refund.id,
        eventType: event.type,
        amountCents: refund.amount ?? 0,
        failureReason: refund.failure_reason ?? (refund.status === 'canceled' ? 'merchant_request' : null),
        refundId: refund.metadata?.refundId ?? null,
        round: Number.isSafeInteger(round) && round > 0 ? round : null,
      },
    };
  }
  if (event.type === 'charge.dispute.created' || event.type === 'charge.dispute.updated' || event.type === 'charge.dispute.closed') {
    // A card dispute (decision 075): the order shows it; a lost one is a return.
    const dispute = event.data.object as Stripe.Dispute;
    const paymentIntentId = typeof dispute.payment_intent === 'string' ? dispute.payment_intent : (dispute.payment_intent?.id ?? null);
    return {
      ...base,
      type: 'dispute',
      paymentIntentId,
      amountCents: dispute.amount ?? null,
      dispute: { id: dispute.id, status: dispute.status, amountCents: dispute.amount ?? 0, closed: event.type === 'charge.dispute.closed' },
    };
  }
  if (!event.type.startsWith('checkout.session.')) return { ...base, type: 'ignored' };
  const session = event.data.object as Stripe.Checkout.Session;
  const details = {
    ...base,
    checkoutId: session.metadata?.checkoutId ?? session.client_reference_id ?? null,
    sessionId: session.id,
    paymentIntentId: typeof session.payment_intent === 'string' ? session.payment_intent : (session.payment_intent?.id ?? null),
    amountCents: session.amount_total ?? null,
  };
  switch (event.type) {
    case 'checkout.session.completed':
      // Delayed methods complete unpaid and settle later through async_payment_*.
      return { ...details, type: session.payment_status === 'paid' ? 'succeeded' : 'ignored' };
    case 'checkout.session.async_payment_succeeded':
      return { ...details, type: 'succeeded' };
    case 'checkout.session.async_payment_failed':
      return { ...details, type: 'failed' };
    case 'checkout.session.expired':
      return { ...details, type: 'expired' };
    default:
      return { ...details, type: 'ignored' };
  }
}
