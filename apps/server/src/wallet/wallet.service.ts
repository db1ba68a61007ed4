import { and, eq, gte, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { ledgerEntries, wallets } from '../db/schema/index.ts';
import { columnName } from '../db/prepared.ts';
import type { Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';
import { CHECKOUT_MESSAGES } from '@storefront/domain/pricing.ts';
import { MAX_BALANCE_CENTS, WALLET_MESSAGES } from '@storefront/domain/wallet.ts';

/**
 * The wallet ledger. Every change is one conditional UPDATE of the wallet row (never
 * read-then-write) plus one ledger entry, in the caller's transaction. A ledger entry is
 * unique per (kind, reference), so a retried grant, capture or release changes nothing.
 */
type Writer = Db | Tx;

async function ensureWallet(tx: Writer, userId: string) {
  await tx.insert(wallets).values({ userId }).onConflictDoNothing();
}

/** Appends the entry; false when this (kind, reference) was already recorded. */
async function appendEntry(
  tx: Writer,
  entry: { userId: string; kind: (typeof ledgerEntries.$inferInsert)['kind']; availableDeltaCents: number; heldDeltaCents?: number; reference: string; note?: string },
): Promise<boolean> {
  const inserted = await tx.insert(ledgerEntries).values(entry).onConflictDoNothing().returning({ id: ledgerEntries.id });
  return inserted.length > 0;
}

export async function getBalance(db: Writer, userId: string): Promise<{ balanceCents: number; heldCents: number }> {
  const [row] = await db.select().from(wallets).where(eq(wallets.userId, userId));
  return { balanceCents: row?.balanceCents ?? 0, heldCents: row?.heldCents ?? 0 };
}

/** Adds credit (grants, refunds). Idempotent per reference. */
export async function credit(tx: Tx, userId: string, cents: number, reference: string, kind: 'grant' | 'refund' = 'grant', note = ''): Promise<boolean> {
  if (!Number.isSafeInteger(cents) || cents <= 0) throw new AppError('invalid-argument', 'A credit must be a positive number of cents.');
  await ensureWallet(tx, userId);
  if (!(await appendEntry(tx, { userId, kind, availableDeltaCents: cents, reference, note }))) return false;
  // Capped (decision 019): a balance stays an exact JavaScript number. Refusing rolls the entry back.
  const updated = await tx
    .update(wallets)
    .set({ balanceCents: sql`${wallets.balanceCents} + ${cents}`, updatedAt: new Date() })
    .where(and(eq(wallets.userId, userId), sql`${wallets.balanceCents} + ${wallets.heldCents} + ${cents} <= ${MAX_BALANCE_CENTS}`))
    .returning({ userId: wallets.userId });
  if (updated.length === 0) throw new AppError('failed-precondition', WALLET_MESSAGES.balanceCap);
  return true;
}

/**
 * Spends available credit now (wallet-only orders). Fails, changing nothing, if it is not
 * there. The conditional update and its ledger entry are one statement: one round trip,
 * and the wallet row, locked from here to the commit, is held for less time.
 */
export async function debit(tx: Tx, userId: string, cents: number, reference: string): Promise<void> {
  if (cents === 0) return;
  const debited = tx.$with('debited', { userId: wallets.userId }).as(sql`
    UPDATE ${wallets} SET ${columnName(wallets.balanceCents)} = ${wallets.balanceCents} - ${cents}, ${columnName(wallets.updatedAt)} = now()
    WHERE ${wallets.userId} = ${userId} AND ${wallets.balanceCents} >= ${cents}
    RETURNING ${wallets.userId}`);
  // The entry is written only if the update took the credit: it selects from `debited`.
  const entry = tx.$with('entry', { id: ledgerEntries.id }).as(sql`
    INSERT INTO ${ledgerEntries} (${columnName(ledgerEntries.userId)}, ${columnName(ledgerEntries.kind)}, ${columnName(ledgerEntries.availableDeltaCents)}, ${columnName(ledgerEntries.reference)})
    SELECT ${columnName(wallets.userId)}, 'debit', ${-cents}::bigint, ${reference} FROM ${debited}
    ON CONFLICT (${columnName(ledgerEntries.kind)}, ${columnName(ledgerEntries.reference)}) DO NOTHING
    RETURNING ${columnName(ledgerEntries.id)}`);
  // Named, so each connection parses and plans this statement once (decision 015).
  const [outcome] = await tx
    .with(debited, entry)
    .select({ debited: sql<boolean>`EXISTS (SELECT 1 FROM ${debited})`, recorded: sql<boolean>`EXISTS (SELECT 1 FROM ${entry})` })
    .from(sql`(SELECT 1) AS one`)
    .prepare('wallet_debit')
    .execute();
  if (!outcome?.debited) throw new AppError('failed-precondition', CHECKOUT_MESSAGES.insufficientWallet);
  // A second debit for this reference: the statement's update is rolled back with the transaction.
  if (!outcome.recorded) throw new AppError('aborted', 'This payment was already recorded.');
}

/** Sets credit aside for a card checkout until its payment settles. */
export async function hold(tx: Tx, userId: string, cents: number, reference: string): Promise<void> {
  if (cents === 0) return;
  const updated = await tx
    .update(wallets)
    .set({ balanceCents: sql`${wallets.balanceCents} - ${cents}`, heldCents: sql`${wallets.heldCents} + ${cents}`, updatedAt: new Date() })
    .where(and(eq(wallets.userId, userId), gte(wallets.balanceCents, cents)))
    .returning({ userId: wallets.userId });
  if (updated.length === 0) throw new AppError('failed-precondition', CHECKOUT_MESSAGES.insufficientWallet);
  await appendEntry(tx, { userId, kind: 'hold', availableDeltaCents: -cents, heldDeltaCents: cents, reference });
}

/** The payment succeeded: the held credit is spent. Idempotent per reference. */
export async function capture(tx: Tx, userId: string, cents: number, reference: string): Promise<boolean> {
  if (cents === 0) return false;
  if (!(await appendEntry(tx, { userId, kind: 'capture', availableDeltaCents: 0, heldDeltaCents: -cents, reference }))) return false;
  await settleHeld(tx, userId, cents, 0);
  return true;
}

/** The payment failed or expired: the held credit goes back. Idempotent per reference. */
export async function release(tx: Tx, userId: string, cents: number, reference: string): Promise<boolean> {
  if (cents === 0) return false;
  if (!(await appendEntry(tx, { userId, kind: 'release', availableDeltaCents: cents, heldDeltaCents: -cents, reference }))) return false;
  await settleHeld(tx, userId, cents, cents);
  return true;
}

async function settleHeld(tx: Tx, userId: string, heldCents: number, backToBalance: number) {
  const updated = await tx
    .update(wallets)
    .set({ heldCents: sql`${wallets.heldCents} - ${heldCents}`, balanceCents: sql`${wallets.balanceCents} + ${backToBalance}`, updatedAt: new Date() })
    .where(and(eq(wallets.userId, userId), gte(wallets.heldCents, heldCents)))
    .returning({ userId: wallets.userId });
  // A hold is only ever settled once (the ledger entry above is unique), so this cannot miss.
  if (updated.length === 0) throw new Error(`Held credit of ${userId} is smaller than ${heldCents} cents.`);
}

/** Every wallet with credit held, and how much (the reconciler compares it with the open checkouts' holds). */
export async function heldCredit(db: Writer): Promise<Map<string, number>> {
  const rows = await db
    .select({ userId: wallets.userId, heldCents: wallets.heldCents })
    .from(wallets)
    .where(sql`${wallets.heldCents} <> 0`);
  return new Map(rows.map((row) => [row.userId, row.heldCents]));
}
