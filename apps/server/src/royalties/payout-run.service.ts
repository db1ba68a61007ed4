import { randomBytes } from 'node:crypto';
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { STATEMENT_MESSAGES, statementPeriod } from '@storefront/domain/royalty-statements.ts';
import { recordAudit, type Actor } from '../audit/audit.service.ts';
import type { Db } from '../db/client.ts';
import { royaltyEntries, royaltyParties, royaltyPayoutRuns, royaltyPayouts } from '../db/schema/index.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';
import { TransferRefusedError, type PayoutProvider } from '../payments/provider.ts';

/**
 * Payout runs (issue 36 part 5, decision 077). A run for a period is planned once (one row per
 * period, under one advisory lock): each party with a connected account and a payable balance
 * at the cut-off of at least the minimum gets a payout row and its `payout` ledger entry, in one
 * transaction, before any transfer is asked for. Then any instance sends the run's payouts:
 * each is claimed (FOR UPDATE SKIP LOCKED) for a lease, sent with an idempotency key derived
 * from its row, and marked paid. A claim that lapsed (the instance died mid-call) is taken again
 * and the provider is asked first whether the transfer was made, so a repeat never pays twice,
 * even past Stripe's 24-hour key window. A refused transfer fails its payout and gives its amount
 * back to the party's balance (a reversing entry); an unanswered one is retried, then left
 * pending for the next call of the run.
 */

export interface PayoutRunDeps {
  db: Db;
  provider: PayoutProvider;
  timeZone: string;
  minimumCents: number;
  /** How long a claim holds a payout (longer than a transfer call can take). */
  leaseMs?: number;
  /** Calls per payout in one pass before it is left pending, and the wait before the first retry (doubling). */
  attempts?: number;
  retryBaseMs?: number;
}

const DEFAULT_LEASE_MS = 5 * 60_000;

type Run = typeof royaltyPayoutRuns.$inferSelect;

/** Each party's payable balance at `cutoff`: entries in effect by then, less every payout ever recorded. */
async function payableBalances(db: Db | Tx, timeZone: string, cutoff: Date) {
  const result = await db.execute<{ party_id: number; cents: string }>(sql`
    SELECT party_id, (coalesce(sum(amount_cents) FILTER (WHERE kind <> 'payout'
             AND coalesce((available_on::timestamp AT TIME ZONE ${timeZone}), earned_at) < ${cutoff.toISOString()}::timestamptz), 0)
           + coalesce(sum(amount_cents) FILTER (WHERE kind = 'payout'), 0))::text AS cents
    FROM royalty_entry GROUP BY party_id`);
  return new Map(result.rows.map((row) => [row.party_id, Number(row.cents)]));
}

/**
 * The run of a period: made once (its cut-off fixed then), by whichever instance gets the lock
 * first; each call plans a payout for every party with an account that has none in the run yet.
 */
export async function planRun(deps: PayoutRunDeps, period: string, actor: Actor): Promise<Run> {
  let range: ReturnType<typeof statementPeriod>;
  try {
    range = statementPeriod(period);
  } catch {
    throw new AppError('invalid-argument', STATEMENT_MESSAGES.period);
  }
  const runId = `rpr_${period}`;
  return runTransaction(
    deps.db,
    async (tx) => {
      // One planner at a time across instances: every run reads and writes the same balances.
      await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('royalty-payout-plan'))`);
      const [existing] = await tx.select().from(royaltyPayoutRuns).where(eq(royaltyPayoutRuns.id, runId));
      const times = (
        await tx.execute<{ start_at: string | Date; end_at: string | Date; now: string | Date }>(sql`
          SELECT ((${range.from}::date)::timestamp AT TIME ZONE ${deps.timeZone}) AS start_at, ((${range.to}::date)::timestamp AT TIME ZONE ${deps.timeZone}) AS end_at, now() AS now`)
      ).rows[0]!;
      const [start, end, now] = [new Date(times.start_at), new Date(times.end_at), new Date(times.now)];
      if (start > now) throw new AppError('failed-precondition', STATEMENT_MESSAGES.notBegun);
      const [run] = existing
        ? [existing]
        : await tx
            .insert(royaltyPayoutRuns)
            .values({
              id: runId,
              periodKind: range.kind,
              periodFrom: range.from,
              periodTo: range.to,
              cutoffAt: end < now ? end : now,
              minimumCents: deps.minimumCents,
              createdBy: 'userId' in actor ? actor.userId : null,
            })
            .returning();
      const cutoff = run!.cutoffAt;
      // Called again, the run pays the parties it has no payout for yet (an account connected since) up to its own cut-off.
      const planned = new Set((await tx.select({ partyId: royaltyPayouts.partyId }).from(royaltyPayouts).where(eq(royaltyPayouts.runId, runId))).map((row) => row.partyId));
      const balances = await payableBalances(tx, deps.timeZone, cutoff);
      const parties = await tx
        .select()
        .from(royaltyParties)
        .where(and(eq(royaltyParties.house, false), sql`${royaltyParties.payoutAccountId} IS NOT NULL`))
        .orderBy(royaltyParties.id);
      for (const party of parties) {
        const amount = balances.get(party.id) ?? 0;
        if (planned.has(party.id) || amount <= 0 || amount < run!.minimumCents) continue;
        const id = `rpo_${randomBytes(12).toString('base64url')}`;
        await tx.insert(royaltyPayouts).values({ id, runId, partyId: party.id, accountId: party.payoutAccountId!, amountCents: amount });
        await tx
          .insert(royaltyEntries)
          .values({ partyId: party.id, kind: 'payout', source: `payout:${id}`, orderId: id, position: 0, part: 0, productId: '', amountCents: -amount, earnedAt: now });
      }
      if (!existing)
        await recordAudit(tx, { actor, action: 'royalty.payout.run', targetType: 'royalty-payout-run', targetId: runId, after: { period, cutoffAt: cutoff.toISOString() } });
      return run!;
    },
    { isolationLevel: 'read committed' },
  );
}

type Claimed = { id: string; account_id: string; amount: string; attempts: number };

/** Takes one payout of the run to send: pending, or sending with a lapsed claim; never one another instance holds. */
async function claim(deps: PayoutRunDeps, runId: string, skip: string[]): Promise<Claimed | undefined> {
  const lease = deps.leaseMs ?? DEFAULT_LEASE_MS;
  const claimable = sql`(status = 'pending' OR (status = 'sending' AND claimed_until < now()))`;
  const result = await deps.db.execute<Claimed>(sql`
    UPDATE royalty_payout SET status = 'sending', attempts = attempts + 1, claimed_until = now() + ${lease}::float8 * interval '1 millisecond'
    WHERE id = (
      SELECT id FROM royalty_payout
      WHERE run_id = ${runId} AND ${claimable} AND id NOT IN (SELECT jsonb_array_elements_text(${JSON.stringify(skip)}::jsonb))
      ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
      AND ${claimable}
    RETURNING id, account_id, amount_cents::text AS amount, attempts`);
  return result.rows[0];
}

/** Sends one claimed payout: paid, failed for good (its amount back to the balance), or left to retry. */
async function send(deps: PayoutRunDeps, run: Run, payout: Claimed): Promise<'paid' | 'failed' | 'retry'> {
  const group = `royalties-${run.id}`;
  const live = inArray(royaltyPayouts.status, ['sending', 'pending']);
  try {
    // A call before this one may have made the transfer without our learning so: ask first (the key alone lasts 24 hours).
    const found = payout.attempts > 1 ? await deps.provider.findTransfer(group, payout.id) : null;
    const { transferId } =
      found ?? (await deps.provider.transfer(payout.account_id, Number(payout.amount), payout.id, { transferGroup: group, idempotencyKey: `royalty-payout-${payout.id}` }));
    await deps.db
      .update(royaltyPayouts)
      .set({ status: 'paid', transferId, settledAt: new Date(), claimedUntil: null, lastError: null })
      .where(and(eq(royaltyPayouts.id, payout.id), live));
    return 'paid';
  } catch (error) {
    const message = error instanceof Error ? error.message.slice(0, 500) : String(error);
    if (error instanceof TransferRefusedError) {
      await runTransaction(deps.db, async (tx) => {
        const [failed] = await tx
          .update(royaltyPayouts)
          .set({ status: 'failed', lastError: message, settledAt: new Date(), claimedUntil: null })
          .where(and(eq(royaltyPayouts.id, payout.id), live))
          .returning();
        if (!failed) return;
        const [entry] = await tx
          .select()
          .from(royaltyEntries)
          .where(eq(royaltyEntries.source, `payout:${payout.id}`));
        await tx
          .insert(royaltyEntries)
          .values({
            partyId: failed.partyId,
            kind: 'payout',
            source: `payout-failed:${payout.id}`,
            orderId: payout.id,
            position: 0,
            part: 0,
            productId: '',
            amountCents: failed.amountCents,
            earnedAt: entry?.earnedAt ?? new Date(),
          })
          .onConflictDoNothing();
      });
      return 'failed';
    }
    console.warn(`Royalty payout ${payout.id} of ${payout.amount} cents to ${payout.account_id} got no answer (attempt ${payout.attempts}):`, message);
    await deps.db
      .update(royaltyPayouts)
      .set({ status: 'pending', lastError: message, claimedUntil: null })
      .where(and(eq(royaltyPayouts.id, payout.id), eq(royaltyPayouts.status, 'sending')));
    return 'retry';
  }
}

/** Sends the run's payouts that no live claim holds, until none is left (or each left has had its retries in this pass). */
export async function sendRun(deps: PayoutRunDeps, run: Run): Promise<void> {
  const attempts = deps.attempts ?? 3;
  const tries = new Map<string, number>();
  const skip: string[] = [];
  for (;;) {
    const payout = await claim(deps, run.id, skip);
    if (!payout) return;
    const outcome = await send(deps, run, payout);
    if (outcome !== 'retry') continue;
    const tried = (tries.get(payout.id) ?? 0) + 1;
    tries.set(payout.id, tried);
    if (tried >= attempts) skip.push(payout.id);
    else await new Promise((resolve) => setTimeout(resolve, (deps.retryBaseMs ?? 1000) * 2 ** (tried - 1)));
  }
}

/** A payout run for a period: planned once, then sent (calling it again resumes what is left). */
export async function runPayouts(deps: PayoutRunDeps, period: string, actor: Actor) {
  const run = await planRun(deps, period, actor);
  await sendRun(deps, run);
  return runSummary(deps, run);
}

export async function runSummary(deps: PayoutRunDeps, run: Run) {
  const payouts = await deps.db.select().from(royaltyPayouts).where(eq(royaltyPayouts.runId, run.id));
  const count = (status: string) => payouts.filter((payout) => payout.status === status).length;
  const balances = await payableBalances(deps.db, deps.timeZone, run.cutoffAt);
  const parties = await deps.db.select().from(royaltyParties).where(eq(royaltyParties.house, false)).orderBy(royaltyParties.id);
  const accrued = parties.flatMap((party) => {
    const balanceCents = balances.get(party.id) ?? 0;
    if (balanceCents <= 0) return [];
    const reason = !party.payoutAccountId ? ('no-account' as const) : balanceCents < run.minimumCents ? ('under-minimum' as const) : ('not-paid' as const);
    return [{ partyId: party.id, partyName: party.name, balanceCents, reason }];
  });
  return {
    runId: run.id,
    period: run.id.slice('rpr_'.length),
    minimumCents: run.minimumCents,
    paid: count('paid'),
    pending: count('pending') + count('sending'),
    failed: count('failed'),
    accrued,
  };
}

/** Every payout, newest first (the console's list). */
export async function listPayouts(db: Db) {
  const rows = await db
    .select({ payout: royaltyPayouts, partyName: royaltyParties.name })
    .from(royaltyPayouts)
    .innerJoin(royaltyParties, eq(royaltyParties.id, royaltyPayouts.partyId))
    .orderBy(desc(royaltyPayouts.createdAt), desc(royaltyPayouts.id))
    .limit(500);
  return {
    payouts: rows.map(({ payout, partyName }) => ({
      id: payout.id,
      runId: payout.runId,
      partyId: payout.partyId,
      partyName,
      amountCents: payout.amountCents,
      status: payout.status,
      attempts: payout.attempts,
      transferId: payout.transferId,
      lastError: payout.lastError,
      createdAt: payout.createdAt.toISOString(),
    })),
  };
}

/** A party's connected account (the console's form, or the parties' portal when the holder connects payouts, decision 080). */
export async function setPayoutAccount(db: Db, input: { partyId: number; accountId: string | null }, actor: Actor) {
  return runTransaction(db, async (tx) => {
    const [row] = await tx.update(royaltyParties).set({ payoutAccountId: input.accountId }).where(eq(royaltyParties.id, input.partyId)).returning();
    if (!row) throw new AppError('not-found', STATEMENT_MESSAGES.partyNotFound);
    await recordAudit(tx, { actor, action: 'royalty.payout.account', targetType: 'royalty-party', targetId: String(input.partyId), after: { accountId: input.accountId } });
    return { partyId: row.id, accountId: row.payoutAccountId };
  });
}
