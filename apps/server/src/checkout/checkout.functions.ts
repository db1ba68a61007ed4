import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { defineFunction } from '../functions/registry.ts';
import { rateLimitSubject } from '../http/client-address.ts';
import { hitRateLimit } from '../http/rate-limit.ts';
import { listAttention, resolveAttention } from './checkouts.service.ts';
import { cancelCheckout, completeWalletOnlyOrder, createPaymentLink, openPaymentOf, quoteCheckout, type CheckoutDeps } from './checkout.flow.ts';
import { contactOf } from '../accounts/accounts.service.ts';
import { giveConsent } from '../fans/consent.service.ts';
import { codeAttempt, codeAttemptRefused, giveBackCodeAttempt } from './code-attempts.ts';

/** The checkout's "Send me news" box (decision 074): the account's address consents, from /checkout. */
async function recordCheckoutConsent(deps: CheckoutDeps, userId: string): Promise<void> {
  const buyer = await contactOf(deps.db, userId);
  if (buyer) await giveConsent(deps.db, { email: buyer.email, userId, source: 'checkout', page: '/checkout' });
}

/** Limits per minute, per account and per client address, shared by every instance (issue 40 item 7). */
async function limitPerMinute(db: Db, kind: string, userId: string, ip: string, perAccount: number, perAddress: number): Promise<void> {
  await hitRateLimit(db, `${kind}:${userId}`, perAccount, 60);
  await hitRateLimit(db, `${kind}-ip:${rateLimitSubject(ip)}`, perAddress, 60);
}

const limitQuotes = (db: Db, config: Config, userId: string, ip: string) => limitPerMinute(db, 'quote', userId, ip, config.QUOTE_RATE_LIMIT, config.QUOTE_ADDRESS_RATE_LIMIT);
const limitCardCheckouts = (db: Db, config: Config, userId: string, ip: string) =>
  limitPerMinute(db, 'card-checkout', userId, ip, config.CHECKOUT_RATE_LIMIT, config.CHECKOUT_ADDRESS_RATE_LIMIT);

/** The quote as its contract publishes it: the per-line tax parts stay the server's (issue 40 item 11). */
function answerOf<Q extends { taxParts: unknown }>(quote: Q): Omit<Q, 'taxParts'> {
  const { taxParts: _kept, ...answer } = quote;
  return answer;
}

/** The spec's checkout functions, quoteCheckout, and the buyer's open payment; every price comes from the database. */
export function checkoutFunctions(deps: CheckoutDeps) {
  return [
    defineFunction('quoteCheckout', async ({ items, useWallet, destination, shippingMethodId, discountCode }, { caller, config, ip }) => {
      await limitQuotes(deps.db, config, caller.userId, ip);
      const attempt = await codeAttempt(deps.db, caller.userId, ip, discountCode);
      // Over the code limit: the cart is still quoted, without the code, and the code's line says why.
      if (attempt === 'refused') {
        const quote = await quoteCheckout(deps.db, caller.userId, items, useWallet, { destination, shippingMethodId }, deps.tax);
        return answerOf({ ...quote, discountRefused: codeAttemptRefused });
      }
      const quote = await quoteCheckout(deps.db, caller.userId, items, useWallet, { destination, shippingMethodId, discountCode }, deps.tax);
      if (attempt && quote.discountCode) await giveBackCodeAttempt(deps.db, attempt);
      return answerOf(quote);
    }),
    defineFunction('completeWalletOnlyOrderStreetFlavor', async (input, { caller, ip }) => {
      const attempt = await codeAttempt(deps.db, caller.userId, ip, input.discountCode, { throwWhenRefused: true });
      const order = await completeWalletOnlyOrder(deps, caller.userId, input);
      // Its own, unticked box (decision 074): consent is recorded apart from the order.
      if (input.marketingConsent) await recordCheckoutConsent(deps, caller.userId);
      if (attempt && attempt !== 'refused') await giveBackCodeAttempt(deps.db, attempt);
      const redirectUrl = `/order-confirmation?payment_intent=${encodeURIComponent(order.paymentIntentId)}&redirect_status=succeeded`;
      return { ok: true, orderId: order.orderId, paymentIntentId: order.paymentIntentId, redirectUrl };
    }),
    defineFunction('createPaymentLinkStreetFlavorMerch', async (input, { caller, config, ip }) => {
      await limitCardCheckouts(deps.db, config, caller.userId, ip);
      const attempt = await codeAttempt(deps.db, caller.userId, ip, input.discountCode, { throwWhenRefused: true });
      const { url, checkoutId } = await createPaymentLink(deps, caller.userId, input);
      if (input.marketingConsent) await recordCheckoutConsent(deps, caller.userId);
      if (attempt && attempt !== 'refused') await giveBackCodeAttempt(deps.db, attempt);
      return { ok: true, url, checkoutId };
    }),
    defineFunction('getOpenPayment', async (_input, { caller }) => openPaymentOf(deps, caller.userId)),
    defineFunction('cancelOpenPayment', async ({ checkoutId }, { caller }) => ({ cancelled: await cancelCheckout(deps, caller.userId, checkoutId) })),
    // The console's "needs attention" list: what the money reconciler found (decision 044).
    defineFunction('listNeedsAttention', async ({ open }) => ({
      items: (await listAttention(deps.db, { open, limit: 200 })).map((row) => ({
        ...row,
        createdAt: row.createdAt.toISOString(),
        resolvedAt: row.resolvedAt?.toISOString() ?? null,
      })),
    })),
    defineFunction('resolveNeedsAttention', async ({ id }) => ({ resolved: await resolveAttention(deps.db, id) })),
  ];
}
