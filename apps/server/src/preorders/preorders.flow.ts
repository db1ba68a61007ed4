import { todayIn } from '@storefront/domain/sales.ts';
import { contactOf } from '../accounts/accounts.service.ts';
import { clearDueReleaseDates, type DateMove } from '../catalog/catalog.service.ts';
import type { Db } from '../db/client.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { preorderMovedMail, preorderReleasedMail } from '../mail/templates.ts';
import { moveLineDates, releaseDueLines, type PreorderLine } from '../orders/preorder-lines.service.ts';
import { claimNotices } from './preorders.service.ts';

/**
 * Preorders as a flow (issue 27, decision 054): the release job and a moved street date each
 * change the catalogue and the orders' lines, claim one notice per buyer and item, and queue
 * that buyer's mail, all in one transaction. Two workers, a re-delivered job or a restart in
 * the middle change nothing twice: the lines' conditional UPDATEs and the notices' primary key
 * each let one transaction through.
 */

export interface PreorderDeps {
  db: Db;
  jobs: JobQueue;
  publicUrl: string;
  timeZone: string;
  /** The label's day (tests pass one); by default today in `timeZone`. */
  today?: () => string;
}

export function labelToday(deps: Pick<PreorderDeps, 'timeZone' | 'today'>): string {
  return deps.today ? deps.today() : todayIn(deps.timeZone);
}

/** One buyer's lines of one item: the item is the variant when the line names one, else the product. */
function byBuyerAndItem(lines: PreorderLine[]): Map<string, { userId: string; itemId: string; name: string; orderIds: string[] }> {
  const groups = new Map<string, { userId: string; itemId: string; name: string; orderIds: string[] }>();
  for (const line of lines) {
    if (line.refunded) continue;
    const itemId = line.variantId ?? line.productId;
    const key = `${line.userId}\u0000${itemId}`;
    const group = groups.get(key) ?? { userId: line.userId, itemId, name: line.name, orderIds: [] };
    if (!group.orderIds.includes(line.orderId)) group.orderIds.push(line.orderId);
    groups.set(key, group);
  }
  return groups;
}

/** The release job (every minute): street dates that came make their items ordinary, and each buyer of each hears once. */
export async function releaseDuePreorders(deps: PreorderDeps): Promise<{ items: number; mails: number; released: string[] }> {
  const today = labelToday(deps);
  return runTransaction(
    deps.db,
    async (tx) => {
      const products = await clearDueReleaseDates(tx, today);
      const lines = await releaseDueLines(tx, today);
      const groups = [...byBuyerAndItem(lines).values()];
      const claimed = await claimNotices(
        tx,
        groups.map((group) => ({ userId: group.userId, itemId: group.itemId, kind: 'released' as const, shipsOn: today })),
      );
      const mails = await mailClaimed(tx, deps, claimed, groups, (buyer, group) => preorderReleasedMail(buyer.email, buyer.name, group, `${deps.publicUrl}/my-orders`));
      return { items: products.length, mails, released: products };
    },
    { isolationLevel: 'read committed' },
  );
}

/**
 * In an edit's transaction: the variants whose street date the label moved carry their buyers'
 * lines to the new date, and each buyer of each item is told once. A date cleared (out now)
 * moves the lines to today; the release job then sends "it's out" instead.
 */
export function onDatesMoved(deps: PreorderDeps) {
  return async (tx: Tx, moves: DateMove[]): Promise<void> => {
    const today = labelToday(deps);
    for (const move of moves) {
      const to = move.to ?? today;
      const lines = await moveLineDates(tx, { variantId: move.variantId, from: move.from, to });
      if (move.to === null) continue;
      const groups = [...byBuyerAndItem(lines).values()].map((group) => ({ ...group, name: move.productName }));
      const claimed = await claimNotices(
        tx,
        groups.map((group) => ({ userId: group.userId, itemId: group.itemId, kind: 'moved' as const, shipsOn: to })),
      );
      await mailClaimed(tx, deps, claimed, groups, (buyer, group) => preorderMovedMail(buyer.email, buyer.name, { ...group, from: move.from, to }, `${deps.publicUrl}/my-orders`));
    }
  };
}

type Group = { userId: string; itemId: string; name: string; orderIds: string[] };

async function mailClaimed(
  tx: Tx,
  deps: PreorderDeps,
  claimed: { userId: string; itemId: string }[],
  groups: Group[],
  mail: (buyer: { email: string; name: string }, group: Group) => Parameters<JobQueue['sendInTransaction']>[2],
): Promise<number> {
  let sent = 0;
  for (const notice of claimed) {
    const group = groups.find((candidate) => candidate.userId === notice.userId && candidate.itemId === notice.itemId)!;
    const buyer = await contactOf(tx, notice.userId);
    if (!buyer) continue;
    await deps.jobs.sendInTransaction(tx, 'send-email', mail(buyer, group));
    sent += 1;
  }
  return sent;
}
