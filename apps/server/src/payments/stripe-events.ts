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
