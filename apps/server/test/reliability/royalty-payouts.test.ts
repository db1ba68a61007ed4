import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, type Database } from '../../src/db/client.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.ts';
import { runMigrations } from '../../src/db/migrate.ts';
import { localTransfers, royaltyParties, royaltyPayouts } from '../../src/db/schema/index.ts';
import { createLocalPayouts } from '../../src/payouts/payouts.service.ts';
import { runPayouts } from '../../src/royalties/payout-run.service.ts';
import { newTestDataDir } from '../temp-data-dirs.ts';
import { childEnv, poll, repoRoot } from './processes.ts';

/**
 * Payout runs on two instances, one killed mid-run (issue 36 part 5, "Done when", decision 077).
 * Two processes run the same period's payouts at once on one Postgres through the local
 * provider, which keeps no idempotency key (as Stripe after 24 hours: a repeated call is a second
 * transfer) and answers each transfer 300 ms after making it. One is killed with SIGKILL while
 * it sends; the other finishes; once the dead one's claims lapse, a third run resumes. Each party
 * with an account is paid exactly once (the provider's own rows count the transfers), the one
 * without accrues, and the ledger balances: payouts equal transfers and paid balances are zero.
 */
const dataDir = newTestDataDir('royalty-payouts');
const PERIOD = '2026-10';
const PARTIES = 12;
let cluster: EmbeddedDatabase;
let database: Database;
const accountParties: { id: number; accountId: string; cents: number }[] = [];
let accruing: { id: number; cents: number };

beforeAll(async () => {
  cluster = await startEmbeddedPostgres({ dataDir, ephemeral: true });
  database = connectDatabase(cluster.connectionString, { max: 4 });
  await runMigrations(database.pool);
  // Each party earned in October (entries as the ledger posts them), one more without an account.
  for (let index = 0; index <= PARTIES; index += 1) {
    const accountId = index < PARTIES ? `acct_party_${index}` : null;
    const [party] = await database.db
      .insert(royaltyParties)
      .values({ kind: 'producer', name: `Party ${index}`, payoutAccountId: accountId })
      .returning();
    const cents = 1000 * (index + 1) + 37;
    await database.db.execute(sql`
      INSERT INTO royalty_entry (party_id, kind, source, order_id, position, part, product_id, amount_cents, earned_at)
      VALUES (${party!.id}, 'sale', 'order', ${`fixture-${index}`}, 0, 0, 'fixture', ${cents}, '2026-10-15T12:00:00Z'),
             (${party!.id}, 'sale', 'order', ${`fixture-late-${index}`}, 0, 0, 'fixture', 5, '2026-11-02T12:00:00Z')`);
    if (accountId) accountParties.push({ id: party!.id, accountId, cents });
    else accruing = { id: party!.id, cents };
  }
}, 120_000);

afterAll(async () => {
  await database?.close();
  await cluster?.stop();
});

function worker(): { child: ChildProcess; exited: Promise<number | null>; output: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'royalty-payout-worker.ts'), cluster.connectionString, PERIOD], {
    cwd: repoRoot,
    env: childEnv({ ANSWER_DELAY_MS: '300', LEASE_MS: '8000' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  return { child, exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))), output: () => output };
}

const transfersMade = async () => Number((await database.pool.query<{ n: string }>('SELECT count(*)::text AS n FROM local_transfer')).rows[0]!.n);

describe('payout runs on two instances, one killed mid-run', () => {
  it('pay each party with an account exactly once, and the ledger balances', async () => {
    const [doomed, survivor] = [worker(), worker()];
    // Killed once both are sending (each holds one claim at a time: two held means one is the doomed one's), a few transfers made.
    const sending = async () => Number((await database.pool.query<{ n: string }>(`SELECT count(*)::text AS n FROM royalty_payout WHERE status = 'sending'`)).rows[0]!.n);
    await poll('transfers under way', async () => ((await transfersMade()) >= 4 && (await sending()) >= 2 ? true : undefined), { timeoutMs: 60_000, intervalMs: 10 });
    doomed.child.kill('SIGKILL');
    expect(await doomed.exited).toBe(null);
    expect(await survivor.exited, survivor.output()).toBe(0);
    // The dead instance held a payout when it died: nobody else may send it until its claim lapses.
    const held = await database.db.select().from(royaltyPayouts).where(eq(royaltyPayouts.status, 'sending'));
    expect(held.length).toBeGreaterThanOrEqual(1);

    // A third run of the period (the operator's retry, or another instance's) once the claim lapsed.
    await new Promise((resolve) => setTimeout(resolve, 8500));
    const provider = createLocalPayouts(database.db, { keyWindowMs: 0 });
    const summary = await runPayouts({ db: database.db, provider, timeZone: 'UTC', minimumCents: 100 }, PERIOD, { operator: 'cli' });
    expect(summary).toMatchObject({ paid: PARTIES, pending: 0, failed: 0 });
    expect(summary.accrued).toEqual([{ partyId: accruing.id, partyName: `Party ${PARTIES}`, balanceCents: accruing.cents, reason: 'no-account' }]);

    // The provider's count: one transfer per party, of its October balance (November's 5 cents wait for the next run).
    const transfers = await database.db.select().from(localTransfers);
    expect(transfers.map((row) => [row.accountId, row.amountCents]).sort()).toEqual(accountParties.map((party) => [party.accountId, party.cents]).sort());
    expect(new Set(transfers.map((row) => row.transferGroup))).toEqual(new Set([`royalties-rpr_${PERIOD}`]));
    const payouts = await database.db.select().from(royaltyPayouts);
    expect(payouts.every((payout) => payout.status === 'paid')).toBe(true);
    expect(payouts.map((payout) => payout.transferId).sort()).toEqual(transfers.map((row) => row.transferId).sort());

    // The ledger: payouts equal the transfers, each paid party is left with November's 5 cents, the accruing one with all.
    const ledger = await database.pool.query<{ party_id: number; balance: string; paid: string }>(
      `SELECT party_id, sum(amount_cents)::text AS balance, coalesce(-sum(amount_cents) FILTER (WHERE kind = 'payout'), 0)::text AS paid FROM royalty_entry GROUP BY party_id`,
    );
    const byParty = new Map(ledger.rows.map((row) => [row.party_id, row]));
    for (const party of accountParties) expect(byParty.get(party.id)).toEqual({ party_id: party.id, balance: '5', paid: String(party.cents) });
    expect(byParty.get(accruing.id)).toEqual({ party_id: accruing.id, balance: String(accruing.cents + 5), paid: '0' });
    const paidTotal = ledger.rows.reduce((sum, row) => sum + Number(row.paid), 0);
    expect(paidTotal).toBe(transfers.reduce((sum, row) => sum + row.amountCents, 0));
  }, 180_000);
});
