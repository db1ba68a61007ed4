import { type Config, publicUrl } from '../config.ts';
import { defineArea } from '../http/area.ts';
import { createStripePayouts } from '../payments/stripe.provider.ts';
import { payoutsFunctions } from './payouts.functions.ts';
import { localPayoutRoutes } from './payouts.routes.ts';
import { createLocalPayouts, type PayoutDeps } from './payouts.service.ts';
import type { Db } from '../db/client.ts';
import type { CallerResolver } from '../accounts/auth.routes.ts';

/** What app.ts hands the payouts area. */
export interface PayoutsOptions {
  config: Config;
  db: Db;
  resolveCaller: CallerResolver;
}

/** The payout provider PAYMENT_PROVIDER names (the creators' cash-outs and the royalties' payout runs). */
export function payoutDepsFor(config: Config, db: Db): PayoutDeps {
  return config.PAYMENT_PROVIDER === 'stripe'
    ? {
        db,
        providerName: 'stripe',
        provider: createStripePayouts({ secretKey: config.STRIPE_SECRET_KEY!, webhookSecret: config.STRIPE_WEBHOOK_SECRET!, publicUrl: publicUrl(config) }),
      }
    : { db, providerName: 'local', provider: createLocalPayouts(db) };
}

/** Artists' payouts: Stripe Connect, or a local stand-in with its own onboarding page. */
export const payoutsArea = defineArea('payouts', async (app, { config, db, resolveCaller }: PayoutsOptions) => {
  const deps = payoutDepsFor(config, db);
  if (deps.providerName === 'local') await app.register(localPayoutRoutes, { db, resolveCaller });
  return { functions: payoutsFunctions(deps) };
});
