import { eq } from 'drizzle-orm';
import { users } from '../db/schema/index.ts';
import { defineFunction } from '../functions/registry.ts';
import { cashoutOverview, getOrCreatePayoutAccount, requestPayout, type PayoutDeps } from './payouts.service.ts';

export function payoutsFunctions(deps: PayoutDeps) {
  return [
    defineFunction('createOrRetrieveAccount', async ({ email }, { caller }) => getOrCreatePayoutAccount(deps, caller.userId, email)),
    defineFunction('createStripeOnboardingLinkIOS', async (_input, { db, caller }) => {
      const [user] = await db.select({ email: users.email }).from(users).where(eq(users.id, caller.userId));
      const account = await getOrCreatePayoutAccount(deps, caller.userId, user!.email);
      return deps.provider.onboardingLink(account.stripeAccountId);
    }),
    defineFunction('getCashout', async (_input, { db, caller }) => cashoutOverview(db, caller.userId)),
    defineFunction('requestPayout', async (input, { caller }) => ({ ok: true, payout: await requestPayout(deps, caller.userId, input?.amountCents) })),
  ];
}
