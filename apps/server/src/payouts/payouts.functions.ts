import { defineFunction } from '../functions/registry.ts';
import { cashoutOverview, getOrCreatePayoutAccount, onboardingLinkFor, requestPayout, type PayoutDeps } from './payouts.service.ts';

export function payoutsFunctions(deps: PayoutDeps) {
  return [
    defineFunction('createOrRetrieveAccount', async ({ email }, { caller }) => getOrCreatePayoutAccount(deps, caller.userId, email)),
    defineFunction('createStripeOnboardingLinkIOS', async (_input, { caller }) => ({ url: (await onboardingLinkFor(deps, caller.userId)).url })),
    defineFunction('getCashout', async (_input, { db, caller }) => cashoutOverview(db, caller.userId)),
    defineFunction('requestPayout', async (input, { caller }) => ({ ok: true, payout: await requestPayout(deps, caller.userId, input?.amountCents) })),
  ];
}
