import pg from 'pg';
import { completeWalletOnlyOrder, quoteCheckout, type CheckoutDeps } from '../../apps/server/src/checkout/checkout.flow.ts';
import { connectDatabase } from '../../apps/server/src/db/client.ts';
import { startJobQueue } from '../../apps/server/src/jobs/queue.ts';
import { createLocalProvider } from '../../apps/server/src/payments/local.provider.ts';

/**
 * "The bare SQL of the same work" for one wallet-only order (issue 35): the statements the
 * server's own checkout flow sends for an order, recorded with their values, then sent again
 * from plain `pg` clients at the bench's concurrency, with no HTTP, no session check, no
 * Drizzle and no JavaScript of the shop between them. What an order costs PostgreSQL and
 * the wire alone: the ceiling of any server that sends these statements.
 */

/** One call the flow made: a text (or a named statement) and its values. */
export interface RecordedQuery {
  text: string;
  name?: string;
  values?: unknown[];
}

/** One buyer's order as sent, and the values that are made anew for every order (ids, the checkout id). */
export interface RecordedOrder {
  queries: RecordedQuery[];
  generated: string[];
}

const AFTER_COMMIT_WAIT_MS = 100;

function recordingPool(pool: pg.Pool) {
  let current: RecordedQuery[] | null = null;
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      if (current) {
        const [first, second] = args;
        if (typeof first === 'string') current.push({ text: first, ...(Array.isArray(second) ? { values: second as unknown[] } : {}) });
        else {
          const config = first as { text: string; name?: string; values?: unknown[] };
          // A named statement's values come in the config or as the second argument.
          const values = config.values ?? (Array.isArray(second) ? (second as unknown[]) : undefined);
          current.push({ text: config.text, ...(config.name ? { name: config.name } : {}), ...(values ? { values } : {}) });
        }
      }
      return query(...args);
    };
  });
  return async (run: () => Promise<unknown>): Promise<RecordedQuery[]> => {
    const queries: RecordedQuery[] = [];
    current = queries;
    try {
      await run();
      await new Promise((resolve) => setTimeout(resolve, AFTER_COMMIT_WAIT_MS));
    } finally {
      current = null;
    }
    // The after-commit announcement is said once per 20 ms tick for every order of the tick
    // (decision 067): under load its share of one order is nil, so it is not replayed.
    const commit = queries.findLastIndex((query) => /^\s*COMMIT\b/i.test(query.text));
    return commit >= 0 ? queries.slice(0, commit + 1) : queries;
  };
}

const looksLikeTime = (value: string) => /^\d{4}-\d\d-\d\d[T ]\d\d:\d\d/.test(value);
/** Not an id to give a suffix: a time, a number, or a JSON text (the ids inside it are replaced as parts). */
const notAnId = (value: string) => looksLikeTime(value) || /^-?\d+(\.\d+)?$/.test(value) || /^\s*[[{"]/.test(value);

/** The string values that differ between two orders of one buyer: made anew for every order. */
function generatedValues(a: RecordedQuery[], b: RecordedQuery[]): string[] {
  if (a.length !== b.length) throw new Error(`Two orders of one buyer sent ${a.length} and ${b.length} statements: the replay needs the same shape.`);
  const generated = new Set<string>();
  a.forEach((query, index) => {
    const other = b[index]!;
    if (query.text !== other.text) throw new Error(`Statement ${index} differs between two orders of one buyer: ${query.text.slice(0, 80)}`);
    (query.values ?? []).forEach((value, position) => {
      const twin = other.values?.[position];
      if (typeof value === 'string' && typeof twin === 'string' && value !== twin && !notAnId(value)) generated.add(value);
    });
  });
  // Longest first, so an id that contains another is replaced whole.
  return [...generated].sort((x, y) => y.length - x.length);
}

/**
 * Records, for each buyer, the statements of one wallet-only order through the server's own
 * flow (after two warm-up orders that prepare the named statements, as on a running server).
 */
export async function recordWalletOrders(
  databaseUrl: string,
  input: { userIds: string[]; publicUrl: string; items: { id: string; variantId?: string; qty: number }[]; runId: string },
): Promise<RecordedOrder[]> {
  const database = connectDatabase(databaseUrl, { max: 4 });
  const jobsDatabase = connectDatabase(databaseUrl, { max: 2 });
  const record = recordingPool(database.pool);
  const jobs = await startJobQueue(jobsDatabase.pool, () => undefined);
  try {
    const deps: CheckoutDeps = { db: database.db, jobs, provider: createLocalProvider('bench-replay', database.db), publicUrl: input.publicUrl };
    const contact = { name: 'Bench Buyer', email: 'shopper@example.com', phone: '' };
    const shipping = { name: 'Bench Buyer', line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };
    const order = async (userId: string, checkoutId: string) => {
      const quote = await quoteCheckout(database.db, userId, input.items, true);
      return record(() => completeWalletOnlyOrder(deps, userId, { items: input.items, contact, shipping, quote, checkoutId }));
    };
    const recorded: RecordedOrder[] = [];
    for (const [index, userId] of input.userIds.entries()) {
      await order(userId, `replay-warm-${input.runId}-${index}`);
      const first = await order(userId, `replay-a-${input.runId}-${index}`);
      const second = await order(userId, `replay-b-${input.runId}-${index}`);
      recorded.push({ queries: first, generated: generatedValues(first, second) });
    }
    return recorded;
  } finally {
    await jobs.stop();
    await database.close();
    await jobsDatabase.close();
  }
}

function substitute(value: unknown, generated: string[], suffix: string): unknown {
  if (typeof value !== 'string') return value;
  let result = value;
  for (const made of generated) if (result.includes(made)) result = result.split(made).join(`${made}${suffix}`);
  return result;
}

/**
 * Sends the recorded orders again from `connections` plain clients for `durationSeconds`,
 * each client one buyer's order after another, every generated value (ids, the checkout id,
 * inside JSON payloads too) given a new suffix per order. Returns the orders/s and how many
 * of the sent orders exist as rows afterwards (every one must).
 */
export async function replayWalletOrders(
  databaseUrl: string,
  recorded: RecordedOrder[],
  options: { connections: number; durationSeconds: number; runId: string },
): Promise<{ orders: number; perSecond: number; errors: number; firstError?: string }> {
  const clients = await Promise.all(
    Array.from({ length: options.connections }, async () => {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      return client;
    }),
  );
  let orders = 0;
  let errors = 0;
  let firstError: string | undefined;
  let sequence = 0;
  const started = performance.now();
  const deadline = started + options.durationSeconds * 1000;
  try {
    await Promise.all(
      clients.map(async (client, index) => {
        const order = recorded[index % recorded.length]!;
        while (performance.now() < deadline) {
          const suffix = `-x${options.runId}${(sequence += 1)}`;
          try {
            for (const query of order.queries) {
              const values = query.values?.map((value) => substitute(value, order.generated, suffix));
              await client.query({ text: query.text, ...(query.name ? { name: query.name } : {}), ...(values ? { values } : {}) });
            }
            orders += 1;
          } catch (error) {
            errors += 1;
            firstError ??= String(error);
            await client.query('ROLLBACK').catch(() => undefined);
          }
        }
      }),
    );
  } finally {
    await Promise.all(clients.map((client) => client.end()));
  }
  const seconds = (performance.now() - started) / 1000;
  return { orders, perSecond: orders / seconds, errors, ...(firstError ? { firstError } : {}) };
}
