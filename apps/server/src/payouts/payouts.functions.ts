import { z } from 'zod';
import { defineFunction } from '../functions/registry.ts';
import { cashoutOverview, getOrCreatePayoutAccount, onboardingLinkFor, requestPayout, type PayoutDeps } from './payouts.service.ts';

export function payoutsFunctions(deps: PayoutDeps) {
  return [
    defineFunction({
      name: 'createOrRetrieveAccount',
      access: 'signed-in',
      input: z.object({ email: z.email().max(254) }).strict(),
      handler: async ({ email }, { caller }) => getOrCreatePayoutAccount(deps, caller!.userId, email),
    }),
    defineFunction({
      name: 'createStripeOnboardingLinkIOS',
      access: 'signed-in',
      input: z.null().or(z.object({}).strict()),
      handler: async (_input, { caller }) => onboardingLinkFor(deps, caller!.userId),
    }),
    defineFunction({
      name: 'getCashout',
      access: 'signed-in',
      input: z.null().or(z.object({}).strict()),
      handler: async (_input, { db, caller }) => cashoutOverview(db, caller!.userId),
    }),
    defineFunction({
      name: 'requestPayout',
      access: 'signed-in',
      input: z.object({ amountCents: z.number().int().positive().optional() }).strict().nullish(),
      handler: async (input, { caller }) => ({ ok: true, payout: await requestPayout(deps, caller!.userId, input?.amountCents) }),
    }),
  ];
}
