import { defineArea } from '../http/area.ts';
import { checkoutFunctions } from './checkout.functions.ts';
import { reconcileCheckouts, sendRefund } from './checkout.service.ts';

/** The cart and its checkout; a job settles checkouts the provider finished without telling us. */
export const checkoutArea = defineArea('checkout', async (_app, { checkout, every, jobs }) => {
  await every('reconcile-checkouts', '* * * * *', () => reconcileCheckouts(checkout));
  // Late payments whose stock was gone (issue 15): refunded through the provider, once.
  await jobs.work<{ checkoutId: string }>('refund-payment', async ({ checkoutId }) => {
    await sendRefund(checkout, checkoutId);
  });
  return { functions: checkoutFunctions(checkout) };
});
