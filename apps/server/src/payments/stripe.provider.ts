import Stripe from 'stripe';
import { RefundRefusedError, TransferRefusedError, type PaymentProvider, type PaymentSessionRequest, type PayoutProvider } from './provider.ts';
import { toPaymentEvent } from './stripe-events.ts';
import { formatUsd } from '@storefront/domain/catalog.ts';

/** Stripe's shortest Checkout Session (its expires_at must be 30 minutes to 24 hours away), with a minute of margin. */
const STRIPE_MIN_SESSION_MS = 31 * 60 * 1000;

export interface StripeProviderOptions {
  secretKey: string;
  webhookSecret: string;
  publicUrl: string;
  /** Tests point the SDK at a local fake Stripe server. */
  api?: { host: string; port: number; protocol: 'http' | 'https' };
}

export function createStripeProvider(options: StripeProviderOptions): PaymentProvider {
  const stripe = new Stripe(options.secretKey, { ...(options.api ?? {}), maxNetworkRetries: 2, timeout: 20_000 });
  return {
    name: 'stripe',
    async createSession(request: PaymentSessionRequest) {
      const usd = (name: string, cents: number, qty = 1) => ({
        quantity: qty,
        price_data: { currency: 'usd', unit_amount: cents, product_data: { name } },
      });
      const amountDue = request.chargeCents - request.cardFeeCents;
      // With wallet credit applied the card pays a remainder, which Stripe cannot show as
      // negative lines: then one line for the remainder.
      // A discount (issue 27) likewise: one line for the discounted order.
      const lines =
        request.walletAppliedCents > 0
          ? [usd(`Order balance after ${formatUsd(request.walletAppliedCents)} wallet credit`, amountDue)]
          : request.discountCents
            ? [usd(`Order total after ${formatUsd(request.discountCents)} discount`, amountDue)]
            : [...request.lines.map((line) => usd(line.name, line.unitCents, line.qty)), usd('Shipping', request.shippingCents), usd('Tax', request.taxCents)];
      if (request.cardFeeCents > 0) lines.push(usd('Card processing fee', request.cardFeeCents));
      const session = await stripe.checkout.sessions.create(
        {
          mode: 'payment',
          line_items: lines,
          customer_email: request.customerEmail,
          client_reference_id: request.checkoutId,
          metadata: { checkoutId: request.checkoutId },
          payment_intent_data: { metadata: { checkoutId: request.checkoutId } },
          success_url: `${options.publicUrl}/pay/return?session_id={CHECKOUT_SESSION_ID}`,
          cancel_url: `${options.publicUrl}/checkout`,
          // Stripe keeps a session payable for at least 30 minutes; a shorter hold is ended by
          // expiring the session through the API at its deadline (decision 044).
          expires_at: Math.floor(Math.max(request.expiresAt.getTime(), Date.now() + STRIPE_MIN_SESSION_MS) / 1000),
        },
        { idempotencyKey: `checkout-${request.checkoutId}` },
      );
      if (!session.url) throw new Error('Stripe returned a session without a URL.');
      return { sessionId: session.id, url: session.url };
    },
    parseEvent(rawBody, signature) {
      return toPaymentEvent(stripe.webhooks.constructEvent(rawBody, signature ?? '', options.webhookSecret));
    },
    async sessionState(sessionId) {
      const session = await stripe.checkout.sessions.retrieve(sessionId);
      const paymentIntentId = typeof session.payment_intent === 'string' ? session.payment_intent : (session.payment_intent?.id ?? null);
      if (session.payment_status === 'paid') return { state: 'paid', paymentIntentId };
      if (session.status === 'expired') return { state: 'expired', paymentIntentId };
      return { state: 'open', paymentIntentId };
    },
    async expireSession(sessionId) {
      await stripe.checkout.sessions.expire(sessionId);
    },
    async refund(request) {
      try {
        // The SDK retries network failures and 5xx with this same key: Stripe refunds once.
        const refund = await stripe.refunds.create(
          {
            payment_intent: request.paymentIntentId,
            amount: request.amountCents,
            // A later refund.failed names our refund and round by these (decision 034).
            metadata: { orderId: request.orderId, ...(request.refundId ? { refundId: request.refundId, round: String(request.round ?? 1) } : {}) },
          },
          { idempotencyKey: request.idempotencyKey },
        );
        return { refundId: refund.id, status: refund.status === 'failed' || refund.status === 'canceled' ? 'failed' : 'succeeded' };
      } catch (error) {
        // A 4xx other than a conflict or rate limit is a refusal; anything else may have happened.
        if (error instanceof Stripe.errors.StripeInvalidRequestError || error instanceof Stripe.errors.StripeCardError) throw new RefundRefusedError(error.message);
        throw error;
      }
    },
  };
}

export function createStripePayouts(options: StripeProviderOptions): PayoutProvider {
  const stripe = new Stripe(options.secretKey, { ...(options.api ?? {}), maxNetworkRetries: 2, timeout: 20_000 });
  return {
    async createAccount(userId, email) {
      const account = await stripe.accounts.create({ type: 'express', email, metadata: { userId } }, { idempotencyKey: `payout-account-${userId}` });
      return { accountId: account.id };
    },
    async accountStatus(accountId) {
      const account = await stripe.accounts.retrieve(accountId);
      return { payoutsEnabled: account.payouts_enabled };
    },
    async onboardingLink(accountId, returnPath = '/cashout') {
      const link = await stripe.accountLinks.create({
        account: accountId,
        type: 'account_onboarding',
        refresh_url: `${options.publicUrl}${returnPath === '/portal' ? '/portal' : '/wallet'}`,
        return_url: `${options.publicUrl}${returnPath}`,
      });
      return { url: link.url };
    },
    async transfer(accountId, amountCents, requestId, options = {}) {
      try {
        // Separate charges and transfers (Connect): a run's transfers share its transfer_group.
        const transfer = await stripe.transfers.create(
          { amount: amountCents, currency: 'usd', destination: accountId, metadata: { requestId }, ...(options.transferGroup ? { transfer_group: options.transferGroup } : {}) },
          { idempotencyKey: options.idempotencyKey ?? `payout-${requestId}` },
        );
        return { transferId: transfer.id };
      } catch (error) {
        // A 4xx other than a conflict or rate limit is a refusal (no such account, payouts not enabled, no funds).
        if (error instanceof Stripe.errors.StripeInvalidRequestError || error instanceof Stripe.errors.StripePermissionError) throw new TransferRefusedError(error.message);
        throw error;
      }
    },
    async findTransfer(transferGroup, requestId) {
      for await (const transfer of stripe.transfers.list({ transfer_group: transferGroup, limit: 100 })) {
        if (transfer.metadata?.requestId === requestId) return { transferId: transfer.id };
      }
      return null;
    },
  };
}
