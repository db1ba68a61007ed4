import { and, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import { errors, type Adapter, type AdapterPayload } from 'oidc-provider';
import type { Db } from '../db/client.ts';
import type { Tx } from '../db/transaction.ts';
import { oidcModels } from '../db/schema/index.ts';
import { endSessionsExchangedFor } from '../accounts/exchanged-session.service.ts';
import { findOAuthClient } from './oidc.clients.ts';
import type { SealKeys } from './sealed.ts';

/** A provider session just ended, kept for its `sid`s until the logout notices are queued (or 10 minutes). */
export const ENDED_SESSION = 'EndedSession';

/**
 * The OpenID provider library's storage on our Postgres, so every server process sees
 * the same interactions, codes and tokens. Clients are read from `oauth_client` (the
 * CLI registers them), never written by the library.
 */
export function postgresAdapter(db: Db, sealKey: SealKeys) {
  return (model: string): Adapter => {
    if (model === 'Client') return clientAdapter(db, sealKey);
    const key = (id: string) => and(eq(oidcModels.model, model), eq(oidcModels.id, id));
    const live = sql`(${oidcModels.expiresAt} IS NULL OR ${oidcModels.expiresAt} > now())`;
    const withConsumed = (row: { payload: Record<string, unknown>; consumedAt: Date | null } | undefined): AdapterPayload | undefined =>
      row ? ({ ...row.payload, ...(row.consumedAt ? { consumed: Math.floor(row.consumedAt.getTime() / 1000) } : {}) } as AdapterPayload) : undefined;

    return {
      async upsert(id, payload, expiresIn) {
        const values = {
          model,
          id,
          payload: payload as Record<string, unknown>,
          grantId: payload.grantId ?? null,
          uid: payload.uid ?? null,
          accountId: typeof payload.accountId === 'string' ? payload.accountId : null,
          expiresAt: expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
        };
        await db
          .insert(oidcModels)
          .values(values)
          .onConflictDoUpdate({
            target: [oidcModels.model, oidcModels.id],
            set: { payload: values.payload, grantId: values.grantId, uid: values.uid, accountId: values.accountId, expiresAt: values.expiresAt },
          });
      },
      async find(id) {
        const [row] = await db
          .select()
          .from(oidcModels)
          .where(and(key(id), live));
        return withConsumed(row);
      },
      async findByUid(uid) {
        const [row] = await db
          .select()
          .from(oidcModels)
          .where(and(eq(oidcModels.model, model), eq(oidcModels.uid, uid), live));
        return withConsumed(row);
      },
      // The device flow is not enabled, so nothing is ever looked up by user code.
      async findByUserCode() {
        return undefined;
      },
      // Authorization codes are used once. The library checks `consumed` before it
      // calls this; two requests racing with one code both pass that check, so the
      // update itself decides: only one of them marks it, the other is refused.
      async consume(id) {
        const marked = await db
          .update(oidcModels)
          .set({ consumedAt: new Date() })
          .where(and(key(id), isNull(oidcModels.consumedAt)))
          .returning({ id: oidcModels.id });
        if (marked.length === 0) throw new errors.InvalidGrant('grant already used');
      },
      async destroy(id) {
        if (model === 'AccessToken') {
          // Revoked (a sister product's revocation call): the shop sessions exchanged for it end too.
          const gone = await db.delete(oidcModels).where(key(id)).returning({ id: oidcModels.id, payload: oidcModels.payload });
          await endSessionsExchangedFor(db, exchangedFrom(gone));
          return;
        }
        if (model !== 'Session') {
          await db.delete(oidcModels).where(key(id));
          return;
        }
        // A provider session ends (an RP-initiated logout ends it before the shop's sign-out
        // runs): its client sessions' ids are kept a few minutes as an ENDED_SESSION row, so
        // the back-channel logout tokens that follow still carry their `sid` (issue 40 item 14).
        await db.execute(sql`
          WITH ended AS (DELETE FROM ${oidcModels} WHERE ${key(id)} RETURNING ${oidcModels.id} AS id, ${oidcModels.payload} AS payload, ${oidcModels.accountId} AS account_id)
          INSERT INTO ${oidcModels} (model, id, payload, account_id, expires_at)
          SELECT ${ENDED_SESSION}, id, payload, account_id, now() + interval '10 minutes' FROM ended WHERE account_id IS NOT NULL
          ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, account_id = excluded.account_id, expires_at = excluded.expires_at`);
      },
      async revokeByGrantId(grantId) {
        const gone = await db
          .delete(oidcModels)
          .where(and(eq(oidcModels.model, model), eq(oidcModels.grantId, grantId)))
          .returning({ id: oidcModels.id, payload: oidcModels.payload });
        if (model === 'AccessToken') await endSessionsExchangedFor(db, exchangedFrom(gone));
      },
    };
  };
}

/** The access tokens removed, as the sessions exchanged for them name them. */
function exchangedFrom(rows: { id: string; payload: Record<string, unknown> }[]) {
  return rows.flatMap((row) =>
    typeof row.payload.accountId === 'string' && typeof row.payload.clientId === 'string'
      ? [{ userId: row.payload.accountId, clientId: row.payload.clientId, tokenId: row.id }]
      : [],
  );
}

function clientAdapter(db: Db, sealKey: SealKeys): Adapter {
  const readOnly = async () => {
    throw new Error('Single sign-on clients are registered with `npm run cli -- create-oauth-client`.');
  };
  return {
    find: async (id) => (await findOAuthClient(db, sealKey, id)) as AdapterPayload | undefined,
    upsert: readOnly,
    consume: readOnly,
    destroy: readOnly,
    revokeByGrantId: readOnly,
    findByUid: async () => undefined,
    findByUserCode: async () => undefined,
  };
}

/**
 * Ends single sign-on for one shop user (a password reset, "sign out everywhere"): their
 * grants, access and refresh tokens, codes and provider sessions, and anything else that
 * hangs off those grants. A sister product's old access token gets 401 at once.
 */
export async function revokeOidcForAccount(db: Db | Tx, accountId: string): Promise<number> {
  const grants = db
    .select({ id: oidcModels.id })
    .from(oidcModels)
    .where(and(eq(oidcModels.model, 'Grant'), eq(oidcModels.accountId, accountId)));
  const rows = await db
    .delete(oidcModels)
    .where(or(eq(oidcModels.accountId, accountId), inArray(oidcModels.grantId, grants)))
    .returning({ id: oidcModels.id });
  return rows.length;
}

/** Drops what has expired (a scheduled job; lookups already ignore expired rows). */
export async function deleteExpiredOidcModels(db: Db): Promise<number> {
  const rows = await db.delete(oidcModels).where(lt(oidcModels.expiresAt, new Date())).returning({ id: oidcModels.id });
  return rows.length;
}
