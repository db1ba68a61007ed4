import { and, desc, eq, or, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { walletHistoryEntryOutput } from '@storefront/domain/contracts/wallet.ts';
import type { Db } from '../db/client.ts';
import { planListQuery } from '../db/list-query.ts';
import { ledgerEntries, orderRefunds, orders } from '../db/schema/index.ts';

/**
 * The wallet's history (issue 17, issue 29 item 7): what the owner cares about, newest first:
 * credits, purchases (a debit, or a card checkout's captured wallet part), refunds, each with
 * its order, and a hold only while it is open (a hold captured or released is shown by its
 * purchase, or not at all, and a release is never a line of its own). The balance after each
 * line is the spendable balance after its entry, hidden entries counted. Paged by the ledger's
 * id (the list-query keyset helper), which the (user_id, id) index reads in order.
 */
export const WALLET_HISTORY_PAGE = 20;

export type WalletHistoryEntry = z.output<typeof walletHistoryEntryOutput>;

/** An entry the owner sees: not a release, and not a hold that a capture or release has closed. */
const shown = sql`${ledgerEntries.kind} <> 'release' AND NOT (${ledgerEntries.kind} = 'hold' AND EXISTS (
  SELECT 1 FROM ledger_entry closed
  WHERE closed.reference = ${ledgerEntries.reference} AND closed.user_id = ${ledgerEntries.userId} AND closed.kind IN ('capture', 'release')))`;

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
    // A refund names its desk refund, whose order it is (decision 050).
    .leftJoin(orderRefunds, sql`${ledgerEntries.kind} = 'refund' AND ${ledgerEntries.reference} = 'refund:' || ${orderRefunds.id}`)
    // A debit names its order, a hold, capture or release its checkout (whose order has it).
    .leftJoin(
      orders,
      and(eq(orders.userId, ledgerEntries.userId), or(eq(orders.id, ledgerEntries.reference), eq(orders.checkoutId, ledgerEntries.reference), eq(orders.id, orderRefunds.orderId))),
    )
    .where(and(eq(ledgerEntries.userId, userId), shown, plan.where))
    .orderBy(...plan.orderBy)
    .limit(plan.limit);
  const page = rows.slice(0, limit);
  if (page.length === 0) return { entries: [] as WalletHistoryEntry[], next: null };
  // The balance after the newest line of the page: the sum of every entry up to it; walking down
  // the page, every entry between two lines (hidden ones too) is taken back out.
  const [sum] = await db
    .select({ cents: sql<string>`coalesce(sum(${ledgerEntries.availableDeltaCents}), 0)::text` })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.userId, userId), sql`${ledgerEntries.id} <= ${page[0]!.id}`));
  const between = await db
    .select({ id: ledgerEntries.id, cents: ledgerEntries.availableDeltaCents })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.userId, userId), sql`${ledgerEntries.id} <= ${page[0]!.id}`, sql`${ledgerEntries.id} > ${page.at(-1)!.id}`))
    .orderBy(desc(ledgerEntries.id));
  let balance = Number(sum!.cents);
  let cursor = 0;
  const entries: WalletHistoryEntry[] = page.map((row) => {
    // Everything newer than this line and not yet taken out: hidden entries and the lines above.
    while (cursor < between.length && between[cursor]!.id > row.id) balance -= between[cursor++]!.cents;
    return {
      id: row.id,
      kind: row.kind,
      createdAt: row.createdAt.toISOString(),
      amountCents: row.amountCents,
      heldCents: row.heldCents,
      balanceCents: balance,
      note: row.note,
      order: row.orderId && row.paymentIntentId ? { id: row.orderId, paymentIntentId: row.paymentIntentId } : null,
    };
  });
  return { entries, next: rows.length > limit ? page.at(-1)!.id : null };
}
