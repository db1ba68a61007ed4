import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/database.ts';
import { freePort } from './embedded.ts';
import { connectDatabase, type Database } from './client.ts';
import { oncePerOutage, withoutConnectRetry } from './availability.ts';
import { DATABASE_AWAY_MESSAGE } from '../http/error-handler.ts';

/**
 * A PostgreSQL that goes away for a moment (issue 40 item 18), played by a TCP proxy in front
 * of the test database: down, it refuses new connections and cuts the open ones, as a restart
 * does; up again on the same port.
 */
function outageProxy(target: { host: string; port: number }, port: number) {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  const up = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(target.port, target.host);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => undefined);
        }
        client.pipe(upstream).pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      server.listen(port, '127.0.0.1', () => resolve());
    });
  const down = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server!.close(() => resolve());
    });
  return { up, down };
}

let real: TestDatabase;
let proxied: Database;
let proxy: ReturnType<typeof outageProxy>;
let shop: TestApp;

beforeAll(async () => {
  real = await createTestDatabase();
  const url = new URL(real.connectionString);
  const port = await freePort();
  proxy = outageProxy({ host: url.hostname, port: Number(url.port) }, port);
  await proxy.up();
  url.port = String(port);
  proxied = connectDatabase(url.href, { max: 4 });
  shop = await startTestApp({ database: { ...real, db: proxied.db, pool: proxied.pool } });
});

afterAll(async () => {
  await shop?.close();
  await proxied?.close();
  await real?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the database away for a moment (issue 40 item 18)', () => {
  it('a query that needs a new connection waits through a short outage and succeeds; a readiness check does not wait', async () => {
    await proxied.pool.query('SELECT 1');
    await proxy.down();
    // The pool drops the connections the outage cut (PostgreSQL tells idle ones it is going away).
    await sleep(100);
    const started = Date.now();
    const waiting = proxied.pool.query<{ n: number }>('SELECT 2 AS n');
    waiting.catch(() => undefined);
    const probe = await withoutConnectRetry(() =>
      proxied.pool.query('SELECT 3').then(
        () => 'answered',
        () => 'refused',
      ),
    );
    expect(probe).toBe('refused');
    await sleep(700);
    await proxy.up();
    expect((await waiting).rows[0]!.n).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(700);
  });

  it('requests during a restart get their answer or a 503 with Retry-After, never a 500', async () => {
    const statuses: Record<string, number> = {};
    let retryAfterMissing = 0;
    const read = async () => {
      const response = await fetch(`${shop.baseUrl}/fn/listCategories`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"data":null}' });
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      if (response.status === 503) {
        const body = (await response.json()) as { error: { message: string } };
        expect(body.error.message).toBe(DATABASE_AWAY_MESSAGE);
        if (response.headers.get('retry-after') !== '2') retryAfterMissing += 1;
      } else await response.arrayBuffer();
    };
    // Reads before, during and after an outage of 800 ms.
    const load = (async () => {
      const deadline = Date.now() + 2500;
      while (Date.now() < deadline) await Promise.all(Array.from({ length: 4 }, read));
    })();
    await sleep(300);
    await proxy.down();
    await sleep(800);
    await proxy.up();
    await load;
    expect(statuses['500'] ?? 0, JSON.stringify(statuses)).toBe(0);
    expect(retryAfterMissing).toBe(0);
    expect(statuses['200'] ?? 0).toBeGreaterThan(0);
    // After it, every read is answered.
    await read();
    expect(statuses['200']).toBeGreaterThan(0);
  });

  it('tells one line per outage, not one per request', () => {
    const lines: unknown[] = [];
    const note = oncePerOutage((error) => lines.push(error), 1000);
    const realNow = Date.now;
    let now = 10_000;
    Date.now = () => now;
    try {
      for (let i = 0; i < 50; i += 1) {
        note(new Error('refused'));
        now += 10;
      }
      expect(lines).toHaveLength(1);
      now += 5000;
      note(new Error('refused again'));
      expect(lines).toHaveLength(2);
    } finally {
      Date.now = realNow;
    }
  });
});
