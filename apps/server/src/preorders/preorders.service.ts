import { sql } from 'drizzle-orm';
import { preorderNotices } from '../db/schema/index.ts';
import type { Tx } from '../db/transaction.ts';

/** A preorder mail to send once (decision 054). */
export interface Notice {
  userId: string;
  itemId: string;
  kind: 'released' | 'moved';
  shipsOn: string;
}

/**
 * Claims notices in the caller's transaction: returns those not claimed before. The mail is
 * queued in the same transaction, so a notice exists exactly when its mail was queued.
 */
export async function claimNotices(tx: Tx, notices: Notice[]): Promise<Notice[]> {
  if (notices.length === 0) return [];
  const rows = await tx
    .insert(preorderNotices)
    .values(notices)
    .onConflictDoNothing()
    .returning({ userId: preorderNotices.userId, itemId: preorderNotices.itemId, kind: preorderNotices.kind, shipsOn: sql<string>`${preorderNotices.shipsOn}::text` });
  return rows;
}
