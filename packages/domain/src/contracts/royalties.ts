import { z } from 'zod';
import { STATEMENT_MESSAGES, STATEMENT_PERIOD_KINDS, STATEMENT_PERIOD_PATTERN } from '../royalty-statements.ts';
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

const partyOutput = z.object({
  id: z.number(),
  kind: z.enum(ROYALTY_PARTY_KINDS),
  name: z.string(),
  artistId: z.number().nullable(),
  house: z.boolean(),
  payoutAccountId: z.string().nullable(),
});
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

const period = z.string().regex(STATEMENT_PERIOD_PATTERN, STATEMENT_MESSAGES.period);

/** A statement: an issued one by its id, or a party's period (the issued one, else a draft of it). */
export const royaltyStatementRef = z.union([z.object({ statementId: id }).strict(), z.object({ partyId: id, period }).strict()]);
export const issueRoyaltyStatementInput = z.object({ partyId: id, period }).strict();
export const setRoyaltyPayoutAccountInput = z
  .object({
    partyId: id,
    /** The party's Stripe Connect account (acct_...); null: none, its balance accrues. */
    accountId: z.union([
      z
        .string()
        .trim()
        .regex(/^acct_[A-Za-z0-9_]{1,100}$/, STATEMENT_MESSAGES.accountId),
      z.null(),
    ]),
  })
  .strict();
export const runRoyaltyPayoutsInput = z.object({ period }).strict();

/** A statement as the console and a party's portal read it (decisions 077 and 080). */
export const statementOutput = z.object({
  id: z.number().nullable(),
  party: z.object({ id: z.number(), name: z.string(), kind: z.string() }),
  period: z.string(),
  periodKind: z.enum(STATEMENT_PERIOD_KINDS),
  from: z.string(),
  through: z.string(),
  timeZone: z.string(),
  cutoffAt: z.string(),
  issuedAt: z.string().nullable(),
  openingCents: z.number(),
  earningsCents: z.number(),
  recoupedCents: z.number(),
  reserveHeldCents: z.number(),
  reserveReleasedCents: z.number(),
  payoutsCents: z.number(),
  closingCents: z.number(),
  earlierCents: z.number(),
  earnings: z.array(z.object({ releaseId: z.number().nullable(), release: z.string(), format: z.enum(['digital', 'physical']), soldCents: z.number(), returnedCents: z.number() })),
  payouts: z.array(z.object({ id: z.string(), amountCents: z.number(), at: z.string() })),
});
const statementSummary = z.object({
  id: z.number(),
  partyId: z.number(),
  partyName: z.string(),
  period: z.string(),
  openingCents: z.number(),
  closingCents: z.number(),
  issuedAt: z.string(),
});
const payoutOutput = z.object({
  id: z.string(),
  runId: z.string(),
  partyId: z.number(),
  partyName: z.string(),
  amountCents: z.number(),
  status: z.enum(['pending', 'sending', 'paid', 'failed']),
  attempts: z.number(),
  transferId: z.string().nullable(),
  lastError: z.string().nullable(),
  createdAt: z.string(),
});
const runOutput = z.object({
  runId: z.string(),
  period: z.string(),
  minimumCents: z.number(),
  paid: z.number(),
  pending: z.number(),
  failed: z.number(),
  /**
   * Parties left with a payable balance, which accrues: no connected account, under the minimum, or
   * not paid by this run (its transfer was refused, or the account came after the run was planned).
   */
  accrued: z.array(z.object({ partyId: z.number(), partyName: z.string(), balanceCents: z.number(), reason: z.enum(['no-account', 'under-minimum', 'not-paid']) })),
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
  /** Issued statements, newest first (issue 36 part 4, decision 077). */
  listRoyaltyStatements: defineContract({ access: 'admin', input: noInput, output: z.object({ statements: z.array(statementSummary) }) }),
  /** An issued statement as issued, or a draft of a party's period (what issuing it would close). */
  getRoyaltyStatement: defineContract({ access: 'admin', input: royaltyStatementRef, output: statementOutput }),
  getRoyaltyStatementCsv: defineContract({ access: 'admin', input: royaltyStatementRef, output: z.object({ filename: z.string(), csv: z.string() }) }),
  /** Closes a party's period: its figures are kept as issued; later entries go on the next statement. */
  issueRoyaltyStatement: defineContract({ access: 'admin', input: issueRoyaltyStatementInput, output: statementOutput }),
  /** A party's connected payout account (issue 36 part 5); without one its balance accrues. */
  setRoyaltyPayoutAccount: defineContract({ access: 'admin', input: setRoyaltyPayoutAccountInput, output: z.object({ partyId: z.number(), accountId: z.string().nullable() }) }),
  /** Pays every party with a connected account its payable balance at the period's end (once; a second call resumes). */
  runRoyaltyPayouts: defineContract({ access: 'admin', input: runRoyaltyPayoutsInput, output: runOutput }),
  listRoyaltyPayouts: defineContract({ access: 'admin', input: noInput, output: z.object({ payouts: z.array(payoutOutput) }) }),
};
