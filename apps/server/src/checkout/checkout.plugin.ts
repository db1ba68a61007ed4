import { defineArea } from '../http/area.ts';
import { checkoutFunctions } from './checkout.functions.ts';
import { reconcileCheckouts } from './checkout.service.ts';

/** The cart and its checkout; a job settles checkouts the provider finished without telling us. */
export const checkoutArea = defineArea('checkout', async (_app, { checkout, every }) => {
  await every('reconcile-checkouts', '* * * * *', () => reconcileCheckouts(checkout));
  return { functions: checkoutFunctions(checkout) };
});
