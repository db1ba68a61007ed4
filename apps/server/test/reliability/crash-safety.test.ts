import fs from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { connectDatabase, type Database } from '../../src/db/client.ts';
import { freePort, runningEmbeddedConnection, startEmbeddedPostgres } from '../../src/db/embedded.ts';
import { runMigrations } from '../../src/db/migrate.ts';
import { startSmtpPeer } from '../smtp.ts';
import { newTestDataDir } from '../temp-data-dirs.ts';
import { emptyOutcomes, moneyProblems, runCheckoutLoad, seedShop, signInAll, type Outcomes } from './money-load.ts';
import { poll, spawnServer, stopAllServers, waitUntilReady, withTimeout, type ServerProcess } from './processes.ts';

/**
 * Crash safety (issue 7, point 4): kill -9 a server process, and separately the embedded
 * Postgres, in the middle of a checkout load; restart; the money invariants hold, every
 * order a client was told about exists, and receipts that were still queued go out.
 */
const dataDirs: string[] = [];
const cleanups: (() => Promise<void>)[] = [];

afterAll(async () => {
  await stopAllServers();
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
}, 120_000);

const total = (outcomes: Outcomes) => Object.values(outcomes.statuses).reduce((a, b) => a + b, 0);

/** Mail jobs being sent, for the log: at a kill, the ones the dead worker holds until they expire. */
async function activeMailJobs(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'send-email' AND state = 'active'");
  return rows[0]!.n;
}

async function killHard(server: ServerProcess) {
  server.child.kill('SIGKILL');
  await withTimeout(server.exited, 10_000, 'the killed server to exit');
}

describe('crash safety', () => {
  // More than the suite's 120 s: the wait for the held receipts to expire (at most about 85 s
  // after the kill) comes on top of the load.
  it('kill -9 of one of two server processes mid-load: invariants hold, every confirmed order exists, receipts go out', async () => {
    const dataDir = newTestDataDir('crash-server');
    dataDirs.push(dataDir);
    const cluster = await startEmbeddedPostgres({ dataDir, ephemeral: true });
    const database: Database = connectDatabase(cluster.connectionString, { max: 4 });
    cleanups.push(async () => {
      await database.close();
      await cluster.stop();
    });
    await runMigrations(database.pool);
    const { emails, productIds } = await seedShop(database.db, 16, 21);
    const smtp = await startSmtpPeer();
    cleanups.push(() => smtp.close());
    const ports = [await freePort(), await freePort()];
    const publicUrl = `http://127.0.0.1:${ports[0]}`;
    const settings = {
      NODE_ENV: 'production',
      PAYMENT_PROVIDER: 'local',
      ALLOW_TEST_PAYMENTS: '1',
      DATABASE_URL: cluster.connectionString,
      PUBLIC_URL: publicUrl,
      AUTH_SECRET: 'crash-secret-'.repeat(4),
      SMTP_URL: smtp.url,
      TRUSTED_PROXIES: '127.0.0.1',
    };
    const servers = await Promise.all(ports.map((port) => spawnServer(settings, port)));
    await Promise.all(servers.map(waitUntilReady));
    const shoppers = await signInAll(servers[0]!.base, publicUrl, emails);

    let live = servers.map((s) => s.base);
    const outcomes = emptyOutcomes();
    // While a process dies its requests break or fail; nothing else may.
    const load = runCheckoutLoad({
      shoppers,
      productIds,
      bases: () => live,
      flows: 300,
      concurrency: 24,
      seed: 23,
      outcomes,
      tolerate: (status) => status === 'network' || status === 500 || status === 503,
    });
    await poll('the load to be under way', async () => (total(outcomes) >= 150 ? true : undefined), { timeoutMs: 60_000, intervalMs: 5 });
    await killHard(servers[1]!);
    const atKill = total(outcomes);
    live = [servers[0]!.base];
    const heldByTheDead = await activeMailJobs(database.pool);
    const restarted = await spawnServer(settings, ports[1]);
    await waitUntilReady(restarted);
    live = [servers[0]!.base, restarted.base];
    await load;
    console.log(
      `crash (server): killed at ${atKill} answers; statuses ${JSON.stringify(outcomes.statuses)}; ${outcomes.walletOrders.length} wallet orders and ${outcomes.paidCheckouts.length} card payments confirmed; ${heldByTheDead} receipt jobs active at the kill`,
    );

    expect(outcomes.unexpected).toEqual([]);
    expect(await moneyProblems(database.pool, outcomes)).toEqual([]);
    // Every order's receipt is sent, those the killed worker held too once their job expires (a minute).
    const { rows } = await database.pool.query<{ id: string }>('SELECT id FROM "order"');
    await poll(
      'the receipts',
      async () => {
        const sent = new Set(smtp.mails.flatMap((mail) => /Thank you for your order ([A-Za-z0-9_-]+)/.exec(mail.decoded)?.[1] ?? []));
        return rows.every((order) => sent.has(order.id)) ? true : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
  }, 360_000);

  it('kill -9 of the embedded Postgres mid-load, then of the server: after a restart nothing confirmed is lost and queued receipts go out', async () => {
    const dataDir = newTestDataDir('crash-postgres');
    dataDirs.push(dataDir);
    // Receipts cannot be delivered before the crash (nothing listens on this port): they stay queued.
    const deadSmtp = `smtp://127.0.0.1:${await freePort()}`;
    const settings = { DATA_DIR: dataDir, SMTP_URL: deadSmtp };
    const server = await spawnServer(settings);
    await waitUntilReady(server);
    const first = connectDatabase(runningEmbeddedConnection(dataDir)!, { max: 2 });
    const { emails, productIds } = await seedShop(first.db, 8, 31);
    await first.close();
    // Development mode: every sign-in counts against one address, at most 10 a minute.
    const shoppers = await signInAll(server.base, server.base, emails);

    const outcomes = emptyOutcomes();
    let dead = false;
    const load = runCheckoutLoad({
      shoppers,
      productIds,
      bases: () => [server.base],
      flows: 400,
      concurrency: 16,
      seed: 37,
      outcomes,
      // While the database is gone: 5xx, or 401 where the session could not be looked up.
      tolerate: (status) => dead && (status === 'network' || status === 401 || status >= 500),
    });
    await poll('the load to be under way', async () => (total(outcomes) >= 200 ? true : undefined), { timeoutMs: 60_000, intervalMs: 5 });
    const postmaster = Number(fs.readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    dead = true;
    process.kill(postmaster, 'SIGKILL');
    await load;
    // The server outlives its database and says so.
    expect(server.child.exitCode, server.output().slice(-2000)).toBeNull();
    expect((await fetch(`${server.base}/readyz`)).status).toBe(503);
    await killHard(server);
    console.log(
      `crash (postgres): statuses ${JSON.stringify(outcomes.statuses)}; ${outcomes.walletOrders.length} wallet orders and ${outcomes.paidCheckouts.length} card payments confirmed before or around the kill`,
    );

    const smtp = await startSmtpPeer();
    cleanups.push(() => smtp.close());
    const restarted = await spawnServer({ ...settings, SMTP_URL: smtp.url });
    await waitUntilReady(restarted);
    const after = connectDatabase(runningEmbeddedConnection(dataDir)!, { max: 2 });
    try {
      expect(outcomes.unexpected).toEqual([]);
      expect(outcomes.walletOrders.length + outcomes.paidCheckouts.length).toBeGreaterThan(0);
      expect(await moneyProblems(after.pool, outcomes)).toEqual([]);
      // Nothing could be mailed before the crash: every receipt goes out after the restart, those
      // the dead worker held too once their job expires (a minute).
      const { rows } = await after.pool.query<{ id: string }>('SELECT id FROM "order"');
      console.log(`crash (postgres): ${rows.length} orders after the restart, ${await activeMailJobs(after.pool)} receipt jobs held by the dead worker`);
      expect(rows.length).toBeGreaterThan(0);
      await poll(
        'the queued receipts',
        async () => {
          const sent = new Set(smtp.mails.flatMap((mail) => /Thank you for your order ([A-Za-z0-9_-]+)/.exec(mail.decoded)?.[1] ?? []));
          return rows.every((order) => sent.has(order.id)) ? true : undefined;
        },
        { timeoutMs: 120_000, intervalMs: 500 },
      );
    } finally {
      await after.close();
    }
    // Its own waits add up to more than the suite's default (a minute's job expiry, two minutes for receipts).
  }, 360_000);
});
