import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { serviceTokens } from '../db/schema/index.ts';

/**
 * Service tokens for the sister products: `sst_<id>.<secret>`. Only the secret's
 * SHA-256 is stored; a revoked token is refused at once.
 */
const hash = (secret: string) => createHash('sha256').update(secret).digest('hex');

export async function createServiceToken(db: Db, name: string): Promise<{ id: string; token: string }> {
  const id = randomBytes(6).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  await db.insert(serviceTokens).values({ id, name, tokenHash: hash(secret) });
  return { id, token: `sst_${id}.${secret}` };
}

export async function revokeServiceToken(db: Db, id: string): Promise<boolean> {
  const rows = await db
    .update(serviceTokens)
    .set({ revokedAt: new Date() })
    .where(and(eq(serviceTokens.id, id), isNull(serviceTokens.revokedAt)))
    .returning();
  return rows.length > 0;
}

/** The token's id when `presented` is a live service token, else null. */
export async function verifyServiceToken(db: Db, presented: string | undefined): Promise<{ id: string; name: string } | null> {
  const match = /^sst_([0-9a-f]{12})\.([A-Za-z0-9_-]{43})$/.exec(presented ?? '');
  if (!match) return null;
  const [row] = await db.select().from(serviceTokens).where(eq(serviceTokens.id, match[1]!));
  if (!row || row.revokedAt) return null;
  const expected = Buffer.from(row.tokenHash, 'hex');
  const actual = Buffer.from(hash(match[2]!), 'hex');
  return timingSafeEqual(expected, actual) ? { id: row.id, name: row.name } : null;
}
