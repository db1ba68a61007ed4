import { defineArea } from '../http/area.ts';
import { paymentsRoutes } from './payments.routes.ts';
import type { PaymentProviders } from './payment-provider.factory.ts';
import type { PaymentEventHandlers } from './provider.ts';

/** What app.ts hands the payments area. */
export interface PaymentsOptions {
  payments: PaymentProviders;
  paymentEvents: PaymentEventHandlers;
}

/** The provider's webhooks and the return from its hosted page (the local pay page is checkout's). */
export const paymentsArea = defineArea('payments', async (app, { payments, paymentEvents }: PaymentsOptions) => {
  await app.register(paymentsRoutes, { provider: payments.provider, handlers: paymentEvents });
});
