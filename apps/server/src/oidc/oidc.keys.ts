import { desc, sql } from 'drizzle-orm';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Db } from '../db/client.ts';
import { oidcSigningKeys } from '../db/schema/index.ts';
import { SealError, seal, unseal, type SealKeys } from './sealed.ts';

/**
 * The keys the provider signs ID tokens with. Made once, on the first start, and kept
 * (sealed) in the database, so every process signs with the same key and publishes it
 * at the JWKS endpoint. The newest key signs; older readable ones stay published.
 */
export async function loadSigningKeys(db: Db, sealKey: SealKeys): Promise<JWK[]> {
  return db.transaction(async (tx) => {
    // Two processes starting together must not make a key each.
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('oidc_signing_key'))`);
    const rows = await tx.select().from(oidcSigningKeys).orderBy(desc(oidcSigningKeys.createdAt));
    // Keys sealed under another AUTH_SECRET (it was rotated) cannot sign any more: they
    // are set aside and a new key is made; ID tokens they signed expire within the hour.
    const readable = rows.flatMap((row) => {
      try {
        return [JSON.parse(unseal(sealKey, row.privateJwkSealed)) as JWK];
      } catch (error) {
        if (error instanceof SealError) return [];
        throw error;
      }
    });
    if (readable.length > 0) return readable;
    const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
    const exported = await exportJWK(privateKey);
    const kid = await calculateJwkThumbprint(exported);
    const jwk: JWK = { ...exported, kid, alg: 'RS256', use: 'sig' };
    await tx.insert(oidcSigningKeys).values({ kid, privateJwkSealed: seal(sealKey, JSON.stringify(jwk)) });
    return [jwk];
  });
}
