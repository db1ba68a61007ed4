import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { errorBody } from '../http/error-handler.ts';
import type { PaymentEventHandlers, PaymentProvider } from './provider.ts';

/**
 * The provider's webhook and the return from its hosted page. This area only adapts the
 * provider and verifies its events; what an event means for a checkout or an order is the
 * handlers' (checkout's payment flow, orders' refunds), handed in by buildApp (decision 044):
 * payments imports nothing from checkout or orders.
 */
export async function paymentsRoutes(app: FastifyInstance, options: { provider: PaymentProvider; handlers: PaymentEventHandlers }) {
  const { provider, handlers } = options;

  // Scoped to this plugin: the provider's signature is checked on the exact bytes received.
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.post('/webhooks/stripe', async (request, reply) => {
    if (provider.name !== 'stripe') return reply.status(404).send(errorBody('not-found', 'Stripe is not this shop’s payment provider.'));
    let event;
    try {
      event = provider.parseEvent(request.body as Buffer, request.headers['stripe-signature'] as string | undefined);
    } catch {
      return reply.status(400).send(errorBody('invalid-argument', 'The webhook signature is not valid.'));
    }
    const refundEvent = event.type === 'refunded' || event.type === 'refund-failed' || event.type === 'dispute';
    const result = refundEvent ? await handlers.refund(event) : await handlers.payment(event);
    return { received: true, result };
  });

  app.get<{ Querystring: { session_id?: string } }>('/pay/return', async (request, reply) => {
    const sessionId = z.string().min(1).max(200).safeParse(request.query.session_id);
    if (!sessionId.success) return reply.redirect('/checkout');
    const state = await provider.sessionState(sessionId.data).catch((error: unknown) => {
      // The confirmation page then says the payment failed; the reconcile job settles it later.
      request.log.warn({ err: error, sessionId: sessionId.data }, 'could not ask the payment provider about a returning payment session');
      return null;
    });
    const status = state?.state === 'paid' ? 'succeeded' : state?.state === 'open' ? 'processing' : 'failed';
    return reply.redirect(`/order-confirmation?payment_intent=${encodeURIComponent(state?.paymentIntentId ?? '')}&redirect_status=${status}`);
  });
}
