import { asc, sql } from 'drizzle-orm';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Db } from '../db/client.ts';
import { oidcSigningKeys } from '../db/schema/index.ts';
import { seal, unseal } from './sealed.ts';

/**
 * The keys the provider signs ID tokens with. Made once, on the first start, and kept
 * (sealed) in the database, so every process signs with the same key and publishes it
 * at the JWKS endpoint. The newest key signs; older ones stay published for rotation.
 */
export async function loadSigningKeys(db: Db, sealKey: Buffer): Promise<JWK[]> {
  const rows = await db.transaction(async (tx) => {
    // Two processes starting together must not make a key each.
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('oidc_signing_key'))`);
    const existing = await tx.select().from(oidcSigningKeys).orderBy(asc(oidcSigningKeys.createdAt));
    if (existing.length > 0) return existing;
    const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
    const jwk = await exportJWK(privateKey);
    const kid = await calculateJwkThumbprint(jwk);
    const row = { kid, privateJwkSealed: seal(sealKey, JSON.stringify({ ...jwk, kid, alg: 'RS256', use: 'sig' })), createdAt: new Date() };
    await tx.insert(oidcSigningKeys).values(row);
    return [row];
  });
  return rows.map((row) => JSON.parse(unseal(sealKey, row.privateJwkSealed)) as JWK).reverse();
}
