import { z } from 'zod';
import { defineContract, noInput, optionalNullable } from './define.ts';

/** Cash-out figures: what may be paid out, the account's state, and past requests. */
export const cashoutOutput = z.object({
  hasAccount: z.boolean(),
  payoutsEnabled: z.boolean(),
  availableCents: z.number(),
  requests: z.array(
    z.object({
      id: z.string(),
      amountCents: z.number(),
      status: z.enum(['requested', 'paid', 'failed']),
      createdAt: z.string(),
    }),
  ),
});

export const payoutsContracts = {
  createOrRetrieveAccount: defineContract({
    access: 'signed-in',
    input: z.object({ email: z.email().max(254) }).strict(),
    output: z.object({ stripeAccountId: z.string(), payouts_enabled: z.boolean() }),
  }),
  createStripeOnboardingLinkIOS: defineContract({ access: 'signed-in', input: noInput, output: z.object({ url: z.string() }) }),
  getCashout: defineContract({ access: 'signed-in', input: noInput, output: cashoutOutput }),
  requestPayout: defineContract({
    access: 'signed-in',
    // Without an amount: everything available.
    input: z
      .object({ amountCents: optionalNullable(z.number().int().positive()) })
      .strict()
      .nullish(),
    output: z.object({ ok: z.literal(true), payout: z.object({ id: z.string(), amountCents: z.number() }) }),
  }),
};
