import { defineFunction } from '../functions/registry.ts';
import { completeWalletOnlyOrder, createPaymentLink, quoteCheckout, type CheckoutDeps } from './checkout.service.ts';

/** The spec's checkout functions plus quoteCheckout; every price comes from the database. */
export function checkoutFunctions(deps: CheckoutDeps) {
  return [
    defineFunction('quoteCheckout', async ({ items, useWallet }, { caller }) => quoteCheckout(deps.db, caller.userId, items, useWallet)),
    defineFunction('completeWalletOnlyOrderStreetFlavor', async (input, { caller }) => {
      const order = await completeWalletOnlyOrder(deps, caller.userId, input);
      const redirectUrl = `/order-confirmation?payment_intent=${encodeURIComponent(order.paymentIntentId)}&redirect_status=succeeded`;
      return { ok: true, orderId: order.orderId, paymentIntentId: order.paymentIntentId, redirectUrl };
    }),
    defineFunction('createPaymentLinkStreetFlavorMerch', async (input, { caller }) => {
      const { url, checkoutId } = await createPaymentLink(deps, caller.userId, input);
      return { ok: true, url, checkoutId };
    }),
  ];
}
