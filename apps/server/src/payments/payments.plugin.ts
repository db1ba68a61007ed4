import { defineArea } from '../http/area.ts';
import { paymentsRoutes } from './payments.routes.ts';

/** The provider's webhooks and, with fake payments, the local pay page. */
export const paymentsArea = defineArea('payments', async (app, { checkout, payments, resolveCaller }) => {
  await app.register(paymentsRoutes, { deps: checkout, local: payments.local, resolveCaller });
});
