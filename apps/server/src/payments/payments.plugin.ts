import { defineArea } from '../http/area.ts';
import { paymentsRoutes } from './payments.routes.ts';

/** The provider's webhooks and the return from its hosted page (the local pay page is checkout's). */
export const paymentsArea = defineArea('payments', async (app, { payments, paymentEvents }) => {
  await app.register(paymentsRoutes, { provider: payments.provider, handlers: paymentEvents });
});
