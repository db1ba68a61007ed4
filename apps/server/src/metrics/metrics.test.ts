import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { loadConfig } from '../config.ts';
import { freePort } from '../db/embedded.ts';
import { startMetricsServer } from './metrics.ts';

/**
 * Prometheus metrics (issue 25 item 5, decision 040): never the shop's page at /metrics,
 * never public (METRICS_TOKEN on the shop's port, METRICS_PORT apart), and the figures an
 * operator pages on, read from a real database whose rows the test writes.
 */
const TOKEN = 'metrics-token-for-the-test-0123456789';
let shop: TestApp;
let untokened: TestApp;

/** One sample's value from the text format, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || !line.startsWith(name)) continue;
    const match = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((pair) => [pair[1], pair[2]]));
    if (Object.entries(labels).every(([key, value]) => have[key] === value)) return Number(match[3]);
  }
  return undefined;
}

async function scrape(app: TestApp = shop): Promise<string> {
  const response = await app.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.body;
}

beforeAll(async () => {
  // One function that fails as a bug would: a 5xx to count.
  const explode = { name: 'explode', access: 'public' as const, input: z.unknown(), handler: () => Promise.reject(new Error('a bug')) };
  shop = await startTestApp({ config: { env: { METRICS_TOKEN: TOKEN } }, build: { functions: [explode] } });
  untokened = await startTestApp({ listen: false });
});

afterAll(async () => {
  await shop?.close();
  await untokened?.close();
});

describe('GET /metrics on the shop’s port', () => {
  it('without METRICS_TOKEN: 404 as JSON, never the shop’s page', async () => {
    const response = await untokened.app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toMatch(/json/);
    expect(response.body).not.toContain('<html');
  });

  it('with METRICS_TOKEN: 401 without it or with another, the metrics with it', async () => {
    expect((await shop.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
    expect((await shop.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN.slice(1)}x` } })).statusCode).toBe(401);
    expect((await shop.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}x` } })).statusCode).toBe(401);
    const text = await scrape();
    expect(text).toContain('# TYPE storefront_http_request_duration_seconds histogram');
    expect(text).toContain('process_cpu_seconds_total');
  });
});

describe('the separate METRICS_PORT', () => {
  it('listens on this host only in production unless METRICS_HOST names another address, which needs the token (issue 40 item 10)', async () => {
    const port = await freePort();
    const production = {
      NODE_ENV: 'production',
      PUBLIC_URL: 'https://shop.example',
      AUTH_SECRET: 'x'.repeat(32),
      SMTP_URL: 'smtp://mail.example',
      ALLOW_TEST_PAYMENTS: '1',
      PAYMENT_PROVIDER: 'local',
    };
    const config = loadConfig({ ...production, METRICS_PORT: String(port) });
    // The shop listens on every interface in production; the metrics do not.
    expect(config.HOST).toBe('0.0.0.0');
    const server = await startMetricsServer(config, shop.app.metrics);
    try {
      expect((server!.address() as AddressInfo).address).toBe('127.0.0.1');
      expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(200);
      // From this machine's other interfaces (what another host reaches), nothing answers.
      const outside = Object.values(os.networkInterfaces())
        .flat()
        .filter((entry) => entry && entry.family === 'IPv4' && !entry.internal)
        .map((entry) => entry!.address);
      for (const address of outside) await expect(fetch(`http://${address}:${port}/metrics`)).rejects.toThrow();
    } finally {
      server?.close();
    }
    expect(() => loadConfig({ ...production, METRICS_PORT: String(port), METRICS_HOST: '0.0.0.0' })).toThrow(
      /METRICS_HOST: 0\.0\.0\.0 lets other hosts reach METRICS_PORT, so METRICS_TOKEN is required/,
    );
    expect(loadConfig({ ...production, METRICS_PORT: String(port), METRICS_HOST: '0.0.0.0', METRICS_TOKEN: TOKEN }).METRICS_HOST).toBe('0.0.0.0');
  });

  it('serves GET /metrics (asking the token when one is set) and nothing else', async () => {
    const port = await freePort();
    const server = await startMetricsServer({ METRICS_PORT: port, METRICS_TOKEN: TOKEN, METRICS_HOST: '127.0.0.1' }, shop.app.metrics);
    try {
      expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(401);
      const response = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('storefront_db_pool_connections');
      expect((await fetch(`http://127.0.0.1:${port}/home`)).status).toBe(404);
    } finally {
      server?.close();
    }
  });
});

describe('what the metrics say', () => {
  it('counts 5xx answers by route', async () => {
    const failed = await fetch(`${shop.baseUrl}/fn/explode`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ data: {} }) });
    expect(failed.status).toBe(500);
    const text = await scrape();
    expect(sample(text, 'storefront_http_server_errors_total', { route: '/fn/:name' })).toBe(1);
    expect(sample(text, 'storefront_http_request_duration_seconds_count', { route: '/fn/:name', status_code: '500' })).toBe(1);
  });

  it('times requests by route pattern, never by URL', async () => {
    await fetch(`${shop.baseUrl}/api/products/${randomUUID()}`);
    await fetch(`${shop.baseUrl}/api/products/${randomUUID()}`);
    await fetch(`${shop.baseUrl}/healthz`);
    const text = await scrape();
    expect(sample(text, 'storefront_http_request_duration_seconds_count', { route: '/api/products/:id', method: 'GET' })).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'storefront_http_request_duration_seconds_count', { route: '/healthz', status_code: '200' })).toBeGreaterThanOrEqual(1);
    expect(text).not.toMatch(/route="\/api\/products\/[0-9a-f-]{36}"/);
  });

  it('writes each route’s histogram whole: cumulative buckets up to +Inf, sum and count (issue 38: kept per route)', async () => {
    const before = await scrape();
    const count = (text: string) => sample(text, 'storefront_http_request_duration_seconds_count', { route: '/healthz', method: 'GET', status_code: '200' }) ?? 0;
    for (let i = 0; i < 3; i += 1) expect((await fetch(`${shop.baseUrl}/healthz`)).status).toBe(200);
    const missing = await fetch(`${shop.baseUrl}/no/such/file.txt`);
    expect(missing.status).toBe(404);
    const text = await scrape();
    expect(count(text) - count(before)).toBe(3);
    const labels = { route: '/healthz', method: 'GET', status_code: '200' };
    const buckets = ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf'].map((le) =>
      sample(text, 'storefront_http_request_duration_seconds_bucket', { ...labels, le }),
    );
    for (const [i, value] of buckets.entries()) expect(value, `le ${i}`).toBeGreaterThanOrEqual(i === 0 ? 0 : buckets[i - 1]!);
    expect(buckets.at(-1)).toBe(count(text));
    expect(sample(text, 'storefront_http_request_duration_seconds_sum', labels)).toBeGreaterThan(0);
    // An address no route answers: one series for all of them, never the URL.
    expect(sample(text, 'storefront_http_request_duration_seconds_count', { route: '(no route)', status_code: '404' })).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain('/no/such/file.txt');
  });

  it('reports the database pool, the live streams and the job queue', async () => {
    const controller = new AbortController();
    const stream = await fetch(`${shop.baseUrl}/api/live?topics=products`, { signal: controller.signal });
    expect(stream.status).toBe(200);
    const open = await scrape();
    expect(sample(open, 'storefront_live_connections')).toBe(1);
    expect(sample(open, 'storefront_live_listening')).toBe(1);
    expect(sample(open, 'storefront_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
    controller.abort();
    await expect.poll(async () => sample(await scrape(), 'storefront_live_connections'), { timeout: 5000 }).toBe(0);

    // A job that keeps failing: its retries and, once given up, its failure are counted.
    await shop.db.$client.query(
      // Not before an hour from now: the mail worker leaves them alone.
      `INSERT INTO pgboss.job (name, data, state, start_after) VALUES ('send-email', '{}', 'retry', now() + interval '1 hour'), ('send-email', '{}', 'failed', now() + interval '1 hour')`,
    );
    await new Promise((resolve) => setTimeout(resolve, 10_100)); // past the figures' cache
    const jobs = await scrape();
    // Not due for an hour: scheduled, not waiting (issue 40 item 17: the backlog alert counts due jobs only).
    expect(sample(jobs, 'storefront_job_queue_jobs', { queue: 'send-email', state: 'scheduled' })).toBeGreaterThanOrEqual(1);
    expect(sample(jobs, 'storefront_job_queue_jobs', { queue: 'send-email', state: 'failed' })).toBe(1);
  }, 30_000);
});

describe('an idle shop', () => {
  it('shows no request waiting for a database connection: the scrape’s own queries come after the pool is read (issue 40 item 13)', async () => {
    // A pool of 2: the figures' queries (more than 2, at once) would queue, and did show as waiting.
    const idle = await startTestApp({ listen: false, database: { max: 2 }, config: { env: { METRICS_TOKEN: TOKEN } } });
    try {
      const waiting = async () => sample(await scrape(idle), 'storefront_db_pool_connections', { state: 'waiting' });
      // Start-up's own work (the job queue's first polls) done:
      await expect.poll(waiting, { timeout: 20_000, interval: 500 }).toBe(0);
      for (let i = 0; i < 2; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 10_100)); // past the figures' cache: this scrape queries again
        const text = await scrape(idle);
        expect(sample(text, 'storefront_db_pool_connections', { state: 'waiting' })).toBe(0);
        expect(sample(text, 'storefront_checkouts_needing_attention')).toBe(0);
      }
    } finally {
      await idle.close();
    }
  }, 60_000);
});

describe('the money figures, from the database', () => {
  let fresh: TestApp;
  afterAll(async () => {
    await fresh?.close();
  });

  it('payments by outcome, failed refunds, checkouts needing attention and stock invariant breaks', async () => {
    fresh = await startTestApp({ listen: false, config: { env: { METRICS_TOKEN: TOKEN } } });
    const pool = fresh.db.$client;
    const buyer = await fresh.account('payer');
    const productId = randomUUID();
    await pool.query(`INSERT INTO product (id, name, description, price_cents) VALUES ($1, 'Tee', 'A tee', 2500)`, [productId]);
    const variant = (id: string, stock: number | null, held: number) =>
      pool.query(`INSERT INTO product_variant (id, product_id, position, stock, held) VALUES ($1, $2, 0, $3, $4)`, [id, productId, stock, held]);
    await variant(`${productId}-a`, 5, 2); // held 2, and a pending checkout holds 2: fine
    await variant(`${productId}-b`, 5, 1); // held 1, nobody holds it: a break
    await variant(`${productId}-c`, null, 3); // unlimited but holding: a break
    const checkout = (id: string, status: string, expiresAgo: string, items: object[]) =>
      pool.query(
        `INSERT INTO checkout (id, user_id, status, provider, items, contact, shipping, subtotal_cents, shipping_cents, tax_cents, wallet_held_cents, amount_due_cents, charge_cents, expires_at)
         VALUES ($1, $2, $3, 'local', $4, '{}', '{}', 2500, 0, 0, 0, 2500, 2500, now() - $5::interval)`,
        [id, buyer, status, JSON.stringify(items), expiresAgo],
      );
    await checkout('co-holding', 'pending', '-10 minutes', [{ id: productId, variantId: `${productId}-a`, name: 'Tee', qty: 2, unitCents: 2500, stockHeld: true }]);
    await checkout('co-stuck', 'pending', '2 hours', []);
    await checkout('co-paid', 'paid', '1 day', []);
    await checkout('co-failed-1', 'failed', '1 day', []);
    await checkout('co-failed-2', 'failed', '1 day', []);
    await checkout('co-late', 'refunded', '1 day', []);
    await pool.query(
      `INSERT INTO payment_refund (checkout_id, provider, payment_reference, amount_cents, reason, failure) VALUES ('co-late', 'local', 'pi_x', 2500, 'stock gone', 'Refused.')`,
    );

    // And one finding of the reconciler still open (one resolved does not count).
    await pool.query(`INSERT INTO needs_attention (kind, subject, detail) VALUES ('stock-sold', 'v1', 'counts differ'), ('checkout-stuck', 'c1', 'done')`);
    await pool.query(`UPDATE needs_attention SET resolved_at = now() WHERE subject = 'c1'`);

    const text = await scrape(fresh);
    expect(sample(text, 'storefront_checkouts', { status: 'failed' })).toBe(2);
    expect(sample(text, 'storefront_checkouts', { status: 'paid' })).toBe(1);
    expect(sample(text, 'storefront_checkouts', { status: 'pending' })).toBe(2);
    expect(sample(text, 'storefront_refunds_failed', { kind: 'late_payment' })).toBe(1);
    expect(sample(text, 'storefront_refunds_failed', { kind: 'order' })).toBe(0);
    // The open finding, the checkout pending two hours past its expiry, and the refused late-payment refund.
    expect(sample(text, 'storefront_checkouts_needing_attention')).toBe(3);
    expect(sample(text, 'storefront_stock_invariant_breaks')).toBe(2);
    expect(sample(text, 'storefront_metrics_collect_errors_total')).toBeUndefined();
  });

  it('a figure that cannot be read is counted and left out; the others still answer', async () => {
    const broken = await startTestApp({
      listen: false,
      config: { env: { METRICS_TOKEN: TOKEN } },
      build: {
        metricsQueries: {
          stockInvariantBreaks: () => Promise.reject(new Error('no such table')),
        },
      },
    });
    try {
      const text = await scrape(broken);
      expect(sample(text, 'storefront_metrics_collect_errors_total', { figure: 'stockInvariantBreaks' })).toBe(1);
      expect(sample(text, 'storefront_stock_invariant_breaks')).toBeNaN();
      expect(sample(text, 'storefront_checkouts_needing_attention')).toBe(0);
    } finally {
      await broken.close();
    }
  });
});
