import { desc, eq, lt, sql } from 'drizzle-orm';
import type { AuditPage } from '@storefront/domain/console.ts';
import { CONSOLE_MESSAGES } from '@storefront/domain/console.ts';
import type { Db } from '../db/client.ts';
import { adminAudit, users } from '../db/schema/index.ts';
import type { Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';
import { publishLive } from '../live/live.publish.ts';

/** Who did it: a signed-in admin (by user id), or an operator at the command line. */
export type Actor = { userId: string } | { operator: 'cli' };

export interface AuditRecord {
  actor: Actor;
  action: string;
  targetType: string;
  targetId: string;
  before?: unknown;
  after?: unknown;
}

/**
 * Writes one audit row in the caller's transaction (decision 031): it commits, or rolls
 * back, with the action. The actor's email is copied in, so the row still reads after the
 * account changes or goes. The admins' open console lists hear of it on commit ('admin' topic).
 */
export async function recordAudit(tx: Tx, record: AuditRecord): Promise<void> {
  const actorId = 'userId' in record.actor ? record.actor.userId : null;
  const actorLabel = actorId === null ? sql`'cli'` : sql`coalesce((SELECT ${users.email} FROM ${users} WHERE ${users.id} = ${actorId}), ${actorId})`;
  await tx.insert(adminAudit).values({
    actorId,
    actorLabel,
    action: record.action,
    targetType: record.targetType,
    targetId: record.targetId,
    before: record.before ?? null,
    after: record.after ?? null,
  });
  // Open activity and admins lists refetch once this commits (issue 18).
  await publishLive(tx, { topic: 'admin', id: record.targetType });
}

/** The activity list: newest first, a page at a time (keyset on the id). */
export async function listAudit(db: Db, options: { limit: number; after?: string }): Promise<AuditPage> {
  if (options.after !== undefined && !/^\d{1,18}$/.test(options.after)) throw new AppError('invalid-argument', CONSOLE_MESSAGES.cursor);
  const rows = await db
    .select()
    .from(adminAudit)
    .where(options.after === undefined ? undefined : lt(adminAudit.id, Number(options.after)))
    .orderBy(desc(adminAudit.id))
    .limit(options.limit + 1);
  const page = rows.slice(0, options.limit);
  return {
    items: page.map((row) => ({
      id: String(row.id),
      at: row.at.toISOString(),
      actor: row.actorLabel,
      action: row.action,
      targetType: row.targetType,
      targetId: row.targetId,
      before: row.before,
      after: row.after,
    })),
    next: rows.length > options.limit ? String(page.at(-1)!.id) : null,
  };
}

/** Test helper shape: every audit row about one object, oldest first. */
export async function auditOf(db: Db, targetId: string) {
  return db.select().from(adminAudit).where(eq(adminAudit.targetId, targetId)).orderBy(adminAudit.id);
}
