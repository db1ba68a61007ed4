import { randomUUID } from 'node:crypto';
import { and, eq, inArray, isNotNull, isNull } from 'drizzle-orm';
import type Provider from 'oidc-provider';
import type { Db } from '../db/client.ts';
import { oauthClients, oidcModels } from '../db/schema/index.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { endExchangedSessions } from '../accounts/exchanged-session.service.ts';
import { ENDED_SESSION, revokeOidcForAccount } from './oidc.adapter.ts';

/** The job that delivers one logout token (decision 049); retried with backoff by pg-boss. */
export const BACKCHANNEL_LOGOUT_QUEUE = 'oidc-backchannel-logout';

/** One logout token to deliver: to this client, for this user, and the provider session when known. */
export interface LogoutNotice {
  clientId: string;
  sub: string;
  sid?: string;
}

type Authorizations = Record<string, { sid?: unknown } | undefined>;

/**
 * Ends single sign-on for a shop user (signed out of the shop, a new or reset password, "sign
 * out everywhere", a deleted account) and tells the sister products, in one transaction: the
 * user's grants, tokens, codes and provider sessions go, the shop sessions made by token
 * exchange go, and one logout job per client (and per provider session with it) is queued.
 * Either all of it happens or none: a notice is never lost to a crash after the revocation.
 */
export async function endSingleSignOn(db: Db, jobs: JobQueue, accountId: string): Promise<LogoutNotice[]> {
  return db.transaction(async (tx) => {
    const rows = await tx
      .select({ model: oidcModels.model, payload: oidcModels.payload })
      .from(oidcModels)
      .where(and(eq(oidcModels.accountId, accountId), inArray(oidcModels.model, ['Session', ENDED_SESSION, 'Grant'])));
    const sids = new Map<string, Set<string>>();
    for (const { model, payload } of rows) {
      if (model === 'Grant' && typeof payload.clientId === 'string' && !sids.has(payload.clientId)) sids.set(payload.clientId, new Set());
      // A session the provider ended a moment ago (an RP-initiated logout) still names its sids.
      if (model !== 'Session' && model !== ENDED_SESSION) continue;
      for (const [clientId, authorization] of Object.entries((payload.authorizations ?? {}) as Authorizations)) {
        const known = sids.get(clientId) ?? new Set<string>();
        if (typeof authorization?.sid === 'string') known.add(authorization.sid);
        sids.set(clientId, known);
      }
    }
    // Only clients that registered a back-channel logout URI are told.
    const listening =
      sids.size === 0
        ? []
        : await tx
            .select({ clientId: oauthClients.clientId })
            .from(oauthClients)
            .where(and(inArray(oauthClients.clientId, [...sids.keys()]), isNotNull(oauthClients.backchannelLogoutUri), isNull(oauthClients.revokedAt)));
    const notices: LogoutNotice[] = listening.flatMap(({ clientId }) => {
      const known = [...(sids.get(clientId) ?? [])];
      return known.length === 0 ? [{ clientId, sub: accountId }] : known.map((sid) => ({ clientId, sub: accountId, sid }));
    });
    await revokeOidcForAccount(tx, accountId);
    await endExchangedSessions(tx, accountId);
    for (const notice of notices) await jobs.sendInTransaction(tx, BACKCHANNEL_LOGOUT_QUEUE, notice);
    return notices;
  });
}

/** How long one delivery may take before it counts as failed (and is retried). */
const DELIVERY_TIMEOUT_MS = 10_000;

/**
 * Delivers one logout token: a JWT signed with the provider's ID token key (iss, aud = the
 * client, iat, exp, jti, events, sub and `sid` when known, never a nonce; made by the
 * library's own IdToken, as its one-shot sender does) POSTed form-encoded to the client's
 * URI. Anything but 200 or 204 throws, so pg-boss retries it. A client revoked (or without a
 * URI) since is not told. Sent with Node's fetch, not the library's sender: that one refuses
 * loopback and private-network addresses, and a sister product on the label's own network is
 * a URI the operator registered, not one a stranger chose (decision 049).
 */
export async function deliverLogoutNotice(provider: Provider, notice: LogoutNotice): Promise<void> {
  const client = await provider.Client.find(notice.clientId);
  const uri = client?.backchannelLogoutUri;
  if (!client || !uri) return;
  const token = new provider.IdToken({ sub: notice.sub }, { client });
  // The library's own logout tokens keep `sub` as it is (no pairwise masking here).
  (token as unknown as { mask: object }).mask = { sub: null };
  token.set('events', { 'http://schemas.openid.net/event/backchannel-logout': {} });
  token.set('jti', randomUUID());
  if (notice.sid) token.set('sid', notice.sid);
  const logoutToken = await token.issue({ use: 'logout' });
  const response = await fetch(uri, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ logout_token: logoutToken }),
    signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
  });
  await response.body?.cancel();
  if (response.status !== 200 && response.status !== 204) throw new Error(`Back-channel logout to ${uri} answered ${response.status} (expected 200 or 204); it will be retried.`);
}
