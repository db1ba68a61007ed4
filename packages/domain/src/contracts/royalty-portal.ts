import { z } from 'zod';
import { PORTAL_MESSAGES } from '../royalty-portal.ts';
import { ROYALTY_PARTY_KINDS } from '../royalties.ts';
import { STATEMENT_PERIOD_KINDS } from '../royalty-statements.ts';
import { statementOutput } from './royalties.ts';
import { defineContract, noInput, okOutput } from './define.ts';

const id = z.number().int().positive().max(2_147_483_647);
const invitationId = z
  .string()
  .trim()
  .regex(/^rin_[A-Za-z0-9_-]{8,64}$/, PORTAL_MESSAGES.invitationNotFound);

export const inviteRoyaltyPartyInput = z
  .object({
    partyId: id,
    email: z.string().trim().max(254, PORTAL_MESSAGES.invalidEmail).email(PORTAL_MESSAGES.invalidEmail),
  })
  .strict();

const invitationOutput = z.object({
  id: z.string(),
  partyId: z.number(),
  partyName: z.string(),
  email: z.string(),
  status: z.enum(['pending', 'accepted', 'expired', 'revoked']),
  createdAt: z.string(),
  expiresAt: z.string(),
  acceptedAt: z.string().nullable(),
  /** The account that accepted it (its address), while it holds the party. */
  acceptedBy: z.string().nullable(),
  revokedAt: z.string().nullable(),
});

const partyRef = z.object({ id: z.number(), name: z.string(), kind: z.enum(ROYALTY_PARTY_KINDS) });

const portalParty = z.object({
  party: partyRef,
  /** Its connected payout account: none, one being set up (payouts not enabled yet), or ready. */
  payouts: z.enum(['none', 'pending', 'ready']),
  statements: z.array(z.object({ id: z.number(), period: z.string(), periodKind: z.enum(STATEMENT_PERIOD_KINDS), closingCents: z.number(), issuedAt: z.string() })),
  /** The party's sales of each release up to now (its own earnings only). */
  sales: z.array(
    z.object({ releaseId: z.number().nullable(), release: z.string(), units: z.number(), soldCents: z.number(), returnedCents: z.number(), earningsCents: z.number() }),
  ),
  recoup: z.array(z.object({ releaseId: z.number(), release: z.string(), totalCents: z.number(), recoupedCents: z.number() })),
  payoutList: z.array(z.object({ id: z.string(), period: z.string(), amountCents: z.number(), status: z.enum(['pending', 'sending', 'paid', 'failed']), createdAt: z.string() })),
  balanceCents: z.number(),
});

/** The parties' portal (issue 36 part 6, decision 080). */
export const royaltyPortalContracts = {
  /** Mails a party's invitation: a single-use link, valid for 7 days, that binds the account opening it to the party. */
  inviteRoyaltyParty: defineContract({ access: 'admin', input: inviteRoyaltyPartyInput, output: z.object({ id: z.string(), expiresAt: z.string() }) }),
  listRoyaltyInvitations: defineContract({ access: 'admin', input: noInput, output: z.object({ invitations: z.array(invitationOutput) }) }),
  /** Withdraws a pending invitation, or ends the access an accepted one gave. */
  revokeRoyaltyInvitation: defineContract({ access: 'admin', input: z.object({ id: invitationId }).strict(), output: okOutput }),
  /** Binds the caller's account to the invitation's party (the token is the proof; used once). */
  acceptRoyaltyInvitation: defineContract({
    access: 'signed-in',
    input: z.object({ token: z.string().min(1).max(600) }).strict(),
    output: z.object({ party: partyRef }),
  }),
  /** The caller's parties (none for a shopper), each with only its own figures. */
  getMyRoyalties: defineContract({ access: 'signed-in', input: noInput, output: z.object({ parties: z.array(portalParty) }) }),
  /** One issued statement of a party the caller holds (an admin: any). */
  getMyRoyaltyStatement: defineContract({ access: 'signed-in', input: z.object({ statementId: id }).strict(), output: statementOutput }),
  getMyRoyaltyStatementCsv: defineContract({ access: 'signed-in', input: z.object({ statementId: id }).strict(), output: z.object({ filename: z.string(), csv: z.string() }) }),
  /** Connects the party's payouts to the caller's payout account (made if needed) and answers its onboarding page. */
  connectRoyaltyPayouts: defineContract({ access: 'signed-in', input: z.object({ partyId: id }).strict(), output: z.object({ url: z.string() }) }),
};
