import { z } from 'zod';
import { FULL_SHARE_BP, RECOUP_KINDS, ROYALTY_MESSAGES, ROYALTY_PARTY_KINDS } from '../royalties.ts';
import { defineContract, noInput, optionalNullable } from './define.ts';

const id = z.number().int().positive().max(2_147_483_647);
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'A day as YYYY-MM-DD.');
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const text = (max: number) =>
  z
    .string()
    .trim()
    .max(max, `At most ${max} characters.`)
    .refine((value) => !CONTROL.test(value), 'Control characters are not allowed.');

/** What a split belongs to: a release, a product, or an artist's roster default. */
export const splitSubject = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('release'), id }).strict(),
  z.object({ kind: z.literal('product'), id: z.string().min(1).max(64) }).strict(),
  z.object({ kind: z.literal('artist'), id }).strict(),
]);

export const saveRoyaltyPartyInput = z
  .object({
    id: optionalNullable(id),
    kind: z.enum(ROYALTY_PARTY_KINDS),
    name: text(120).pipe(z.string().min(1, 'A party needs a name.')),
    /** An artist party's roster artist. */
    artistId: optionalNullable(id),
  })
  .strict();

export const setRoyaltySplitInput = z
  .object({
    subject: splitSubject,
    /** The label's day it applies from (absent: today); never a past day. */
    effectiveFrom: optionalNullable(day),
    shares: z
      .array(z.object({ partyId: id, shareBp: z.number().int().min(1).max(FULL_SHARE_BP) }).strict())
      .min(1)
      .max(20)
      .refine((shares) => shares.reduce((sum, share) => sum + share.shareBp, 0) === FULL_SHARE_BP, ROYALTY_MESSAGES.sharesSum)
      .refine((shares) => new Set(shares.map((share) => share.partyId)).size === shares.length, ROYALTY_MESSAGES.partyTwice),
    /** A reserve for returns: this share of each earning held for `reserveDays` days. */
    reserveBp: z.number().int().min(0).max(FULL_SHARE_BP).default(0),
    reserveDays: z.number().int().min(0).max(3650).default(0),
  })
  .strict();

export const addRecoupCostInput = z
  .object({
    releaseId: id,
    partyId: id,
    kind: z.enum(RECOUP_KINDS),
    amountCents: z.number().int().positive().max(100_000_000_00),
    note: text(200).default(''),
  })
  .strict();

const partyOutput = z.object({ id: z.number(), kind: z.enum(ROYALTY_PARTY_KINDS), name: z.string(), artistId: z.number().nullable(), house: z.boolean() });
const ruleOutput = z.object({
  id: z.number(),
  subjectKind: z.enum(['release', 'product', 'artist']),
  subjectId: z.string(),
  subjectName: z.string(),
  effectiveFrom: z.string(),
  reserveBp: z.number(),
  reserveDays: z.number(),
  shares: z.array(z.object({ partyId: z.number(), shareBp: z.number() })),
});
const costOutput = z.object({
  id: z.number(),
  releaseId: z.number(),
  partyId: z.number(),
  kind: z.enum(RECOUP_KINDS),
  amountCents: z.number(),
  note: z.string(),
  recoupedCents: z.number(),
});
const balanceOutput = z.object({
  partyId: z.number(),
  earnedCents: z.number(),
  recoupedCents: z.number(),
  reserveHeldCents: z.number(),
  balanceCents: z.number(),
});

export const royaltyContracts = {
  /** The console's Royalties section: parties, every split rule (history kept), recoupable costs and each party's balance. */
  listRoyalties: defineContract({
    access: 'admin',
    input: noInput,
    output: z.object({ parties: z.array(partyOutput), rules: z.array(ruleOutput), costs: z.array(costOutput), balances: z.array(balanceOutput) }),
  }),
  saveRoyaltyParty: defineContract({ access: 'admin', input: saveRoyaltyPartyInput, output: z.object({ id: z.number() }) }),
  /** A new split rule from a day on (today or later); the sales before it keep theirs. */
  setRoyaltySplit: defineContract({ access: 'admin', input: setRoyaltySplitInput, output: z.object({ id: z.number(), effectiveFrom: z.string() }) }),
  addRecoupCost: defineContract({ access: 'admin', input: addRecoupCostInput, output: z.object({ id: z.number() }) }),
};
