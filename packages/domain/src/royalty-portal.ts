import { formatUsd } from './money.ts';

/**
 * The parties' portal (issue 36 part 6, decision 080): the label invites a party by email; the
 * invited person binds their shop account (the one the sister products share) to the party and
 * sees that party's statements, sales, recoup and payouts, and connects their payout account.
 */

/** How long an invitation's link lasts. */
export const INVITATION_DAYS = 7;
export const INVITATION_MS = INVITATION_DAYS * 24 * 60 * 60 * 1000;

export const PORTAL_MESSAGES = {
  invalidEmail: 'Please enter a valid email address.',
  houseParty: 'The label itself is not invited: invite an artist, a producer or another label.',
  linkInvalid: 'This invitation link is not valid.',
  linkUsed: 'This invitation has been used already.',
  linkExpired: 'This invitation has expired. Ask the label for a new one.',
  linkRevoked: 'The label has withdrawn this invitation.',
  invitationNotFound: 'That invitation does not exist.',
  partyNotFound: 'That party does not exist.',
} as const;

export type InvitationStatus = 'pending' | 'accepted' | 'expired' | 'revoked';

/** An invitation's state from its times (pure: the console and the server agree). */
export function invitationStatus(invitation: { acceptedAt: string | null; revokedAt: string | null; expiresAt: string }, now = Date.now()): InvitationStatus {
  if (invitation.revokedAt) return 'revoked';
  if (invitation.acceptedAt) return 'accepted';
  return new Date(invitation.expiresAt).getTime() <= now ? 'expired' : 'pending';
}

/** The whole percent of a cost recouped (rounded down: 100 only once all of it is). */
export function recoupPercent(recoupedCents: number, totalCents: number): number {
  if (totalCents <= 0) return 100;
  return Math.min(100, Math.floor((Math.max(0, recoupedCents) * 100) / totalCents));
}

/** "Portal EP: $10.00 of $2,000.00 recouped (under 1%)": a release's recoup progress as a person reads it. */
export function recoupSentence(release: string, recoupedCents: number, totalCents: number): string {
  const percent = recoupPercent(recoupedCents, totalCents);
  const share = percent === 0 && recoupedCents > 0 ? 'under 1%' : `${percent}%`;
  const left = totalCents - Math.max(0, recoupedCents);
  return `${release}: ${formatUsd(Math.max(0, recoupedCents))} of ${formatUsd(totalCents)} recouped (${share})${left > 0 ? `, ${formatUsd(left)} to go` : ', all recouped'}`;
}
