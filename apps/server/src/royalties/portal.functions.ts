import { PORTAL_MESSAGES } from '@storefront/domain/royalty-portal.ts';
import { publicUrl, type Config } from '../config.ts';
import { AppError } from '../errors.ts';
import { defineFunction, type CallableFunction } from '../functions/registry.ts';
import { rateLimitSubject } from '../http/client-address.ts';
import { hitRateLimit } from '../http/rate-limit.ts';
import type { QueueMail } from '../mail/mail.jobs.ts';
import { signInvitationLink, verifyInvitationLink } from './invitation-links.ts';
import { invitationMail } from './invitation.mail.ts';
import { acceptInvitation, createInvitation, listInvitations, revokeInvitation } from './invitations.service.ts';
import { setPayoutAccount } from './payout-run.service.ts';
import { assertHolds, portalOverview, statementPartyFor, type PayoutAccountOf } from './portal.service.ts';
import { readStatement, statementCsvFile } from './statements.service.ts';

/** Invitations per admin per 10 minutes, and per invited address per hour. */
export const INVITE_LIMITS = { perAdmin: 30, perAddress: 5 } as const;

/** What the portal needs of the payouts area (royalties imports no payouts): the caller's account, and its onboarding. */
export interface PortalPayouts {
  accountOf: PayoutAccountOf;
  /** The caller's payout account (made if needed) and the provider's onboarding page for it, returning to the portal. */
  onboard: (userId: string) => Promise<{ accountId: string; url: string }>;
}

const secretsOf = (config: Config) => [config.AUTH_SECRET, ...config.AUTH_SECRET_PREVIOUS];

/**
 * The parties' portal (issue 36 part 6, decision 080): the console invites and withdraws; a
 * signed-in account accepts an invitation and reads only the parties it holds (an admin: any).
 */
export function portalFunctions(deps: { queueMail: QueueMail; payouts: PortalPayouts }): CallableFunction[] {
  return [
    defineFunction('inviteRoyaltyParty', async (input, { db, config, caller, ip }) => {
      await hitRateLimit(db, `royalty-invite:${caller.userId}`, INVITE_LIMITS.perAdmin, 600);
      await hitRateLimit(db, `royalty-invite-ip:${rateLimitSubject(ip)}`, INVITE_LIMITS.perAdmin, 600);
      await hitRateLimit(db, `royalty-invite-email:${input.email.trim().toLowerCase()}`, INVITE_LIMITS.perAddress, 3600);
      const invitation = await createInvitation(db, input, { userId: caller.userId });
      const token = signInvitationLink(config.AUTH_SECRET, invitation.id, invitation.expiresAt);
      await deps.queueMail(invitationMail(invitation.email, invitation.partyName, `${publicUrl(config)}/portal/accept?token=${encodeURIComponent(token)}`));
      return { id: invitation.id, expiresAt: invitation.expiresAt.toISOString() };
    }),
    defineFunction('listRoyaltyInvitations', async (_input, { db }) => listInvitations(db)),
    defineFunction('revokeRoyaltyInvitation', async ({ id }, { db, caller }) => revokeInvitation(db, id, { userId: caller.userId })),
    defineFunction('acceptRoyaltyInvitation', async ({ token }, { db, config, caller }) => {
      await hitRateLimit(db, `royalty-accept:${caller.userId}`, 20, 600);
      const verified = verifyInvitationLink(secretsOf(config), token);
      if (!verified) throw new AppError('invalid-argument', PORTAL_MESSAGES.linkInvalid);
      return acceptInvitation(db, verified.invitationId, caller.userId);
    }),
    defineFunction('getMyRoyalties', async (_input, { db, config, caller }) => portalOverview(db, caller.userId, config.LABEL_TIME_ZONE, deps.payouts.accountOf)),
    defineFunction('getMyRoyaltyStatement', async ({ statementId }, { db, config, caller }) => {
      const partyId = await statementPartyFor(db, caller, statementId);
      return readStatement(db, config.LABEL_TIME_ZONE, { statementId }, { partyId });
    }),
    defineFunction('getMyRoyaltyStatementCsv', async ({ statementId }, { db, config, caller }) => {
      const partyId = await statementPartyFor(db, caller, statementId);
      return statementCsvFile(db, config.LABEL_TIME_ZONE, { statementId }, { partyId });
    }),
    defineFunction('connectRoyaltyPayouts', async ({ partyId }, { db, caller }) => {
      // Only an account that holds the party connects it (the label sets any party's account in the console).
      await assertHolds(db, { ...caller, isAdmin: false }, partyId);
      await hitRateLimit(db, `royalty-connect:${caller.userId}`, 20, 600);
      const { accountId, url } = await deps.payouts.onboard(caller.userId);
      await setPayoutAccount(db, { partyId, accountId }, { userId: caller.userId });
      return { url };
    }),
  ];
}
