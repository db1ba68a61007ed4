// The order reads the scale section times (My Orders, View Orders, the desk's four searches),
// as the services send them (issue 38 part 2): starts the server on a fresh embedded database,
// fills it as the scale section does, then calls each service function, records every
// statement it sent, and prints EXPLAIN (ANALYZE, BUFFERS) of each, with the function's own
// time (median and p99 of --runs calls, one at a time).
//   node --import tsx bench/explain-orders.ts [--orders=1000000] [--runs=200] [--plans=0: times only]
import os from 'node:os';
import path from 'node:path';
import type { QueryConfig } from 'pg';
import { connectDatabase } from '../apps/server/src/db/client.ts';
import { listDeskOrders } from '../apps/server/src/orders/desk.service.ts';
import { listOpenOrders, listOrdersOf } from '../apps/server/src/orders/order-views.service.ts';
import { startAppServer } from './lib/app-server.ts';
import { connect, queryRows } from './lib/db.ts';
import { deskSearches, fillDatabase } from './sections/scale.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => Number(args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);
const orders = option('orders', 1_000_000);
const runs = option('runs', 200);
const showPlans = option('plans', 1) !== 0;
const scale = { products: 10_000, orders, shopperOrders: Math.round(orders / 50), users: 2000 };

const app = await startAppServer(path.join(os.tmpdir(), 'storefront-explain-orders.log'));
try {
  const admin = await connect(app.databaseUrl);
  admin.on('error', () => undefined);
  const { shopperId } = await fillDatabase(admin, { ...scale, connections: 1, rate: 1, durationSeconds: 1, warmupSeconds: 1, saturateSeconds: 1, bareRuns: 1 }, console.log);
  const database = connectDatabase(app.databaseUrl, { max: 4 });
  // Every statement the services send, as node-postgres gets it.
  let recorded: { text: string; values: unknown[] }[] | null = null;
  const pool = database.pool as unknown as { query: (...call: unknown[]) => unknown };
  const query = pool.query.bind(pool);
  pool.query = (...call: unknown[]) => {
    const [first, second] = call as [string | QueryConfig, unknown[] | undefined];
    if (recorded) recorded.push(typeof first === 'string' ? { text: first, values: second ?? [] } : { text: first.text, values: first.values ?? second ?? [] });
    return query(...call);
  };
  const reads: { name: string; read: () => Promise<unknown> }[] = [
    { name: 'My Orders (listMyOrders, 20 a page)', read: () => listOrdersOf(database.db, shopperId, { limit: 20 }) },
    { name: 'View Orders (listOpenOrders, 20 a page)', read: () => listOpenOrders(database.db, { limit: 20 }) },
    ...deskSearches(scale).map((search) => ({
      name: `desk search by ${search.label} ("${search.q}")`,
      read: () => listDeskOrders(database.db, { status: 'all', q: search.q, limit: 20 }),
    })),
  ];
  for (const { name, read } of reads) {
    for (let i = 0; i < 10; i += 1) await read();
    const times: number[] = [];
    for (let i = 0; i < runs; i += 1) {
      const started = performance.now();
      await read();
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    recorded = [];
    await read();
    const statements = recorded;
    recorded = null;
    const at = (p: number) => times[Math.min(times.length - 1, Math.ceil((p / 100) * times.length) - 1)]!.toFixed(2);
    console.log(`\n=== ${name}: ${statements.length} statements; the service call p50 ${at(50)} ms, p99 ${at(99)} ms (${runs} calls, one at a time)`);
    if (!showPlans) continue;
    for (const statement of statements) {
      const head = `\n--- ${statement.text.slice(0, 400)}${statement.text.length > 400 ? ' ...' : ''}`;
      try {
        const plan = await queryRows<{ 'QUERY PLAN': string }>(admin, `EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`, statement.values);
        console.log(`${head}\n${plan.map((row) => `    ${row['QUERY PLAN']}`).join('\n')}`);
      } catch (error) {
        console.log(`${head}\n    (not explained: ${String(error)})`);
      }
    }
  }
  await database.close();
  await admin.end();
} finally {
  await app.stop();
}
