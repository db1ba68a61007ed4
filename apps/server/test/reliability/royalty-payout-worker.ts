import { connectDatabase } from '../../src/db/client.ts';
import { createLocalPayouts } from '../../src/payouts/payouts.service.ts';
import { runPayouts } from '../../src/royalties/payout-run.service.ts';

/**
 * One instance's payout run (royalty-payouts.test.ts): the run for the period named, through the
 * local provider, whose answers take ANSWER_DELAY_MS after each transfer is made and which keeps
 * no idempotency key (as Stripe past its 24 hours): a repeated call would be a second transfer.
 */
const [connectionString, period] = process.argv.slice(2) as [string, string];
const database = connectDatabase(connectionString, { max: 2, applicationName: `payout-worker-${process.pid}` });
const provider = createLocalPayouts(database.db, { answerDelayMs: Number(process.env.ANSWER_DELAY_MS ?? 300), keyWindowMs: 0 });
const summary = await runPayouts({ db: database.db, provider, timeZone: 'UTC', minimumCents: 100, leaseMs: Number(process.env.LEASE_MS ?? 3000), retryBaseMs: 50 }, period, {
  operator: 'cli',
});
process.stdout.write(`${JSON.stringify(summary)}\n`);
await database.close();
