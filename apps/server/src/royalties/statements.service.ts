import { and, desc, eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { royaltyStatementRef } from '@storefront/domain/contracts/royalties.ts';
import {
  lastDayBefore,
  STATEMENT_MESSAGES,
  statementCsv,
  statementFigures,
  statementPeriod,
  type RoyaltyStatement,
  type StatementEarning,
} from '@storefront/domain/royalty-statements.ts';
import { recordAudit, type Actor } from '../audit/audit.service.ts';
import type { Db } from '../db/client.ts';
import { royaltyParties, royaltyStatementEntries, royaltyStatements } from '../db/schema/index.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';

/**
 * Statements (issue 36 part 4, decision 077). A statement of a party counts the party's entries
 * that no issued statement counted and that are in effect before its cut-off (a reserve's
 * release from its day on): the period's end, or the moment it is issued when that comes first.
 * Issuing one keeps its document and the entries it counted, so an entry posted afterwards, even
 * one dated in the period (a failed refund's reversal, a refund outside the desk), is on the next
 * statement. Opening balance: the party's last issued closing balance.
 *
 * Every read takes a party scope (`scope.partyId`): the console passes none, the parties' portal
 * (issue 36 part 6, decision 080) passes a party the caller holds, and a statement of another party is not found.
 */

export type StatementRef = z.output<typeof royaltyStatementRef>;
export interface StatementScope {
  partyId?: number;
}

type EntryRow = {
  id: string;
  kind: 'sale' | 'return' | 'recoup' | 'reserve' | 'release' | 'payout';
  amount: string;
  release_id: number | null;
  release_title: string | null;
  digital: boolean | null;
  order_id: string;
  earned_at: Date | string;
  earlier: boolean;
};

/** The period's bounds as instants of the label's days, and the database's now. */
async function bounds(tx: Db | Tx, from: string, to: string, timeZone: string) {
  const result = await tx.execute<{ start_at: Date | string; end_at: Date | string; now: Date | string }>(sql`
    SELECT ((${from}::date)::timestamp AT TIME ZONE ${timeZone}) AS start_at, ((${to}::date)::timestamp AT TIME ZONE ${timeZone}) AS end_at, now() AS now`);
  const row = result.rows[0]!;
  const [start, end, now] = [new Date(row.start_at), new Date(row.end_at), new Date(row.now)];
  return { start, end, now, cutoff: end < now ? end : now };
}

async function partyOf(tx: Db | Tx, partyId: number, lock: boolean) {
  const query = tx.select().from(royaltyParties).where(eq(royaltyParties.id, partyId));
  const [party] = lock ? await query.for('update') : await query;
  if (!party) throw new AppError('not-found', STATEMENT_MESSAGES.partyNotFound);
  return party;
}

/** The party's entries not on an issued statement, in effect before `cutoff`. */
async function openEntries(tx: Db | Tx, partyId: number, timeZone: string, start: Date, cutoff: Date): Promise<EntryRow[]> {
  const effective = sql`coalesce((e.available_on::timestamp AT TIME ZONE ${timeZone}), e.earned_at)`;
  const result = await tx.execute<EntryRow>(sql`
    SELECT e.id::text AS id, e.kind, e.amount_cents::text AS amount, e.release_id, r.title AS release_title, i.digital, e.order_id, e.earned_at,
           ${effective} < ${start.toISOString()}::timestamptz AS earlier
    FROM royalty_entry e
    LEFT JOIN release r ON r.id = e.release_id
    LEFT JOIN order_item i ON i.order_id = e.order_id AND i.position = e.position
    WHERE e.party_id = ${partyId} AND ${effective} < ${cutoff.toISOString()}::timestamptz
      AND NOT EXISTS (SELECT 1 FROM royalty_statement_entry s WHERE s.entry_id = e.id)
    ORDER BY e.id`);
  return result.rows;
}

/** What a statement of the party's period would say now (not stored), with the entries it counts. */
async function draft(tx: Db | Tx, timeZone: string, partyId: number, period: string): Promise<{ statement: RoyaltyStatement; entryIds: number[] }> {
  const { kind, from, to } = periodOf(period);
  const party = await partyOf(tx, partyId, false);
  const { start, now, cutoff } = await bounds(tx, from, to, timeZone);
  if (start > now) throw new AppError('failed-precondition', STATEMENT_MESSAGES.notBegun);
  const [last] = await tx
    .select({ periodTo: royaltyStatements.periodTo, closingCents: royaltyStatements.closingCents })
    .from(royaltyStatements)
    .where(eq(royaltyStatements.partyId, partyId))
    .orderBy(desc(royaltyStatements.periodTo))
    .limit(1);
  if (last && last.periodTo > from) throw new AppError('failed-precondition', STATEMENT_MESSAGES.alreadyIssued);
  const entries = await openEntries(tx, partyId, timeZone, start, cutoff);
  const sums = { earnings: 0, recoup: 0, reserve: 0, release: 0, payout: 0 };
  const earnings = new Map<string, StatementEarning>();
  const payouts: RoyaltyStatement['payouts'] = [];
  let earlierCents = 0;
  for (const entry of entries) {
    const amount = Number(entry.amount);
    if (entry.earlier) earlierCents += amount;
    if (entry.kind === 'sale' || entry.kind === 'return') {
      sums.earnings += amount;
      const format = entry.digital ? 'digital' : 'physical';
      const key = `${entry.release_id ?? ''}:${format}`;
      const row = earnings.get(key) ?? { releaseId: entry.release_id, release: entry.release_title ?? 'No release', format, soldCents: 0, returnedCents: 0 };
      if (entry.kind === 'sale') row.soldCents += amount;
      else row.returnedCents += amount;
      earnings.set(key, row);
    } else {
      sums[entry.kind] += amount;
      if (entry.kind === 'payout') payouts.push({ id: entry.order_id, amountCents: -amount, at: new Date(entry.earned_at).toISOString() });
    }
  }
  const statement: RoyaltyStatement = {
    id: null,
    party: { id: party.id, name: party.name, kind: party.kind },
    period,
    periodKind: kind,
    from,
    through: lastDayBefore(to),
    timeZone,
    cutoffAt: cutoff.toISOString(),
    issuedAt: null,
    ...statementFigures(last?.closingCents ?? 0, sums),
    earlierCents,
    earnings: [...earnings.values()].sort((a, b) => a.release.localeCompare(b.release) || a.format.localeCompare(b.format)),
    payouts,
  };
  return { statement, entryIds: entries.map((entry) => Number(entry.id)) };
}

function periodOf(period: string) {
  try {
    return statementPeriod(period);
  } catch {
    throw new AppError('invalid-argument', STATEMENT_MESSAGES.period);
  }
}

function issued(row: typeof royaltyStatements.$inferSelect): RoyaltyStatement {
  return { ...(row.document as RoyaltyStatement), id: row.id, issuedAt: row.issuedAt.toISOString() };
}

/** An issued statement as it was issued, or (by party and period) the issued one, else a draft. */
export async function readStatement(db: Db, timeZone: string, ref: StatementRef, scope: StatementScope = {}): Promise<RoyaltyStatement> {
  if (scope.partyId !== undefined && 'partyId' in ref && ref.partyId !== scope.partyId) throw new AppError('not-found', STATEMENT_MESSAGES.statementNotFound);
  const [row] =
    'statementId' in ref
      ? await db.select().from(royaltyStatements).where(eq(royaltyStatements.id, ref.statementId))
      : await db
          .select()
          .from(royaltyStatements)
          .where(and(eq(royaltyStatements.partyId, ref.partyId), eq(royaltyStatements.periodFrom, periodOf(ref.period).from)));
  if (row) {
    if (scope.partyId !== undefined && row.partyId !== scope.partyId) throw new AppError('not-found', STATEMENT_MESSAGES.statementNotFound);
    return issued(row);
  }
  if ('statementId' in ref) throw new AppError('not-found', STATEMENT_MESSAGES.statementNotFound);
  return (await draft(db, timeZone, ref.partyId, ref.period)).statement;
}

export async function statementCsvFile(db: Db, timeZone: string, ref: StatementRef, scope: StatementScope = {}): Promise<{ filename: string; csv: string }> {
  const statement = await readStatement(db, timeZone, ref, scope);
  const slug =
    statement.party.name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || `party-${statement.party.id}`;
  // A byte order mark: spreadsheet programs then read UTF-8 names correctly (as the packing list).
  return { filename: `statement-${slug}-${statement.period}${statement.issuedAt ? '' : '-draft'}.csv`, csv: `\uFEFF${statementCsv(statement)}` };
}

/**
 * Issues (closes) a party's statement of a period: once; issuing it again answers the one issued.
 * The party's row is locked, so its statements are issued one at a time and in period order.
 */
export async function issueStatement(db: Db, timeZone: string, input: { partyId: number; period: string }, actor: Actor): Promise<RoyaltyStatement> {
  const { from, to } = periodOf(input.period);
  return runTransaction(
    db,
    async (tx) => {
      await partyOf(tx, input.partyId, true);
      const [done] = await tx
        .select()
        .from(royaltyStatements)
        .where(and(eq(royaltyStatements.partyId, input.partyId), eq(royaltyStatements.periodFrom, from)));
      if (done) return issued(done);
      const { statement, entryIds } = await draft(tx, timeZone, input.partyId, input.period);
      const [row] = await tx
        .insert(royaltyStatements)
        .values({
          partyId: input.partyId,
          periodKind: statement.periodKind,
          periodFrom: from,
          periodTo: to,
          timeZone,
          cutoffAt: new Date(statement.cutoffAt),
          openingCents: statement.openingCents,
          closingCents: statement.closingCents,
          document: statement,
          issuedBy: 'userId' in actor ? actor.userId : null,
        })
        .returning();
      for (let at = 0; at < entryIds.length; at += 1000) {
        await tx.insert(royaltyStatementEntries).values(entryIds.slice(at, at + 1000).map((entryId) => ({ entryId, statementId: row!.id })));
      }
      await recordAudit(tx, {
        actor,
        action: 'royalty.statement.issue',
        targetType: 'royalty-party',
        targetId: String(input.partyId),
        after: { statementId: row!.id, period: input.period, openingCents: statement.openingCents, closingCents: statement.closingCents },
      });
      return issued(row!);
    },
    // Read committed: an entry committed after the draft was read is simply not listed, and goes on the next statement.
    { isolationLevel: 'read committed' },
  );
}

/** Issued statements, newest first (a party's only, with a scope). */
export async function listStatements(db: Db, scope: StatementScope = {}) {
  const rows = await db
    .select({
      id: royaltyStatements.id,
      partyId: royaltyStatements.partyId,
      partyName: royaltyParties.name,
      document: royaltyStatements.document,
      openingCents: royaltyStatements.openingCents,
      closingCents: royaltyStatements.closingCents,
      issuedAt: royaltyStatements.issuedAt,
    })
    .from(royaltyStatements)
    .innerJoin(royaltyParties, eq(royaltyParties.id, royaltyStatements.partyId))
    .where(scope.partyId !== undefined ? eq(royaltyStatements.partyId, scope.partyId) : undefined)
    .orderBy(desc(royaltyStatements.issuedAt), desc(royaltyStatements.id))
    .limit(500);
  return {
    statements: rows.map((row) => ({
      id: row.id,
      partyId: row.partyId,
      partyName: row.partyName,
      period: (row.document as RoyaltyStatement).period,
      openingCents: row.openingCents,
      closingCents: row.closingCents,
      issuedAt: row.issuedAt.toISOString(),
    })),
  };
}
