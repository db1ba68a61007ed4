import { createHash } from 'node:crypto';
import { serializeSignedCookie } from 'better-call';
import { and, eq, inArray, like } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { sessions } from '../db/schema/index.ts';
import type { Tx } from '../db/transaction.ts';
import type { Auth } from './auth.ts';

/**
 * Shop sessions made by token exchange (decision 049): a sister product trades its user's
 * single sign-on access token for one of these, and hands it to `signInWithCustomToken`
 * like any shop token. They are marked by their user agent, so that ending single sign-on
 * ends them while the user's other shop sessions stay, and so that they are never extended.
 * A browser signing in with such a User-Agent only marks its own session so: it then ends
 * with the user's single sign-on and is not extended, which costs nobody else anything.
 */
export const EXCHANGED_SESSION_AGENT = 'token-exchange:';

/**
 * The user agent that marks a session exchanged for this client's access token `tokenId`. The
 * token's id is the bearer token itself: only its SHA-256 is written here.
 */
export const exchangedSessionAgent = (clientId: string, tokenId: string) => `${EXCHANGED_SESSION_AGENT}${clientId}#${createHash('sha256').update(tokenId).digest('base64url')}`;
const agentOf = exchangedSessionAgent;
/** Marks an exchanged session that may use its user's admin powers (shop_admin: issue 40 item 9). */
const ADMIN_MARK = ';shop_admin';

/**
 * A session of `userId` ending at `expiresAt` (the access token's own expiry), bound to the
 * access token `tokenId` it was exchanged for (revoking that token ends it), and the signed
 * bearer form of its token that Better Auth's sign-in hands out (`set-auth-token`).
 */
export async function createExchangedSession(auth: Auth, userId: string, clientId: string, tokenId: string, expiresAt: Date, admin = false): Promise<string> {
  const context = await auth.$context;
  const userAgent = `${agentOf(clientId, tokenId)}${admin ? ADMIN_MARK : ''}`;
  // overrideAll: the expiry given here, not the library's 30 days.
  const session = await context.internalAdapter.createSession(userId, false, { expiresAt, userAgent, ipAddress: '' }, true);
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

/**
 * Ends the sessions exchanged for these access tokens (a sister product revoked a leaked token,
 * or its grant went): issue 40 item 8. Sessions of the user's own, and those exchanged for
 * other tokens, stay.
 */
export async function endSessionsExchangedFor(db: Db | Tx, tokens: readonly { userId: string; clientId: string; tokenId: string }[]): Promise<number> {
  let ended = 0;
  for (const token of tokens) {
    const rows = await db
      .delete(sessions)
      .where(
        and(eq(sessions.userId, token.userId), inArray(sessions.userAgent, [agentOf(token.clientId, token.tokenId), `${agentOf(token.clientId, token.tokenId)}${ADMIN_MARK}`])),
      )
      .returning({ id: sessions.id });
    ended += rows.length;
  }
  return ended;
}

/** A session made by token exchange: it ends with the token it came from, never extended. */
export function isExchangedSession(session: { userAgent?: string | null }): boolean {
  return session.userAgent?.startsWith(EXCHANGED_SESSION_AGENT) ?? false;
}

/**
 * Whether a session may use its user's admin powers: any session of the shop's own sign-in, and
 * an exchanged one only when its client was first-party and the user granted shop_admin (issue
 * 40 item 9). An admin's openid-only sign-in at a sister product is an ordinary user there.
 */
export function carriesAdminPowers(session: { userAgent?: string | null }): boolean {
  return !isExchangedSession(session) || (session.userAgent?.endsWith(ADMIN_MARK) ?? false);
}
