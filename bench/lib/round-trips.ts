import type pg from 'pg';
import { completeWalletOnlyOrder, createPaymentLink, quoteCheckout, type CheckoutDeps } from '../../apps/server/src/checkout/checkout.flow.ts';
import { connectDatabase } from '../../apps/server/src/db/client.ts';
import { startJobQueue } from '../../apps/server/src/jobs/queue.ts';
import { createLocalProvider } from '../../apps/server/src/payments/local.provider.ts';

/** Long enough for the after-commit announcement's tick (live.publish.ts LIVE_TICK_MS, 20 ms) to be said. */
const AFTER_COMMIT_WAIT_MS = 100;

/** What one call sent to PostgreSQL: round trips (one per query call), statements, and their first words. */
export interface RoundTrips {
  roundTrips: number;
  statements: number;
  /** Each round trip's text, shortened (a multi-statement text counts its statements). */
  texts: string[];
}

/**
 * Counts every query a pool's connections send while `counting` is on: each `client.query`
 * call is one round trip (a simple-protocol text of several statements is one round trip and
 * that many statements; an extended-protocol query is one of each).
 */
function countingPool(pool: pg.Pool) {
  let current: RoundTrips | null = null;
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      if (current) {
        const first = args[0];
        const text = typeof first === 'string' ? first : ((first as { text?: string } | undefined)?.text ?? '');
        const named = typeof first === 'object' && first !== null && 'values' in first;
        current.roundTrips += 1;
        current.statements += named || typeof first !== 'string' ? 1 : text.split(/;\s*\n/).filter((part) => part.trim()).length;
        current.texts.push(text.replace(/\s+/g, ' ').trim().slice(0, 70));
      }
      return query(...args);
    };
  });
  return {
    async count(run: () => Promise<unknown>): Promise<RoundTrips> {
      const counts: RoundTrips = { roundTrips: 0, statements: 0, texts: [] };
      current = counts;
      try {
        await run();
        // The after-commit announcement (decision 067): said once per tick for every order of that tick.
        await new Promise((resolve) => setTimeout(resolve, AFTER_COMMIT_WAIT_MS));
      } finally {
        current = null;
      }
      return counts;
    },
  };
}

/**
 * The statements and round trips of one wallet-only order and one card checkout (issue 35
 * item 8): the server's own checkout functions, run here on a counting pool against the
 * bench's database (the HTTP request's session check is not in these counts).
 */
export async function countCheckoutRoundTrips(
  databaseUrl: string,
  input: { userId: string; publicUrl: string; items: { id: string; variantId?: string; qty: number }[]; runId: string },
): Promise<{ walletOrder: RoundTrips; cardCheckout: RoundTrips }> {
  const database = connectDatabase(databaseUrl, { max: 4 });
  const jobsDatabase = connectDatabase(databaseUrl, { max: 2 });
  const counter = countingPool(database.pool);
  const jobs = await startJobQueue(jobsDatabase.pool, () => undefined);
  try {
    const deps: CheckoutDeps = { db: database.db, jobs, provider: createLocalProvider('bench-round-trips', database.db), publicUrl: input.publicUrl };
    const contact = { name: 'Bench Buyer', email: 'shopper@example.com', phone: '' };
    const shipping = { name: 'Bench Buyer', line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };
    // Warm: the connections open and the named statements are prepared, as on a running server.
    for (let i = 0; i < 2; i += 1) {
      const quote = await quoteCheckout(database.db, input.userId, input.items, true);
      await completeWalletOnlyOrder(deps, input.userId, { items: input.items, contact, shipping, quote, checkoutId: `rt-warm-${input.runId}-${i}` });
    }
    const quote = await quoteCheckout(database.db, input.userId, input.items, true);
    const walletOrder = await counter.count(() => completeWalletOnlyOrder(deps, input.userId, { items: input.items, contact, shipping, quote, checkoutId: `rt-${input.runId}` }));
    const cardCheckout = await counter.count(() =>
      createPaymentLink(deps, input.userId, { items: input.items, useWallet: false, contact, shipping, checkoutId: `rt-card-${input.runId}` }),
    );
    return { walletOrder, cardCheckout };
  } finally {
    await jobs.stop();
    await database.close();
    await jobsDatabase.close();
  }
}
