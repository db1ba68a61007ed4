import { defineFunction } from '../functions/registry.ts';
import { listAttention, resolveAttention } from './checkouts.service.ts';
import { cancelCheckout, completeWalletOnlyOrder, createPaymentLink, openPaymentOf, quoteCheckout, type CheckoutDeps } from './checkout.flow.ts';

/** The spec's checkout functions, quoteCheckout, and the buyer's open payment; every price comes from the database. */
export function checkoutFunctions(deps: CheckoutDeps) {
  return [
    defineFunction('quoteCheckout', async ({ items, useWallet, destination, shippingMethodId, discountCode }, { caller }) =>
      quoteCheckout(deps.db, caller.userId, items, useWallet, { destination, shippingMethodId, discountCode }, deps.tax),
    ),
    defineFunction('completeWalletOnlyOrderStreetFlavor', async (input, { caller }) => {
      const order = await completeWalletOnlyOrder(deps, caller.userId, input);
      const redirectUrl = `/order-confirmation?payment_intent=${encodeURIComponent(order.paymentIntentId)}&redirect_status=succeeded`;
      return { ok: true, orderId: order.orderId, paymentIntentId: order.paymentIntentId, redirectUrl };
    }),
    defineFunction('createPaymentLinkStreetFlavorMerch', async (input, { caller }) => {
      const { url, checkoutId } = await createPaymentLink(deps, caller.userId, input);
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
