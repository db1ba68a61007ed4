import { eq } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { oauthClients, oidcSigningKeys } from '../db/schema/index.ts';
import { SealError, seal, unsealWithIndex, type SealKeys } from './sealed.ts';

export interface ResealReport {
  /** Sealed with an old secret (AUTH_SECRET_PREVIOUS) and now sealed with AUTH_SECRET. */
  resealed: { clientSecrets: number; signingKeys: number };
  /** Already sealed with AUTH_SECRET. */
  current: number;
  /** Opened by none of the secrets: sealed with a secret that is no longer given (left as they are). */
  unreadable: { clientIds: string[]; signingKeyIds: string[] };
}

/**
 * Seals every stored single sign-on secret (client secrets, ID-token signing keys) with
 * AUTH_SECRET (the first key) when an old secret of AUTH_SECRET_PREVIOUS sealed it, so the old
 * secret can be retired (decision 047). Each row is rewritten only if it still holds the value
 * that was read, so a concurrent change is never overwritten. Running it twice changes nothing.
 */
export async function resealOidcSecrets(db: Db, keys: SealKeys): Promise<ResealReport> {
  const report: ResealReport = { resealed: { clientSecrets: 0, signingKeys: 0 }, current: 0, unreadable: { clientIds: [], signingKeyIds: [] } };
  const open = (sealed: string) => {
    try {
      return unsealWithIndex(keys, sealed);
    } catch (error) {
      if (error instanceof SealError) return undefined;
      throw error;
    }
  };
  for (const row of await db.select({ clientId: oauthClients.clientId, sealed: oauthClients.secretSealed }).from(oauthClients)) {
    const opened = open(row.sealed);
    if (!opened) report.unreadable.clientIds.push(row.clientId);
    else if (opened.keyIndex === 0) report.current += 1;
    else {
      const rows = await db
        .update(oauthClients)
        .set({ secretSealed: seal(keys, opened.plain) })
        .where(eq(oauthClients.secretSealed, row.sealed))
        .returning({ clientId: oauthClients.clientId });
      report.resealed.clientSecrets += rows.length;
    }
  }
  for (const row of await db.select({ kid: oidcSigningKeys.kid, sealed: oidcSigningKeys.privateJwkSealed }).from(oidcSigningKeys)) {
    const opened = open(row.sealed);
    if (!opened) report.unreadable.signingKeyIds.push(row.kid);
    else if (opened.keyIndex === 0) report.current += 1;
    else {
      const rows = await db
        .update(oidcSigningKeys)
        .set({ privateJwkSealed: seal(keys, opened.plain) })
        .where(eq(oidcSigningKeys.privateJwkSealed, row.sealed))
        .returning({ kid: oidcSigningKeys.kid });
      report.resealed.signingKeys += rows.length;
    }
  }
  return report;
}
