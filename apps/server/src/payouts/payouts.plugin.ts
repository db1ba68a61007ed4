import { publicUrl } from '../accounts/auth.ts';
import { defineArea } from '../http/area.ts';
import { createStripePayouts } from '../payments/stripe.provider.ts';
import { payoutsFunctions } from './payouts.functions.ts';
import { localPayoutRoutes } from './payouts.routes.ts';
import { createLocalPayouts, type PayoutDeps } from './payouts.service.ts';

/** Artists' payouts: Stripe Connect, or a local stand-in with its own onboarding page. */
export const payoutsArea = defineArea('payouts', async (app, { config, db, resolveCaller }) => {
  const deps: PayoutDeps =
    config.PAYMENT_PROVIDER === 'stripe'
      ? {
          db,
          providerName: 'stripe',
          provider: createStripePayouts({ secretKey: config.STRIPE_SECRET_KEY!, webhookSecret: config.STRIPE_WEBHOOK_SECRET!, publicUrl: publicUrl(config) }),
        }
      : { db, providerName: 'local', provider: createLocalPayouts(db) };
  if (deps.providerName === 'local') await app.register(localPayoutRoutes, { db, resolveCaller });
  return { functions: payoutsFunctions(deps) };
});
