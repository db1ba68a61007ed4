import { and, asc, eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { addRecoupCostInput, saveRoyaltyPartyInput, setRoyaltySplitInput } from '@storefront/domain/contracts/royalties.ts';
import { ROYALTY_MESSAGES } from '@storefront/domain/royalties.ts';
import { todayIn } from '@storefront/domain/sales.ts';
import { recordAudit, type Actor } from '../audit/audit.service.ts';
import type { Db } from '../db/client.ts';
import { sqlState } from '../db/errors.ts';
import { royaltyCosts, royaltyEntries, royaltyParties, royaltyRules, royaltyRuleShares } from '../db/schema/index.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';

/**
 * Split rules, parties and recoupable costs (issue 36 part 2, decisions 070 and 075). A rule is
 * never changed: a change is a new rule from a day on (today or later, in the label's time
 * zone), so what was sold before keeps the rule it was sold under.
 */

export async function saveParty(db: Db, input: z.output<typeof saveRoyaltyPartyInput>, actor: Actor): Promise<{ id: number }> {
  if (input.kind === 'artist' && !input.artistId) throw new AppError('invalid-argument', ROYALTY_MESSAGES.artistNeeded);
  const artistId = input.kind === 'artist' ? (input.artistId ?? null) : null;
  return runTransaction(db, async (tx) => {
    try {
      const values = { kind: input.kind, name: input.name, artistId };
      const [row] = input.id
        ? await tx.update(royaltyParties).set(values).where(eq(royaltyParties.id, input.id)).returning({ id: royaltyParties.id })
        : await tx.insert(royaltyParties).values(values).returning({ id: royaltyParties.id });
      if (!row) throw new AppError('not-found', ROYALTY_MESSAGES.partyNotFound);
      await recordAudit(tx, { actor, action: input.id ? 'royalty.party.edit' : 'royalty.party.create', targetType: 'royalty-party', targetId: String(row.id), after: values });
      return row;
    } catch (error) {
      if (sqlState(error) === '23505') throw new AppError('already-exists', ROYALTY_MESSAGES.artistTaken);
      if (sqlState(error) === '23503') throw new AppError('not-found', ROYALTY_MESSAGES.subjectNotFound);
      throw error;
    }
  });
}

async function subjectExists(db: Db, subject: z.output<typeof setRoyaltySplitInput>['subject']): Promise<boolean> {
  const query =
    subject.kind === 'release'
      ? sql`SELECT 1 FROM release WHERE id = ${subject.id}`
      : subject.kind === 'product'
        ? sql`SELECT 1 FROM product WHERE id = ${subject.id}`
        : sql`SELECT 1 FROM artist WHERE id = ${subject.id}`;
  return (await db.execute(query)).rows.length > 0;
}

/** A new split rule from `effectiveFrom` (default today) on, never a past day. */
export async function setSplit(db: Db, timeZone: string, input: z.output<typeof setRoyaltySplitInput>, actor: Actor): Promise<{ id: number; effectiveFrom: string }> {
  const today = todayIn(timeZone);
  const effectiveFrom = input.effectiveFrom ?? today;
  if (effectiveFrom < today) throw new AppError('invalid-argument', ROYALTY_MESSAGES.pastDate);
  return insertRule(db, timeZone, { ...input, effectiveFrom }, actor);
}

/** Writes a rule from a day on (tests write past days through this to model history). */
export async function insertRule(
  db: Db,
  timeZone: string,
  input: Omit<z.output<typeof setRoyaltySplitInput>, 'effectiveFrom'> & { effectiveFrom: string },
  actor: Actor,
): Promise<{ id: number; effectiveFrom: string }> {
  if (!(await subjectExists(db, input.subject))) throw new AppError('not-found', ROYALTY_MESSAGES.subjectNotFound);
  return runTransaction(db, async (tx) => {
    const [rule] = await tx
      .insert(royaltyRules)
      .values({
        subjectKind: input.subject.kind,
        subjectId: String(input.subject.id),
        effectiveFrom: sql`(${input.effectiveFrom}::date)::timestamp AT TIME ZONE ${timeZone}`,
        reserveBp: input.reserveBp,
        reserveDays: input.reserveDays,
        createdBy: 'userId' in actor ? actor.userId : null,
      })
      .returning({ id: royaltyRules.id });
    try {
      await tx.insert(royaltyRuleShares).values(input.shares.map((share, position) => ({ ruleId: rule!.id, partyId: share.partyId, shareBp: share.shareBp, position })));
    } catch (error) {
      if (sqlState(error) === '23503') throw new AppError('not-found', ROYALTY_MESSAGES.partyNotFound);
      throw error;
    }
    await recordAudit(tx, { actor, action: 'royalty.split', targetType: input.subject.kind, targetId: String(input.subject.id), after: { ...input, ruleId: rule!.id } });
    return { id: rule!.id, effectiveFrom: input.effectiveFrom };
  });
}

export async function addCost(db: Db, input: z.output<typeof addRecoupCostInput>, actor: Actor): Promise<{ id: number }> {
  return runTransaction(db, async (tx) => {
    try {
      const [row] = await tx
        .insert(royaltyCosts)
        .values({ ...input, createdBy: 'userId' in actor ? actor.userId : null })
        .returning({ id: royaltyCosts.id });
      await recordAudit(tx, { actor, action: 'royalty.recoup', targetType: 'release', targetId: String(input.releaseId), after: input });
      return row!;
    } catch (error) {
      if (sqlState(error) === '23503') throw new AppError('not-found', ROYALTY_MESSAGES.releaseNotFound);
      throw error;
    }
  });
}

/** Everything the console's Royalties section shows: parties, rules (history kept), costs with what they recouped, balances. */
export async function royaltiesOverview(db: Db, timeZone: string) {
  const parties = await db
    .select()
    .from(royaltyParties)
    .orderBy(sql`${royaltyParties.house} DESC`, asc(royaltyParties.name), asc(royaltyParties.id));
  const rules = await db.execute<{
    id: number;
    subject_kind: 'release' | 'product' | 'artist';
    subject_id: string;
    subject_name: string | null;
    effective_from: string;
    reserve_bp: number;
    reserve_days: number;
  }>(sql`
    SELECT r.id, r.subject_kind, r.subject_id, to_char(r.effective_from AT TIME ZONE ${timeZone}, 'YYYY-MM-DD') AS effective_from, r.reserve_bp, r.reserve_days,
           CASE r.subject_kind WHEN 'release' THEN (SELECT title FROM release WHERE id::text = r.subject_id)
                               WHEN 'product' THEN (SELECT name FROM product WHERE id = r.subject_id)
                               ELSE (SELECT name FROM artist WHERE id::text = r.subject_id) END AS subject_name
    FROM royalty_rule r ORDER BY r.subject_kind, r.subject_id, r.effective_from DESC, r.id DESC`);
  const shares = await db.select().from(royaltyRuleShares).orderBy(royaltyRuleShares.ruleId, royaltyRuleShares.position);
  const costs = await db.select().from(royaltyCosts).orderBy(royaltyCosts.releaseId, royaltyCosts.id);
  const sums = await db
    .select({
      partyId: royaltyEntries.partyId,
      releaseId: royaltyEntries.releaseId,
      earned: sql<string>`coalesce(sum(${royaltyEntries.amountCents}) FILTER (WHERE ${royaltyEntries.kind} IN ('sale', 'return')), 0)::text`,
      recouped: sql<string>`coalesce(-sum(${royaltyEntries.amountCents}) FILTER (WHERE ${royaltyEntries.kind} = 'recoup'), 0)::text`,
      held: sql<string>`coalesce(-sum(${royaltyEntries.amountCents}) FILTER (WHERE ${royaltyEntries.kind} = 'reserve'), 0)
        - coalesce(sum(${royaltyEntries.amountCents}) FILTER (WHERE ${royaltyEntries.kind} = 'release' AND ${royaltyEntries.availableOn} <= ${todayIn(timeZone)}), 0)`,
      balance: sql<string>`coalesce(sum(${royaltyEntries.amountCents}) FILTER (WHERE ${royaltyEntries.availableOn} IS NULL OR ${royaltyEntries.availableOn} <= ${todayIn(timeZone)}), 0)::text`,
    })
    .from(royaltyEntries)
    .groupBy(royaltyEntries.partyId, royaltyEntries.releaseId);
  const balances = new Map<number, { partyId: number; earnedCents: number; recoupedCents: number; reserveHeldCents: number; balanceCents: number }>();
  for (const row of sums) {
    const party = balances.get(row.partyId) ?? { partyId: row.partyId, earnedCents: 0, recoupedCents: 0, reserveHeldCents: 0, balanceCents: 0 };
    party.earnedCents += Number(row.earned);
    party.recoupedCents += Number(row.recouped);
    party.reserveHeldCents += Number(row.held);
    party.balanceCents += Number(row.balance);
    balances.set(row.partyId, party);
  }
  // A cost's recouped part: the party's recouped total of the release, taken by the costs in the order they were added.
  const recoupedLeft = new Map(sums.map((row) => [`${row.partyId}:${row.releaseId}`, Number(row.recouped)]));
  return {
    parties: parties.map((party) => ({ id: party.id, kind: party.kind, name: party.name, artistId: party.artistId, house: party.house, payoutAccountId: party.payoutAccountId })),
    rules: rules.rows.map((rule) => ({
      id: rule.id,
      subjectKind: rule.subject_kind,
      subjectId: rule.subject_id,
      subjectName: rule.subject_name ?? rule.subject_id,
      effectiveFrom: rule.effective_from,
      reserveBp: rule.reserve_bp,
      reserveDays: rule.reserve_days,
      shares: shares.filter((share) => share.ruleId === rule.id).map((share) => ({ partyId: share.partyId, shareBp: share.shareBp })),
    })),
    costs: costs.map((cost) => {
      const key = `${cost.partyId}:${cost.releaseId}`;
      const recoupedCents = Math.min(cost.amountCents, recoupedLeft.get(key) ?? 0);
      recoupedLeft.set(key, (recoupedLeft.get(key) ?? 0) - recoupedCents);
      return { id: cost.id, releaseId: cost.releaseId, partyId: cost.partyId, kind: cost.kind, amountCents: cost.amountCents, note: cost.note, recoupedCents };
    }),
    balances: [...balances.values()],
  };
}

/** A party's entries for a period (tests and the statements to come): sums by kind. */
export async function partyEarnings(db: Db, partyId: number): Promise<number> {
  const [row] = await db
    .select({ cents: sql<string>`coalesce(sum(${royaltyEntries.amountCents}), 0)::text` })
    .from(royaltyEntries)
    .where(and(eq(royaltyEntries.partyId, partyId), sql`${royaltyEntries.kind} IN ('sale', 'return')`));
  return Number(row!.cents);
}

/**
 * An artist merged into another (the Roster tab): its party, with its ledger, becomes the kept
 * artist's when that one has none; otherwise it stays as a party of its own, no longer tied to a
 * roster artist (its entries are never moved: the ledger is append-only). Its roster default
 * rules go with it only where the kept artist has none.
 */
export async function moveArtistParty(tx: Tx, from: number, into: number): Promise<void> {
  const [taken] = await tx.select({ id: royaltyParties.id }).from(royaltyParties).where(eq(royaltyParties.artistId, into));
  await tx
    .update(royaltyParties)
    .set({ artistId: taken ? null : into })
    .where(eq(royaltyParties.artistId, from));
  const [ruled] = await tx
    .select({ id: royaltyRules.id })
    .from(royaltyRules)
    .where(and(eq(royaltyRules.subjectKind, 'artist'), eq(royaltyRules.subjectId, String(into))))
    .limit(1);
  if (!ruled)
    await tx
      .update(royaltyRules)
      .set({ subjectId: String(into) })
      .where(and(eq(royaltyRules.subjectKind, 'artist'), eq(royaltyRules.subjectId, String(from))));
}
