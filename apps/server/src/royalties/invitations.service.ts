import { randomBytes } from 'node:crypto';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { INVITATION_MS, invitationStatus, PORTAL_MESSAGES } from '@storefront/domain/royalty-portal.ts';
import { recordAudit, type Actor } from '../audit/audit.service.ts';
import type { Db } from '../db/client.ts';
import { royaltyInvitations, royaltyParties, royaltyPartyMembers } from '../db/schema/index.ts';
import { runTransaction } from '../db/transaction.ts';
import { AppError } from '../errors.ts';

/**
 * Invitations to a party's portal and the accounts they bind (issue 36 part 6, decision 080).
 * The label invites an address; the link's signature proves it was made here, and the row decides
 * whether it may still be used: once, before it expires, unless the label withdrew it. Accepting
 * binds the account that opens it (signed in) to the party; an account may hold several parties
 * and a party several accounts. Withdrawing an accepted invitation ends the access it gave.
 */

/** A new invitation of a party (not the label itself): its id and expiry, for the mail's link. */
export async function createInvitation(db: Db, input: { partyId: number; email: string }, actor: Actor, now = new Date()) {
  return runTransaction(db, async (tx) => {
    const [party] = await tx.select().from(royaltyParties).where(eq(royaltyParties.id, input.partyId));
    if (!party) throw new AppError('not-found', PORTAL_MESSAGES.partyNotFound);
    if (party.house) throw new AppError('failed-precondition', PORTAL_MESSAGES.houseParty);
    const id = `rin_${randomBytes(18).toString('base64url')}`;
    const expiresAt = new Date(now.getTime() + INVITATION_MS);
    const email = input.email.trim().toLowerCase();
    await tx.insert(royaltyInvitations).values({ id, partyId: party.id, email, expiresAt, createdBy: 'userId' in actor ? actor.userId : null });
    await recordAudit(tx, { actor, action: 'royalty.portal.invite', targetType: 'royalty-party', targetId: String(party.id), after: { invitationId: id, email } });
    return { id, expiresAt, partyName: party.name, email };
  });
}

/** Every invitation, newest first, with the address of the account an accepted one bound. */
export async function listInvitations(db: Db) {
  const result = await db.execute<{
    id: string;
    party_id: number;
    party_name: string;
    email: string;
    created_at: Date | string;
    expires_at: Date | string;
    accepted_at: Date | string | null;
    accepted_by: string | null;
    revoked_at: Date | string | null;
  }>(sql`
    SELECT i.id, i.party_id, p.name AS party_name, i.email, i.created_at, i.expires_at, i.accepted_at, i.revoked_at,
           (SELECT u.email FROM "user" u WHERE u.id = i.accepted_by) AS accepted_by
    FROM royalty_invitation i JOIN royalty_party p ON p.id = i.party_id
    ORDER BY i.created_at DESC, i.id LIMIT 500`);
  const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());
  return {
    invitations: result.rows.map((row) => {
      const times = { acceptedAt: iso(row.accepted_at), revokedAt: iso(row.revoked_at), expiresAt: new Date(row.expires_at).toISOString() };
      return {
        id: row.id,
        partyId: row.party_id,
        partyName: row.party_name,
        email: row.email,
        status: invitationStatus(times),
        createdAt: new Date(row.created_at).toISOString(),
        ...times,
        acceptedBy: times.revokedAt ? null : row.accepted_by,
      };
    }),
  };
}

/** Withdraws an invitation: a pending one can no longer be used; an accepted one's account no longer holds the party. */
export async function revokeInvitation(db: Db, id: string, actor: Actor) {
  await runTransaction(db, async (tx) => {
    const [row] = await tx.select().from(royaltyInvitations).where(eq(royaltyInvitations.id, id)).for('update');
    if (!row) throw new AppError('not-found', PORTAL_MESSAGES.invitationNotFound);
    if (row.revokedAt) return;
    await tx.update(royaltyInvitations).set({ revokedAt: new Date() }).where(eq(royaltyInvitations.id, id));
    if (row.acceptedBy) await tx.delete(royaltyPartyMembers).where(and(eq(royaltyPartyMembers.partyId, row.partyId), eq(royaltyPartyMembers.userId, row.acceptedBy)));
    await recordAudit(tx, {
      actor,
      action: 'royalty.portal.revoke',
      targetType: 'royalty-party',
      targetId: String(row.partyId),
      after: { invitationId: id, email: row.email, accepted: Boolean(row.acceptedBy) },
    });
  });
  return { ok: true as const };
}

/**
 * Binds the account to the invitation's party, once: a used, withdrawn or expired invitation is
 * refused (the same account opening its own accepted link again is simply answered).
 */
export async function acceptInvitation(db: Db, invitationId: string, userId: string, now = new Date()) {
  return runTransaction(db, async (tx) => {
    const [row] = await tx.select().from(royaltyInvitations).where(eq(royaltyInvitations.id, invitationId)).for('update');
    if (!row) throw new AppError('not-found', PORTAL_MESSAGES.linkInvalid);
    if (row.revokedAt) throw new AppError('failed-precondition', PORTAL_MESSAGES.linkRevoked);
    const [party] = await tx.select().from(royaltyParties).where(eq(royaltyParties.id, row.partyId));
    const answer = { party: { id: party!.id, name: party!.name, kind: party!.kind } };
    if (row.acceptedAt) {
      if (row.acceptedBy === userId) return answer;
      throw new AppError('failed-precondition', PORTAL_MESSAGES.linkUsed);
    }
    if (row.expiresAt <= now) throw new AppError('failed-precondition', PORTAL_MESSAGES.linkExpired);
    const [taken] = await tx
      .update(royaltyInvitations)
      .set({ acceptedAt: now, acceptedBy: userId })
      .where(and(eq(royaltyInvitations.id, invitationId), isNull(royaltyInvitations.acceptedAt), isNull(royaltyInvitations.revokedAt)))
      .returning();
    if (!taken) throw new AppError('failed-precondition', PORTAL_MESSAGES.linkUsed);
    await tx.insert(royaltyPartyMembers).values({ partyId: row.partyId, userId, invitationId }).onConflictDoNothing();
    await recordAudit(tx, { actor: { userId }, action: 'royalty.portal.accept', targetType: 'royalty-party', targetId: String(row.partyId), after: { invitationId } });
    return answer;
  });
}

/** The parties the account holds. */
export async function heldParties(db: Db, userId: string): Promise<number[]> {
  const rows = await db
    .select({ partyId: royaltyPartyMembers.partyId })
    .from(royaltyPartyMembers)
    .where(eq(royaltyPartyMembers.userId, userId))
    .orderBy(royaltyPartyMembers.partyId);
  return rows.map((row) => row.partyId);
}
