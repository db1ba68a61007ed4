import { createHash } from 'node:crypto';
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Shipping } from '@storefront/domain/pricing-schemas.ts';
import type { Db } from '../db/client.ts';
import { savedAddresses } from '../db/schema/index.ts';
import type { Tx } from '../db/transaction.ts';

/** The most addresses kept per shopper; using an 11th forgets the one used longest ago. */
export const MAX_SAVED_ADDRESSES = 10;

const FIELDS = ['name', 'line1', 'line2', 'city', 'state', 'postal_code', 'country'] as const;

function addressOf(shipping: Shipping): Record<string, string> {
  const record = shipping as unknown as Record<string, string | undefined>;
  return Object.fromEntries(FIELDS.map((field) => [field, (record[field] ?? '').trim()]));
}

/**
 * Remembers the address of a checkout or order, in its transaction: new, or moved to the
 * top as the last used. Keeps the newest MAX_SAVED_ADDRESSES.
 */
export async function rememberAddress(tx: Tx, userId: string, shipping: Shipping): Promise<void> {
  const address = addressOf(shipping);
  const id = createHash('sha256')
    .update(JSON.stringify(FIELDS.map((field) => address[field]!.toLowerCase())))
    .digest('base64url')
    .slice(0, 32);
  // One statement (one round trip of an order's transaction, issue 35): the upsert, and the
  // others beyond the newest MAX_SAVED_ADDRESSES - 1 removed. Both parts see the rows as they
  // were before the statement, so this address is left out of the count and always kept.
  const upserted = tx.$with('upserted').as(
    tx
      .insert(savedAddresses)
      .values({ userId, id, address })
      .onConflictDoUpdate({ target: [savedAddresses.userId, savedAddresses.id], set: { address, lastUsedAt: sql`now()` } })
      .returning({ id: savedAddresses.id }),
  );
  await tx
    .with(upserted)
    .delete(savedAddresses)
    .where(
      sql`${savedAddresses.userId} = ${userId} AND ${savedAddresses.id} <> ${id} AND ${savedAddresses.id} NOT IN (
        SELECT id FROM ${savedAddresses} WHERE user_id = ${userId} AND id <> ${id} ORDER BY last_used_at DESC, id LIMIT ${MAX_SAVED_ADDRESSES - 1})`,
    );
}

/** The caller's addresses, the last used first (the checkout's default). */
export async function listSavedAddresses(db: Db, userId: string) {
  const rows = await db
    .select()
    .from(savedAddresses)
    .where(eq(savedAddresses.userId, userId))
    .orderBy(desc(savedAddresses.lastUsedAt), savedAddresses.id)
    .limit(MAX_SAVED_ADDRESSES);
  return {
    addresses: rows.map((row) => ({
      id: row.id,
      ...(Object.fromEntries(FIELDS.map((field) => [field, row.address[field] ?? ''])) as Record<(typeof FIELDS)[number], string>),
      lastUsedAt: row.lastUsedAt.toISOString(),
    })),
  };
}

/** Forgets one of the caller's addresses; only the caller's own row can match. */
export async function deleteSavedAddress(db: Db, userId: string, id: string) {
  await db.delete(savedAddresses).where(and(eq(savedAddresses.userId, userId), eq(savedAddresses.id, id)));
  return { ok: true as const };
}
