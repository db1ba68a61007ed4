import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Config } from '../config.ts';
import { errorBody } from '../http/error-handler.ts';
import { defaultFigureQueries, readShopFigures, type ShopFigureQueries, type ShopFigures } from './metrics.service.ts';

/**
 * Prometheus metrics (issue 25 item 5, decision 040), with prom-client. Per process: HTTP
 * latency by route, server errors, the database pool, job queue errors, open live streams,
 * Node's own figures. Shop-wide, from the database (metrics.service.ts): job queue depth and
 * failures, payments by outcome, failed refunds, checkouts needing attention, stock
 * invariant breaks. Never public: served on METRICS_PORT (a port of its own) and, with
 * METRICS_TOKEN, at GET /metrics of the shop's port to a bearer of that token only.
 */
export interface ShopMetrics {
  registry: Registry;
  /** Counts an error of the job queue (pg-boss) in this process. */
  jobQueueError(): void;
  /** Answers to this request are timed; `/api/live` streams are counted while open. */
  register(app: FastifyInstance): void;
}

export interface MetricsSources {
  pool: pg.Pool;
  /** Whether the live hub's LISTEN connection is up. */
  liveListening: () => boolean;
  /** Replaces the queries of shop-wide figures (tests; an area that owns the tables). */
  queries?: Partial<ShopFigureQueries>;
  /** Tells about a figure that could not be read (logged by the caller). */
  onCollectError?: (figure: string, error: unknown) => void;
}

/** Shop-wide figures are read at most this often per process, however many scrape. */
export const FIGURES_TTL_MS = 10_000;

// Seconds: from a cached catalogue read (~1 ms) to a slow payment provider call.
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics(sources: MetricsSources): ShopMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const latency = new Histogram({
    name: 'storefront_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const serverErrors = new Counter({
    name: 'storefront_http_server_errors_total',
    help: 'Answers with a 5xx status, by route pattern.',
    labelNames: ['route'] as const,
    registers,
  });
  const liveConnections = new Gauge({ name: 'storefront_live_connections', help: 'Live update streams (GET /api/live) open on this process.', registers });
  new Gauge({
    name: 'storefront_live_listening',
    help: '1 while this process hears database changes (its LISTEN connection is up), else 0.',
    registers,
    collect() {
      this.set(sources.liveListening() ? 1 : 0);
    },
  });
  const jobQueueErrors = new Counter({ name: 'storefront_job_queue_errors_total', help: 'Errors the job queue (pg-boss) reported in this process.', registers });
  // Registered before every figure read from the database: prom-client collects in this order,
  // so the pool is read before the scrape's own queries take connections (issue 40 item 13:
  // read after them, an idle shop showed requests waiting on every scrape).
  new Gauge({
    name: 'storefront_db_pool_connections',
    help: "This process's database pool: connections open (total), idle, and requests waiting for one (waiting).",
    labelNames: ['state'] as const,
    registers,
    collect() {
      this.set({ state: 'total' }, sources.pool.totalCount);
      this.set({ state: 'idle' }, sources.pool.idleCount);
      this.set({ state: 'waiting' }, sources.pool.waitingCount);
    },
  });

  const collectErrors = new Counter({
    name: 'storefront_metrics_collect_errors_total',
    help: 'Shop-wide figures that could not be read from the database, by figure.',
    labelNames: ['figure'] as const,
    registers,
    // Read before it is written out: this scrape's failures are in this scrape.
    async collect() {
      await figures();
    },
  });
  const queries: ShopFigureQueries = { ...defaultFigureQueries, ...sources.queries };
  let cached: { at: number; figures: Promise<Partial<ShopFigures>> } | undefined;
  const figures = () => {
    const now = Date.now();
    if (!cached || now - cached.at >= FIGURES_TTL_MS) {
      cached = {
        at: now,
        figures: readShopFigures(sources.pool, queries, (figure, error) => {
          collectErrors.inc({ figure });
          sources.onCollectError?.(figure, error);
        }),
      };
    }
    return cached.figures;
  };

  new Gauge({
    name: 'storefront_job_queue_jobs',
    help: 'Jobs of the shared queue by queue and state: created and retry (waiting and due), scheduled (waiting, not due yet), active (running), failed (gave up). The same on every instance.',
    labelNames: ['queue', 'state'] as const,
    registers,
    async collect() {
      const jobs = (await figures()).jobs;
      if (!jobs) return;
      this.reset();
      for (const { queue, state, count } of jobs) this.set({ queue, state }, count);
    },
  });
  new Gauge({
    name: 'storefront_checkouts',
    help: 'Checkouts (card payments) by status: paid, failed, expired, cancelled, refunded (paid too late), pending. Shop-wide.',
    labelNames: ['status'] as const,
    registers,
    async collect() {
      const rows = (await figures()).checkoutsByStatus;
      if (!rows) return;
      this.reset();
      for (const { status, count } of rows) this.set({ status }, count);
    },
  });
  new Gauge({
    name: 'storefront_refunds_failed',
    help: 'Refunds the payment provider refused and nobody has settled: order desk refunds (kind=order) and card refunds of late payments (kind=late_payment). Shop-wide.',
    labelNames: ['kind'] as const,
    registers,
    async collect() {
      const rows = (await figures()).refundsFailed;
      if (!rows) return;
      for (const { kind, count } of rows) this.set({ kind }, count);
    },
  });
  new Gauge({
    name: 'storefront_checkouts_needing_attention',
    help: 'Checkouts a person must look at: pending an hour after their payment session ended, or paid too late with a card refund the provider refused. Shop-wide.',
    registers,
    async collect() {
      // NaN, never a reassuring 0, when it could not be read (storefront_metrics_collect_errors_total says why).
      this.set((await figures()).checkoutsNeedingAttention ?? NaN);
    },
  });
  new Gauge({
    name: 'storefront_stock_invariant_breaks',
    help: 'Variants whose held stock is not exactly what their pending card checkouts set aside (or an unlimited variant holding stock). Shop-wide; should be 0.',
    registers,
    async collect() {
      // NaN, never a reassuring 0, when it could not be read (storefront_metrics_collect_errors_total says why).
      this.set((await figures()).stockInvariantBreaks ?? NaN);
    },
  });

  return {
    registry,
    jobQueueError: () => jobQueueErrors.inc(),
    register(app) {
      app.addHook('onRequest', (request, reply, done) => {
        if (request.routeOptions.url === '/api/live') {
          liveConnections.inc();
          reply.raw.once('close', () => liveConnections.dec());
        }
        done();
      });
      app.addHook('onResponse', (request, reply, done) => {
        // The route's pattern, never the URL: one series per route, not per product id.
        const route = request.routeOptions.url ?? '(no route)';
        latency.observe({ method: request.method, route, status_code: String(reply.statusCode) }, reply.elapsedTime / 1000);
        if (reply.statusCode >= 500) serverErrors.inc({ route });
        done();
      });
    },
  };
}

function tokenMatches(header: string | undefined, token: string): boolean {
  if (!header?.startsWith('Bearer ')) return false;
  const given = Buffer.from(header.slice('Bearer '.length));
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * GET /metrics on the shop's own port: only with METRICS_TOKEN set, and only to a bearer of
 * it (401 otherwise); without the setting, 404 as for any unknown address (never the shop's
 * page). The separate METRICS_PORT is the other way in (startMetricsServer).
 */
export function metricsRoute(config: Pick<Config, 'METRICS_TOKEN'>, metrics: ShopMetrics) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const token = config.METRICS_TOKEN;
    if (!token) return reply.status(404).send(errorBody('not-found', 'Nothing at GET /metrics.'));
    if (!tokenMatches(request.headers.authorization, token)) {
      return reply.status(401).header('www-authenticate', 'Bearer').send(errorBody('unauthenticated', 'GET /metrics needs the METRICS_TOKEN as a bearer token.'));
    }
    const text = await metrics.registry.metrics();
    return reply.header('cache-control', 'no-store').type(metrics.registry.contentType).send(text);
  };
}

/**
 * The metrics on a port of their own (METRICS_PORT), on METRICS_HOST (this host only unless
 * named: issue 40 item 10), for a scraper on the same host, or on the network with
 * METRICS_TOKEN, which is then asked there too. Any other path: 404.
 */
export async function startMetricsServer(config: Pick<Config, 'METRICS_PORT' | 'METRICS_TOKEN' | 'METRICS_HOST'>, metrics: ShopMetrics): Promise<http.Server | null> {
  if (config.METRICS_PORT === undefined) return null;
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Only GET /metrics is served here.\n');
      return;
    }
    if (config.METRICS_TOKEN && !tokenMatches(request.headers.authorization, config.METRICS_TOKEN)) {
      response.writeHead(401, { 'content-type': 'text/plain; charset=utf-8', 'www-authenticate': 'Bearer' }).end('The METRICS_TOKEN is needed as a bearer token.\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' }).end(text),
      (error: unknown) => response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`The metrics could not be collected: ${String(error)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.METRICS_PORT, config.METRICS_HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
