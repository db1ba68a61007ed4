import { and, eq, inArray, sql } from 'drizzle-orm';
import { DROP_MESSAGES } from '@storefront/domain/drops.ts';
import { dropEntries, dropItems, drops, variantWaitlist } from '../db/schema/index.ts';
import type { Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';
import { verifyAdmission } from './drop-tokens.ts';
import { adoptEntryOfAccount } from './notify-me.service.ts';

/**
 * Checkout's hooks into drops (issue 35 item 5, decision 066): a line whose variant, or a
 * bundle part's, is in a drop that has not ended needs the buyer's valid admission to that
 * drop; a sold-out drop's variants need an open waitlist offer while anyone waits for them.
 * Called inside the checkout's own transaction, so the admission's row lock orders two of the
 * buyer's requests, and "bought" is written with the order.
 */

/** A cart or checkout line as both flows keep it. */
export interface DropLine {
  id: string;
  variantId?: string | undefined;
  name: string;
  qty: number;
  components?: readonly { variantId: string; qty: number }[] | undefined;
}

/** Units per variant the lines take, a bundle's parts included (counted or not). */
function demandOf(lines: readonly DropLine[]): Map<string, number> {
  const demand = new Map<string, number>();
  const add = (variantId: string, qty: number) => demand.set(variantId, (demand.get(variantId) ?? 0) + qty);
  for (const line of lines) {
    if (line.components && line.components.length > 0) for (const part of line.components) add(part.variantId, part.qty * line.qty);
    else add(line.variantId ?? line.id, line.qty);
  }
  return demand;
}

function nameOf(lines: readonly DropLine[], variantId: string): string {
  const line =
    lines.find((candidate) => (candidate.variantId ?? candidate.id) === variantId) ?? lines.find((candidate) => candidate.components?.some((part) => part.variantId === variantId));
  return line?.name ?? 'This item';
}

export interface DropCheck {
  /** The hold of a card checkout ends no later than this (the admission's or the offer's end); null: no drop line. */
  holdUntil: Date | null;
}

/**
 * Step "check drop admission": refuses lines of a drop without the buyer's valid admission
 * (or, once sold out, a waitlist offer), and past the drop's limit. `use`: a wallet-only
 * order marks the admission bought here (in the order's transaction); a card checkout records
 * its id on the admission and leaves it open, so a declined card may retry within the window.
 */
export async function checkDropPurchase(
  tx: Tx,
  secrets: readonly string[],
  userId: string,
  lines: readonly DropLine[],
  use: { kind: 'order'; orderId: string } | { kind: 'checkout'; checkoutId: string },
  now = new Date(),
): Promise<DropCheck> {
  const demand = demandOf(lines);
  if (demand.size === 0) return { holdUntil: null };
  const guarded = await tx
    .select({ variantId: dropItems.variantId, drop: drops })
    .from(dropItems)
    .innerJoin(drops, eq(drops.id, dropItems.dropId))
    .where(and(inArray(dropItems.variantId, [...demand.keys()]), sql`${drops.status} IN ('scheduled', 'postponed', 'live', 'sold-out')`));
  if (guarded.length === 0) return { holdUntil: null };
  let holdUntil: Date | null = null;
  const earliest = (date: Date) => (holdUntil = holdUntil === null || date < holdUntil ? date : holdUntil);
  const byDrop = new Map<string, { drop: typeof drops.$inferSelect; variantIds: string[] }>();
  for (const row of guarded) {
    const entry = byDrop.get(row.drop.id) ?? { drop: row.drop, variantIds: [] };
    entry.variantIds.push(row.variantId);
    byDrop.set(row.drop.id, entry);
  }
  for (const { drop, variantIds } of byDrop.values()) {
    // A sold-out drop sells to its waitlist, except to a fan whose admission is still open.
    const openAdmission =
      drop.status === 'sold-out'
        ? (
            await tx
              .select({ number: dropEntries.number })
              .from(dropEntries)
              .where(and(eq(dropEntries.dropId, drop.id), eq(dropEntries.userId, userId), eq(dropEntries.status, 'admitted'), sql`${dropEntries.expiresAt} > ${now}`))
          ).length > 0
        : true;
    if (!openAdmission) {
      for (const variantId of variantIds) {
        const offerEnds = await checkWaitlistOffer(tx, userId, variantId, demand.get(variantId)!, nameOf(lines, variantId), use, now);
        if (offerEnds) earliest(offerEnds);
      }
      continue;
    }
    const [entry] = await tx
      .select()
      .from(dropEntries)
      .where(and(eq(dropEntries.dropId, drop.id), eq(dropEntries.userId, userId)))
      .for('update');
    const first = nameOf(lines, variantIds[0]!);
    if (!entry || entry.status === 'waiting' || entry.status === 'closed') throw new AppError('failed-precondition', DROP_MESSAGES.admissionNeeded(first));
    if (entry.status === 'bought') throw new AppError('failed-precondition', DROP_MESSAGES.admissionUsed);
    if (entry.status !== 'admitted' || !entry.token || !entry.expiresAt || entry.expiresAt <= now) throw new AppError('failed-precondition', DROP_MESSAGES.admissionEnded);
    const verified = verifyAdmission(secrets, entry.token, { userId, dropId: drop.id, entryNumber: entry.number }, now.getTime());
    if (!verified.ok) throw new AppError('failed-precondition', verified.reason === 'expired' ? DROP_MESSAGES.admissionEnded : DROP_MESSAGES.admissionNeeded(first));
    const units = variantIds.reduce((sum, variantId) => sum + demand.get(variantId)!, 0);
    if (units > drop.perCustomerLimit) throw new AppError('failed-precondition', DROP_MESSAGES.overDropLimit(drop.perCustomerLimit));
    earliest(entry.expiresAt);
    await tx
      .update(dropEntries)
      .set(use.kind === 'order' ? { status: 'bought', unitsBought: units, orderId: use.orderId, endedAt: now } : { checkoutId: use.checkoutId })
      .where(and(eq(dropEntries.dropId, drop.id), eq(dropEntries.number, entry.number)));
  }
  return { holdUntil };
}

/**
 * A sold-out drop's variant: while anyone waits or holds an offer for it, only a fan with an
 * open offer may buy it, one unit. Returns the offer's end (null when the variant is free).
 */
async function checkWaitlistOffer(
  tx: Tx,
  userId: string,
  variantId: string,
  qty: number,
  name: string,
  use: { kind: 'order'; orderId: string } | { kind: 'checkout'; checkoutId: string },
  now: Date,
): Promise<Date | null> {
  // An offer made to the buyer's address, asked for signed out, is the buyer's (decision 076).
  await adoptEntryOfAccount(tx, userId, variantId);
  const [mine] = await tx
    .select()
    .from(variantWaitlist)
    .where(and(eq(variantWaitlist.variantId, variantId), eq(variantWaitlist.userId, userId)))
    .for('update');
  if (mine?.status === 'offered' && mine.offerExpiresAt && mine.offerExpiresAt > now) {
    if (qty > 1) throw new AppError('failed-precondition', DROP_MESSAGES.overDropLimit(1));
    if (use.kind === 'order') await tx.update(variantWaitlist).set({ status: 'bought', endedAt: now }).where(eq(variantWaitlist.seq, mine.seq));
    return mine.offerExpiresAt;
  }
  const [others] = await tx
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(variantWaitlist)
    .where(
      and(
        eq(variantWaitlist.variantId, variantId),
        sql`(${variantWaitlist.status} = 'waiting' OR (${variantWaitlist.status} = 'offered' AND ${variantWaitlist.offerExpiresAt} > ${now}))`,
      ),
    );
  if ((others?.n ?? 0) > 0) throw new AppError('failed-precondition', DROP_MESSAGES.waitlistOnly(name));
  return null;
}

/**
 * Step "claim drop admission" of a card payment, in the order's transaction: the admission
 * the checkout recorded becomes bought (a late payment after the admission ended, or after it
 * was used or left, is refused and so refunded); a waitlist offer becomes bought.
 */
export async function claimDropPurchase(tx: Tx, userId: string, lines: readonly DropLine[], checkoutId: string, now = new Date()): Promise<string[]> {
  const demand = demandOf(lines);
  if (demand.size === 0) return [];
  const guarded = await tx
    .select({ variantId: dropItems.variantId, dropId: drops.id, status: drops.status })
    .from(dropItems)
    .innerJoin(drops, eq(drops.id, dropItems.dropId))
    .where(and(inArray(dropItems.variantId, [...demand.keys()]), sql`${drops.status} IN ('scheduled', 'postponed', 'live', 'sold-out')`));
  const drop = new Map<string, number>();
  for (const row of guarded) {
    const admitted = await tx
      .select({ number: dropEntries.number })
      .from(dropEntries)
      .where(and(eq(dropEntries.dropId, row.dropId), eq(dropEntries.userId, userId), eq(dropEntries.checkoutId, checkoutId)));
    if (row.status === 'sold-out' && admitted.length === 0) {
      await tx
        .update(variantWaitlist)
        .set({ status: 'bought', endedAt: now })
        .where(and(eq(variantWaitlist.variantId, row.variantId), eq(variantWaitlist.userId, userId), eq(variantWaitlist.status, 'offered')));
      continue;
    }
    drop.set(row.dropId, (drop.get(row.dropId) ?? 0) + demand.get(row.variantId)!);
  }
  for (const [dropId, units] of drop) {
    const claimed = await tx
      .update(dropEntries)
      .set({ status: 'bought', unitsBought: units, endedAt: now })
      .where(
        and(
          eq(dropEntries.dropId, dropId),
          eq(dropEntries.userId, userId),
          eq(dropEntries.checkoutId, checkoutId),
          sql`(${dropEntries.status} = 'admitted' OR (${dropEntries.status} = 'expired' AND ${dropEntries.expiresAt} > ${new Date(now.getTime() - 60_000)}))`,
        ),
      )
      .returning({ number: dropEntries.number });
    if (claimed.length === 0) throw new Error(DROP_MESSAGES.admissionEnded);
  }
  return [...drop.keys()];
}

/**
 * Step "name the drop order" of a card payment, once its order exists (same transaction): the
 * admissions {@link claimDropPurchase} marked bought (its drops, the buyer's entries) point at the order.
 */
export async function nameDropOrder(tx: Tx, dropIds: readonly string[], userId: string, checkoutId: string, orderId: string): Promise<void> {
  if (dropIds.length === 0) return;
  await tx
    .update(dropEntries)
    .set({ orderId })
    .where(and(inArray(dropEntries.dropId, [...dropIds]), eq(dropEntries.userId, userId), eq(dropEntries.checkoutId, checkoutId)));
}
