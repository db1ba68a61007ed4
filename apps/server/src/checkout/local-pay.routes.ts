import type { FastifyInstance, FastifyRequest } from 'fastify';
import { formatUsd } from '@storefront/domain/catalog.ts';
import { CHECKOUT_MESSAGES } from '@storefront/domain/pricing.ts';
import { receiptLines } from '@storefront/domain/receipts.ts';
import type { Caller } from '../functions/registry.ts';
import { errorBody } from '../http/error-handler.ts';
import { escapeHtml, htmlPage, messagePage } from '../http/html.ts';
import { TEST_MODE_BANNER } from '../http/test-mode.ts';
import { LOCAL_CARDS, type createLocalProvider } from '../payments/local.provider.ts';
import { cancelCheckout, type CheckoutDeps } from './checkout.flow.ts';
import { findCheckout, type Checkout } from './checkouts.service.ts';
import { applyPaymentEvent } from './payment.flow.ts';

/**
 * The local provider's hosted payment page (fake payments only): the checkout's own page, so
 * it lives with checkouts; a payment made here goes through the same signed event and
 * applyPaymentEvent as a provider's webhook.
 */
type LocalProvider = ReturnType<typeof createLocalProvider>;

function payPage(checkout: Checkout, message = ''): string {
  const lines = checkout.items.map((item) => `<li>${item.qty} × ${escapeHtml(item.name)} — ${formatUsd(item.unitCents * item.qty)}</li>`).join('');
  // Shipping and tax too (issue 39): the lines add up to the total, and on to the amount paid here.
  const money = receiptLines(
    { ...checkout, walletAppliedCents: checkout.walletHeldCents, chargedCents: checkout.chargeCents },
    { jurisdiction: checkout.taxJurisdiction, includedCents: checkout.taxIncludedCents, shippingMethod: checkout.shippingMethod },
    checkout.discountCode,
  )
    .map((line) => `${escapeHtml(line.label)}: ${formatUsd(line.cents)}`)
    .join('<br>');
  return htmlPage(
    'Pay · Street Flavor Records',
    `
${TEST_MODE_BANNER}
<h1 style="font-size:22px">Pay Street Flavor Records</h1>
<p>Test payment page (local provider). Card 4242 4242 4242 4242 succeeds; 4000 0000 0000 0002 is declined.</p>
<ul>${lines}</ul>
<p>${money}</p>
${message ? `<p role="alert" style="color:#ff8a8a;font-weight:bold">${escapeHtml(message)}</p>` : ''}
<form method="post" action="/pay/${encodeURIComponent(checkout.id)}">
<label for="card" style="display:block;margin:12px 0 4px">Card number</label>
<input id="card" name="card" inputmode="numeric" autocomplete="cc-number" required style="width:100%;padding:10px;font-size:16px">
<button type="submit" style="margin-top:16px;width:100%;padding:12px;font-size:16px;font-weight:bold">Pay ${formatUsd(checkout.chargeCents)}</button>
</form>
<form method="post" action="/pay/${encodeURIComponent(checkout.id)}/cancel">
<button type="submit" style="margin-top:16px;background:none;border:0;padding:0;color:#f2c14e;text-decoration:underline;font-size:16px;cursor:pointer">Back to checkout</button>
</form>
`,
    { look: 'shop' },
  );
}

export async function localPayRoutes(
  app: FastifyInstance,
  options: { deps: CheckoutDeps; local: LocalProvider; resolveCaller: (request: FastifyRequest) => Promise<Caller | null> },
) {
  const { deps, local } = options;
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 4096 }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  async function ownCheckout(request: FastifyRequest<{ Params: { id: string } }>) {
    const caller = await options.resolveCaller(request);
    const checkout = await findCheckout(deps.db, request.params.id);
    if (!caller || !checkout || checkout.userId !== caller.userId) return null;
    return checkout;
  }

  app.get<{ Params: { id: string } }>('/pay/:id', async (request, reply) => {
    const checkout = await ownCheckout(request);
    if (!checkout)
      return reply
        .status(404)
        .type('text/html; charset=utf-8')
        .send(messagePage('This payment page does not exist.', '', { label: 'Back to checkout', href: '/checkout' }, { look: 'shop' }));
    if (checkout.status !== 'pending' || checkout.expiresAt < new Date()) {
      return reply.type('text/html; charset=utf-8').send(messagePage('This payment is closed.', '', { label: 'My orders', href: '/my-orders' }, { look: 'shop' }));
    }
    return reply.header('cache-control', 'no-store').type('text/html; charset=utf-8').send(payPage(checkout));
  });

  app.post<{ Params: { id: string }; Body: { card?: string } }>('/pay/:id', async (request, reply) => {
    const checkout = await ownCheckout(request);
    if (!checkout || !checkout.providerSessionId) return reply.status(404).send(errorBody('not-found', 'This payment page does not exist.'));
    if (checkout.status !== 'pending' || checkout.expiresAt < new Date()) return reply.redirect(`/pay/${encodeURIComponent(checkout.id)}`);
    const card = String(request.body?.card ?? '').replace(/[\s-]/g, '');
    if (card !== LOCAL_CARDS.succeeds) {
      // The page itself answers 200: the decline is its content, shown to the payer.
      return reply.type('text/html; charset=utf-8').send(payPage(checkout, CHECKOUT_MESSAGES.cardDeclined));
    }
    const paymentIntentId = `pi_local_${checkout.id}`;
    const { body, signature } = local.signedEvent('checkout.session.completed', {
      id: checkout.providerSessionId,
      checkoutId: checkout.id,
      amountCents: checkout.chargeCents,
      paymentIntentId,
    });
    // The same path as a provider webhook: verify the signature, then apply once.
    const result = await applyPaymentEvent(deps, local.parseEvent(body, signature));
    // Cancelled meanwhile (the buyer went back in another tab): refused, the page says it is closed.
    if (result === 'ignored') return reply.redirect(`/pay/${encodeURIComponent(checkout.id)}`);
    return reply.redirect(`${checkout.returnUrl}?payment_intent=${encodeURIComponent(paymentIntentId)}&redirect_status=succeeded`);
  });

  // "Back to checkout": leaving the payment page cancels its checkout and gives the held credit back at once.
  app.post<{ Params: { id: string } }>('/pay/:id/cancel', async (request, reply) => {
    const checkout = await ownCheckout(request);
    if (!checkout) return reply.status(404).send(errorBody('not-found', 'This payment page does not exist.'));
    await cancelCheckout(deps, checkout.userId, checkout.id);
    return reply.redirect('/checkout');
  });
}
