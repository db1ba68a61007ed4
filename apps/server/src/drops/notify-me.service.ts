import { and, eq, or, sql } from 'drizzle-orm';
import { DROP_MESSAGES } from '@storefront/domain/drops.ts';
import { lineName } from '@storefront/domain/variants.ts';
import { contactOf, findUserByEmail } from '../accounts/accounts.service.ts';
import type { Db } from '../db/client.ts';
import { products, productVariants, variantWaitlist } from '../db/schema/index.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';

/**
 * Notify me (issue 37 part 4, decision 076): the same list per variant as a drop's waitlist
 * (waitlist.service.ts), asked for signed in (joinWaitlist) or signed out by an address that a
 * mailed link confirms. One entry per person and variant: an address that belongs to an account
 * becomes that account's entry, keeping its place.
 */

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

const ACTIVE = sql`${variantWaitlist.status} IN ('waiting', 'offered')`;

/**
 * A variant a list can be kept for (it exists and the shop counts its stock, or it is a bundle's,
 * whose stock is what its parts allow): its product and name.
 */
export async function listableVariant(db: Db | Tx, variantId: string): Promise<{ productId: string; name: string }> {
  const [row] = await db
    .select({ productId: products.id, productName: products.name, optionValues: productVariants.optionValues, stock: productVariants.stock, bundle: products.bundle })
    .from(productVariants)
    .innerJoin(products, eq(products.id, productVariants.productId))
    .where(eq(productVariants.id, variantId));
  if (!row) throw new AppError('not-found', DROP_MESSAGES.unknownVariant);
  if (row.stock === null && !row.bundle) throw new AppError('failed-precondition', DROP_MESSAGES.waitlistNotForVariant);
  return { productId: row.productId, name: lineName(row.productName, row.optionValues) };
}

/**
 * A signed-out request: a `pending` entry of the address (again pending after leaving or being
 * told). Returns whether a confirmation mail should go: not when the address is on the list
 * already, by itself or as an account's.
 */
export async function requestNotifyByEmail(db: Db, variantId: string, email: string): Promise<{ send: boolean; name: string }> {
  const variant = await listableVariant(db, variantId);
  const address = normaliseEmail(email);
  const account = await findUserByEmail(db, address);
  if (account) {
    const [active] = await db
      .select({ seq: variantWaitlist.seq })
      .from(variantWaitlist)
      .where(and(eq(variantWaitlist.variantId, variantId), eq(variantWaitlist.userId, account.id), ACTIVE));
    if (active) return { send: false, name: variant.name };
  }
  const rows = await db
    .insert(variantWaitlist)
    .values({ variantId, email: address, status: 'pending' })
    .onConflictDoUpdate({
      target: [variantWaitlist.variantId, variantWaitlist.email],
      set: { status: 'pending', joinedAt: new Date(), endedAt: null },
      setWhere: sql`${variantWaitlist.status} NOT IN ('waiting', 'offered')`,
    })
    .returning({ seq: variantWaitlist.seq });
  return { send: rows.length > 0, name: variant.name };
}

/**
 * Moves an address's entry to the account with that address (one entry per person): the
 * address's place is kept if the account has none open; otherwise the account's stays.
 */
async function adoptAddressEntry(tx: Tx, userId: string, email: string, variantId: string): Promise<void> {
  const [byAddress] = await tx
    .select()
    .from(variantWaitlist)
    .where(and(eq(variantWaitlist.variantId, variantId), eq(variantWaitlist.email, normaliseEmail(email))))
    .for('update');
  if (!byAddress) return;
  const [byAccount] = await tx
    .select()
    .from(variantWaitlist)
    .where(and(eq(variantWaitlist.variantId, variantId), eq(variantWaitlist.userId, userId)))
    .for('update');
  const addressOpen = byAddress.status === 'waiting' || byAddress.status === 'offered';
  const accountOpen = byAccount?.status === 'waiting' || byAccount?.status === 'offered';
  if (addressOpen && !accountOpen) {
    if (byAccount) await tx.delete(variantWaitlist).where(eq(variantWaitlist.seq, byAccount.seq));
    await tx.update(variantWaitlist).set({ userId, email: null }).where(eq(variantWaitlist.seq, byAddress.seq));
  } else if (addressOpen || byAddress.status === 'pending') {
    await tx.delete(variantWaitlist).where(eq(variantWaitlist.seq, byAddress.seq));
  }
}

/** Before an account joins a list: its address's own entry becomes the account's (joinWaitlist). */
export async function adoptEntryOfAccount(tx: Tx, userId: string, variantId: string): Promise<void> {
  const contact = await contactOf(tx, userId);
  if (contact) await adoptAddressEntry(tx, userId, contact.email, variantId);
}

/**
 * The mailed link was opened: the address goes on the list at the end, in the order of
 * confirmations (a pending request holds no place). Confirming again changes nothing. An
 * address of an account becomes the account's entry.
 */
export async function confirmNotifyByEmail(db: Db, variantId: string, email: string): Promise<{ productId: string; name: string }> {
  const address = normaliseEmail(email);
  return runTransaction(db, async (tx) => {
    const variant = await listableVariant(tx, variantId);
    const [row] = await tx
      .select()
      .from(variantWaitlist)
      .where(and(eq(variantWaitlist.variantId, variantId), eq(variantWaitlist.email, address)))
      .for('update');
    if (!row) {
      // Adopted by the account already, or forgotten with a deleted account.
      const account = await findUserByEmail(tx, address);
      const [mine] = account
        ? await tx
            .select({ seq: variantWaitlist.seq })
            .from(variantWaitlist)
            .where(and(eq(variantWaitlist.variantId, variantId), eq(variantWaitlist.userId, account.id), ACTIVE))
        : [];
      if (mine) return variant;
      throw new AppError('failed-precondition', DROP_MESSAGES.notifyLinkInvalid);
    }
    if (row.status !== 'waiting' && row.status !== 'offered') {
      await tx
        .update(variantWaitlist)
        .set({
          seq: sql`nextval(pg_get_serial_sequence('variant_waitlist', 'seq'))`,
          status: 'waiting',
          joinedAt: new Date(),
          endedAt: null,
          offeredAt: null,
          offerExpiresAt: null,
        })
        .where(eq(variantWaitlist.seq, row.seq));
    }
    const account = await findUserByEmail(tx, address);
    if (account) await adoptAddressEntry(tx, account.id, address, variantId);
    return variant;
  });
}

/** The leave link of an address's entry (a pending request too). */
export async function leaveByEmail(db: Db, variantId: string, email: string): Promise<void> {
  await db
    .update(variantWaitlist)
    .set({ status: 'left', endedAt: new Date() })
    .where(and(eq(variantWaitlist.variantId, variantId), eq(variantWaitlist.email, normaliseEmail(email)), sql`${variantWaitlist.status} IN ('pending', 'waiting', 'offered')`));
}

/** Account deletion (decision 076): the account's entries and its address's go, in the deletion's transaction. */
export async function forgetWaitlists(tx: Tx, userId: string, email: string): Promise<void> {
  await tx.delete(variantWaitlist).where(or(eq(variantWaitlist.userId, userId), eq(variantWaitlist.email, normaliseEmail(email))));
}

/** The data export: every entry of the account or its address, with its item, status and times. */
export async function exportWaitlists(db: Db, userId: string, email: string) {
  const rows = await db
    .select({
      seq: variantWaitlist.seq,
      variantId: variantWaitlist.variantId,
      productId: products.id,
      productName: products.name,
      optionValues: productVariants.optionValues,
      byAddress: sql<boolean>`${variantWaitlist.email} IS NOT NULL`,
      status: variantWaitlist.status,
      joinedAt: variantWaitlist.joinedAt,
      offeredAt: variantWaitlist.offeredAt,
      endedAt: variantWaitlist.endedAt,
    })
    .from(variantWaitlist)
    .innerJoin(productVariants, eq(productVariants.id, variantWaitlist.variantId))
    .innerJoin(products, eq(products.id, productVariants.productId))
    .where(or(eq(variantWaitlist.userId, userId), eq(variantWaitlist.email, normaliseEmail(email))))
    .orderBy(variantWaitlist.joinedAt);
  return rows.map((row) => ({
    productId: row.productId,
    variantId: row.variantId,
    name: lineName(row.productName, row.optionValues),
    askedBy: row.byAddress ? ('email' as const) : ('account' as const),
    status: row.status,
    askedAt: row.joinedAt.toISOString(),
    toldAt: row.offeredAt?.toISOString() ?? null,
    endedAt: row.endedAt?.toISOString() ?? null,
  }));
}
