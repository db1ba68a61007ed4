import { and, eq, or, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { walletHistoryEntryOutput } from '@storefront/domain/contracts/wallet.ts';
import type { Db } from '../db/client.ts';
import { planListQuery } from '../db/list-query.ts';
import { ledgerEntries, orders } from '../db/schema/index.ts';

/**
 * The wallet's history (issue 17): every ledger entry of the caller, newest first, with the
 * order it belongs to and the available balance after it. Paged by the ledger's id (the
 * list-query keyset helper), which the (user_id, id) index reads in order.
 */
export const WALLET_HISTORY_PAGE = 20;

export type WalletHistoryEntry = z.output<typeof walletHistoryEntryOutput>;

export async function listWalletHistory(db: Db, userId: string, input: { limit?: number | undefined; after?: number | undefined }) {
  const limit = input.limit ?? WALLET_HISTORY_PAGE;
  const plan = planListQuery(
    { orderBy: [{ field: 'id', direction: 'desc' }], limit: limit + 1, ...(input.after ? { startAfter: [input.after] } : {}) },
    { id: ledgerEntries.id },
    { orderBy: [{ field: 'id', direction: 'desc' }], limit: limit + 1 },
  );
  const rows = await db
    .select({
      id: ledgerEntries.id,
      kind: ledgerEntries.kind,
      createdAt: ledgerEntries.createdAt,
      amountCents: ledgerEntries.availableDeltaCents,
      heldCents: ledgerEntries.heldDeltaCents,
      note: ledgerEntries.note,
      orderId: orders.id,
      paymentIntentId: orders.paymentIntentId,
    })
    .from(ledgerEntries)
    // A debit names its order, a hold, capture or release its checkout (whose order has it).
    .leftJoin(orders, and(eq(orders.userId, ledgerEntries.userId), or(eq(orders.id, ledgerEntries.reference), eq(orders.checkoutId, ledgerEntries.reference))))
    .where(and(eq(ledgerEntries.userId, userId), plan.where))
    .orderBy(...plan.orderBy)
    .limit(plan.limit);
  const page = rows.slice(0, limit);
  if (page.length === 0) return { entries: [] as WalletHistoryEntry[], next: null };
  // The balance after the newest entry of the page: the sum of every entry up to it.
  const [sum] = await db
    .select({ cents: sql<string>`coalesce(sum(${ledgerEntries.availableDeltaCents}), 0)::text` })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.userId, userId), sql`${ledgerEntries.id} <= ${page[0]!.id}`));
  let balance = Number(sum!.cents);
  const entries: WalletHistoryEntry[] = page.map((row) => {
    const entry: WalletHistoryEntry = {
      id: row.id,
      kind: row.kind,
      createdAt: row.createdAt.toISOString(),
      amountCents: row.amountCents,
      heldCents: row.heldCents,
      balanceCents: balance,
      note: row.note,
      order: row.orderId && row.paymentIntentId ? { id: row.orderId, paymentIntentId: row.paymentIntentId } : null,
    };
    balance -= row.amountCents;
    return entry;
  });
  return { entries, next: rows.length > limit ? page.at(-1)!.id : null };
}
