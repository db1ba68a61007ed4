import { serializeSignedCookie } from 'better-call';
import { and, eq, like } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { sessions } from '../db/schema/index.ts';
import type { Tx } from '../db/transaction.ts';
import type { Auth } from './auth.ts';

/**
 * Shop sessions made by token exchange (decision 049): a sister product trades its user's
 * single sign-on access token for one of these, and hands it to `signInWithCustomToken`
 * like any shop token. They are marked by their user agent, which Better Auth never lets a
 * client set, so signing out of the shop can end them while other devices stay signed in.
 */
export const EXCHANGED_SESSION_AGENT = 'token-exchange:';

/**
 * A session of `userId` ending at `expiresAt` (the access token's own expiry), and the
 * signed bearer form of its token that Better Auth's sign-in hands out (`set-auth-token`).
 */
export async function createExchangedSession(auth: Auth, userId: string, clientId: string, expiresAt: Date): Promise<string> {
  const context = await auth.$context;
  // overrideAll: the expiry given here, not the library's 30 days.
  const session = await context.internalAdapter.createSession(userId, false, { expiresAt, userAgent: `${EXCHANGED_SESSION_AGENT}${clientId}`, ipAddress: '' }, true);
  return (await serializeSignedCookie('', session.token, context.secret)).replace('=', '');
}

/** Ends every exchanged session of a user (signed out of the shop: the sister products' tokens go too). */
export async function endExchangedSessions(db: Db | Tx, userId: string): Promise<number> {
  const rows = await db
    .delete(sessions)
    .where(and(eq(sessions.userId, userId), like(sessions.userAgent, `${EXCHANGED_SESSION_AGENT}%`)))
    .returning({ id: sessions.id });
  return rows.length;
}

/** A session shorter than a day (an exchanged one) is never extended: it ends with the token it came from. */
export function isShortSession(session: { createdAt: Date; expiresAt: Date }, updateAgeSeconds: number): boolean {
  return session.expiresAt.getTime() - session.createdAt.getTime() <= updateAgeSeconds * 1000;
}
