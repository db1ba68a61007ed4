import { defineArea } from '../http/area.ts';
import { checkoutFunctions } from './checkout.functions.ts';
import { localPayRoutes } from './local-pay.routes.ts';
import { expireCheckout, sendRefund } from './payment.flow.ts';
import { reconcileCheckouts } from './reconcile.flow.ts';
import type { Every, JobQueue } from '../jobs/queue.ts';
import type { CheckoutDeps } from './checkout.flow.ts';
import type { PaymentProviders } from '../payments/payment-provider.factory.ts';
import type { CallerResolver } from '../accounts/auth.routes.ts';

/** What app.ts hands the checkout area. */
export interface CheckoutOptions {
  checkout: CheckoutDeps;
  every: Every;
  jobs: JobQueue;
  payments: PaymentProviders;
  resolveCaller: CallerResolver;
}

/**
 * The cart and its checkout (decision 044): each card checkout's hold ends at its deadline (a
 * job due then); the reconciler heals and reports what any of that missed, every minute.
 */
export const checkoutArea = defineArea('checkout', async (app, { checkout, every, jobs, payments, resolveCaller }: CheckoutOptions) => {
  await every('reconcile-checkouts', '* * * * *', () => reconcileCheckouts(checkout));
  await jobs.work<{ checkoutId: string }>('expire-checkout', async ({ checkoutId }) => {
    await expireCheckout(checkout, checkoutId);
  });
  // Card payments that end without an order (a late payment whose stock was gone): refunded through the provider, once.
  await jobs.work<{ checkoutId: string }>('refund-payment', async ({ checkoutId }) => {
    await sendRefund(checkout, checkoutId);
  });
  if (payments.local) await app.register(localPayRoutes, { deps: checkout, local: payments.local, resolveCaller });
  return { functions: checkoutFunctions(checkout) };
});
