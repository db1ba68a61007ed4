import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, type Database } from '../../src/db/client.ts';
import { freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.ts';
import { runMigrations } from '../../src/db/migrate.ts';
import { startSmtpPeer } from '../smtp.ts';
import { newTestDataDir } from '../temp-data-dirs.ts';
import { emptyOutcomes, moneyProblems, refundProblems, runCheckoutLoad, seedShop, signInAll, type Shopper } from './money-load.ts';
import { testConfig } from '../database.ts';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { spawnServer, stopAllServers, waitUntilReady, type ServerProcess } from './processes.ts';

/**
 * Money across processes (issue 7, point 3): two real server processes on one Postgres
 * (an embedded cluster started here and given to both as DATABASE_URL), many shoppers,
 * hundreds of concurrent wallet-only orders and card checkouts spread over both, with
 * double submissions sent to different processes. Then, for every user: ledger sum =
 * balance, nothing negative, one order per paid checkout, every hold accounted for.
 */
const SHOPPERS = 24;
const FLOWS = Number(process.env.MONEY_FLOWS ?? 360);
const dataDir = newTestDataDir('money');
let cluster: EmbeddedDatabase;
let database: Database;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
let servers: ServerProcess[];
let shoppers: Shopper[];
let productIds: string[];

beforeAll(async () => {
  cluster = await startEmbeddedPostgres({ dataDir, ephemeral: true });
  database = connectDatabase(cluster.connectionString, { max: 4 });
  await runMigrations(database.pool);
  const seeded = await seedShop(database.db, SHOPPERS, 7);
  productIds = seeded.productIds;
  smtp = await startSmtpPeer();
  const ports = [await freePort(), await freePort()];
  const publicUrl = `http://127.0.0.1:${ports[0]}`;
  const settings = {
    NODE_ENV: 'production',
    PAYMENT_PROVIDER: 'local',
    ALLOW_TEST_PAYMENTS: '1',
    DATABASE_URL: cluster.connectionString,
    PUBLIC_URL: publicUrl,
    AUTH_SECRET: 'money-secret-'.repeat(4),
    SMTP_URL: smtp.url,
    TRUSTED_PROXIES: '127.0.0.1',
  };
  servers = await Promise.all(ports.map((port) => spawnServer(settings, port)));
  await Promise.all(servers.map(waitUntilReady));
  shoppers = await signInAll(servers[0]!.base, publicUrl, seeded.emails);
}, 180_000);

afterAll(async () => {
  await stopAllServers();
  await smtp?.close();
  await database?.close();
  await cluster?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}, 120_000);

describe('money under concurrency across two server processes', () => {
  it(`${FLOWS} concurrent checkout flows from ${SHOPPERS} shoppers keep every wallet, hold and order consistent`, async () => {
    const started = Date.now();
    const outcomes = await runCheckoutLoad({ shoppers, productIds, bases: () => servers.map((s) => s.base), flows: FLOWS, concurrency: 32, seed: 11, outcomes: emptyOutcomes() });
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `money across processes: ${FLOWS} flows in ${seconds.toFixed(1)} s; statuses ${JSON.stringify(outcomes.statuses)}; ${outcomes.walletOrders.length} wallet orders and ${outcomes.paidCheckouts.length} card payments confirmed, ${outcomes.cardCheckouts.length} card checkouts started`,
    );
    expect(outcomes.unexpected).toEqual([]);
    expect(await moneyProblems(database.pool, outcomes)).toEqual([]);
    // The load really raced: double submissions and a mix of outcomes happened.
    expect(outcomes.walletOrders.length).toBeGreaterThan(FLOWS / 20);
    expect(outcomes.paidCheckouts.length).toBeGreaterThan(FLOWS / 20);
    expect(outcomes.statuses['400'] ?? 0).toBeGreaterThan(0);
    const { rows } = await database.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM "order"');
    expect(rows[0]!.n).toBe(new Set([...outcomes.walletOrders.map((o) => o.orderId)]).size + outcomes.paidCheckouts.length);
  });

  it('refunds from two admins on both processes, each doubled, refund each order once and keep the ledger', async () => {
    const config = testConfig();
    for (const i of [0, 1]) {
      await createAccount(
        database.db,
        config,
        { email: `desk${i}@example.org`, username: `desk${i}`, name: `Desk ${i}`, password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true },
        { emailVerified: true, role: 'admin' },
      );
    }
    const admins = await signInAll(servers[0]!.base, servers[0]!.base, ['desk0@example.org', 'desk1@example.org']);
    const { rows: picked } = await database.pool.query<{ id: string }>('SELECT id FROM "order" ORDER BY id LIMIT 40');
    const refund = (base: string, token: string, ip: string, orderId: string, key: string) =>
      fetch(`${base}/fn/refundOrder`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-forwarded-for': ip },
        body: JSON.stringify({ data: { orderId, idempotencyKey: key } }),
      }).then((r) => r.status);
    const statuses = await Promise.all(
      picked.flatMap(({ id }) => admins.flatMap((admin, a) => servers.map((server) => refund(server.base, admin.token, admin.ip, id, `desk-${a}-${id.replace(/[^\w-]/g, '')}`)))),
    );
    expect(statuses.every((status) => status === 200 || status === 400)).toBe(true);
    const { rows } = await database.pool.query<{ order_id: string; n: number }>(
      `SELECT order_id, count(*)::int AS n FROM order_refund WHERE status = 'succeeded' GROUP BY order_id`,
    );
    expect(rows).toHaveLength(picked.length);
    expect(rows.every((row) => row.n === 1)).toBe(true);
    expect(await refundProblems(database.pool)).toEqual([]);
    expect(await moneyProblems(database.pool, emptyOutcomes())).toEqual([]);
  });

  it('sends exactly one receipt per order, by whichever process picks the job', async () => {
    const { rows } = await database.pool.query<{ id: string; email: string }>('SELECT o.id, u.email FROM "order" o JOIN "user" u ON u.id = o.user_id');
    for (const order of rows) await smtp.waitForText(order.email, `Thank you for your order ${order.id}`, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const receipts = smtp.mails.filter((mail) => /Thank you for your order/.test(mail.decoded));
    expect(receipts).toHaveLength(rows.length);
  });
});
