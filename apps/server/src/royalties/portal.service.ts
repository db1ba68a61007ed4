import { desc, eq, inArray, sql } from 'drizzle-orm';
import { PORTAL_MESSAGES } from '@storefront/domain/royalty-portal.ts';
import { STATEMENT_MESSAGES, type RoyaltyStatement } from '@storefront/domain/royalty-statements.ts';
import { todayIn } from '@storefront/domain/sales.ts';
import type { Db } from '../db/client.ts';
import { royaltyParties, royaltyPartyMembers, royaltyPayouts, royaltyStatements } from '../db/schema/index.ts';
import { AppError } from '../errors.ts';
import type { Caller } from '../functions/registry.ts';
import { heldParties } from './invitations.service.ts';

/**
 * The parties' portal reads (issue 36 part 6, decision 080): every read is of one party the caller
 * holds (an admin: any party), and answers that party's own figures only: its statements, its
 * earnings of its releases, its recoup and its payouts; never the label's or another party's.
 */

/** The caller's payout account at the provider (the payouts area's), for the portal's payout state. */
export type PayoutAccountOf = (userId: string) => Promise<{ accountId: string; payoutsEnabled: boolean } | null>;

/** Refuses a party the caller does not hold (as not found: another party's existence is not told). */
export async function assertHolds(db: Db, caller: Caller, partyId: number): Promise<void> {
  if (caller.isAdmin) return;
  const [row] = await db
    .select({ partyId: royaltyPartyMembers.partyId })
    .from(royaltyPartyMembers)
    .where(sql`${royaltyPartyMembers.partyId} = ${partyId} AND ${royaltyPartyMembers.userId} = ${caller.userId}`);
  if (!row) throw new AppError('not-found', PORTAL_MESSAGES.partyNotFound);
}

/** The party of an issued statement the caller may read; another party's is not found. */
export async function statementPartyFor(db: Db, caller: Caller, statementId: number): Promise<number> {
  const [row] = await db.select({ partyId: royaltyStatements.partyId }).from(royaltyStatements).where(eq(royaltyStatements.id, statementId));
  if (!row) throw new AppError('not-found', STATEMENT_MESSAGES.statementNotFound);
  try {
    await assertHolds(db, caller, row.partyId);
  } catch {
    throw new AppError('not-found', STATEMENT_MESSAGES.statementNotFound);
  }
  return row.partyId;
}

type SalesRow = { party_id: number; release_id: number | null; release: string | null; units: string; sold: string; returned: string };
type RecoupRow = { party_id: number; release_id: number; release: string; total: string; recouped: string };

/** The caller's parties with each one's own statements, sales, recoup and payouts. */
export async function portalOverview(db: Db, userId: string, timeZone: string, payoutAccountOf: PayoutAccountOf) {
  const ids = await heldParties(db, userId);
  if (ids.length === 0) return { parties: [] };
  const list = sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  );
  const parties = await db.select().from(royaltyParties).where(inArray(royaltyParties.id, ids)).orderBy(royaltyParties.name, royaltyParties.id);
  const statements = await db
    .select()
    .from(royaltyStatements)
    .where(inArray(royaltyStatements.partyId, ids))
    .orderBy(desc(royaltyStatements.periodFrom), desc(royaltyStatements.id));
  // Units: each sold slice once (its line's quantity); earnings: the party's own sale and return entries.
  const sales = await db.execute<SalesRow>(sql`
    SELECT e.party_id, e.release_id, r.title AS release,
           coalesce((SELECT sum(i.qty) FROM (SELECT DISTINCT s.order_id, s.position, s.part FROM royalty_entry s
                      WHERE s.party_id = e.party_id AND s.kind = 'sale' AND s.release_id IS NOT DISTINCT FROM e.release_id) AS sold
                     JOIN order_item i ON i.order_id = sold.order_id AND i.position = sold.position), 0)::text AS units,
           coalesce(sum(e.amount_cents) FILTER (WHERE e.kind = 'sale'), 0)::text AS sold,
           coalesce(sum(e.amount_cents) FILTER (WHERE e.kind = 'return'), 0)::text AS returned
    FROM royalty_entry e LEFT JOIN release r ON r.id = e.release_id
    WHERE e.party_id IN (${list}) AND e.kind IN ('sale', 'return')
    GROUP BY e.party_id, e.release_id, r.title
    ORDER BY r.title NULLS LAST`);
  const recoup = await db.execute<RecoupRow>(sql`
    SELECT c.party_id, c.release_id, r.title AS release, sum(c.amount_cents)::text AS total,
           coalesce((SELECT -sum(e.amount_cents) FROM royalty_entry e WHERE e.party_id = c.party_id AND e.release_id = c.release_id AND e.kind = 'recoup'), 0)::text AS recouped
    FROM royalty_cost c JOIN release r ON r.id = c.release_id
    WHERE c.party_id IN (${list})
    GROUP BY c.party_id, c.release_id, r.title
    ORDER BY r.title`);
  const balances = await db.execute<{ party_id: number; cents: string }>(sql`
    SELECT party_id, coalesce(sum(amount_cents) FILTER (WHERE available_on IS NULL OR available_on <= ${todayIn(timeZone)}), 0)::text AS cents
    FROM royalty_entry WHERE party_id IN (${list}) GROUP BY party_id`);
  const payouts = await db.select().from(royaltyPayouts).where(inArray(royaltyPayouts.partyId, ids)).orderBy(desc(royaltyPayouts.createdAt), desc(royaltyPayouts.id));
  const account = await payoutAccountOf(userId);
  return {
    parties: parties.map((party) => ({
      party: { id: party.id, name: party.name, kind: party.kind },
      payouts: !party.payoutAccountId ? ('none' as const) : party.payoutAccountId === account?.accountId && !account.payoutsEnabled ? ('pending' as const) : ('ready' as const),
      statements: statements
        .filter((row) => row.partyId === party.id)
        .map((row) => ({
          id: row.id,
          period: (row.document as RoyaltyStatement).period,
          periodKind: row.periodKind,
          closingCents: row.closingCents,
          issuedAt: row.issuedAt.toISOString(),
        })),
      sales: sales.rows
        .filter((row) => row.party_id === party.id)
        .map((row) => ({
          releaseId: row.release_id,
          release: row.release ?? 'No release',
          units: Number(row.units),
          soldCents: Number(row.sold),
          returnedCents: Number(row.returned),
          earningsCents: Number(row.sold) + Number(row.returned),
        })),
      recoup: recoup.rows
        .filter((row) => row.party_id === party.id)
        .map((row) => ({ releaseId: row.release_id, release: row.release, totalCents: Number(row.total), recoupedCents: Math.min(Number(row.total), Number(row.recouped)) })),
      payoutList: payouts
        .filter((row) => row.partyId === party.id)
        .map((row) => ({ id: row.id, period: row.runId.slice('rpr_'.length), amountCents: row.amountCents, status: row.status, createdAt: row.createdAt.toISOString() })),
      balanceCents: Number(balances.rows.find((row) => row.party_id === party.id)?.cents ?? 0),
    })),
  };
}
