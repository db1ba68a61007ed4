import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type pg from 'pg';
import { collectDefaultMetrics, Counter, Gauge, Registry, type Metric } from 'prom-client';
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

  const latency = new RouteLatency('storefront_http_request_duration_seconds', 'Time to answer an HTTP request, by method, route pattern and status code.', LATENCY_BUCKETS);
  registry.registerMetric(latency as unknown as Metric);
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
      // Each route times its own answers, by its pattern, never the URL: one series per route,
      // not per product id. The route is known when it is added, so a request pays no look-up
      // of its route or of its series' labels (issue 38: they were most of the metrics' cost).
      const timer = (route: string) => {
        const seriesOf = latency.route(route);
        return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
          const status = reply.statusCode;
          seriesOf(request.method, status).observe(reply.elapsedTime / 1000);
          if (status >= 500) serverErrors.inc({ route });
          done();
        };
      };
      const countLiveStream = (_request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
        liveConnections.inc();
        reply.raw.once('close', () => liveConnections.dec());
        done();
      };
      app.addHook('onRoute', (route) => {
        route.onResponse = [...hooksOf(route.onResponse), timer(route.url)];
        if (route.url === '/api/live') route.onRequest = [...hooksOf(route.onRequest), countLiveStream];
      });
      // An answer no route gave (the not-found handler's): counted once for all of them.
      const noRoute = timer('(no route)');
      app.addHook('onResponse', (request, reply, done) => (request.is404 ? noRoute(request, reply, done) : done()));
    },
  };
}

/** A route option's hooks (none, one, or a list) as a list. */
function hooksOf<T>(hooks: T | T[] | undefined): T[] {
  return hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
}

/** One series of the latency histogram: counts per bucket (not cumulative; the last is +Inf), sum, count. */
class LatencySeries {
  readonly labels: Readonly<Record<'method' | 'route' | 'status_code', string>>;
  private readonly bounds: readonly number[];
  readonly counts: number[];
  sum = 0;
  count = 0;
  constructor(labels: LatencySeries['labels'], bounds: readonly number[]) {
    this.labels = labels;
    this.bounds = bounds;
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }
  observe(seconds: number) {
    let bucket = 0;
    while (bucket < this.bounds.length && seconds > this.bounds[bucket]!) bucket += 1;
    this.counts[bucket]! += 1;
    this.sum += seconds;
    this.count += 1;
  }
}

/**
 * The HTTP latency histogram, in prom-client's registry and text format, but kept per route:
 * prom-client's Histogram validates and hashes the label values of every observation, which
 * costs a cached read more than the rest of its metrics (issue 38). Here a route's hook holds
 * its series, found by method and status with two Map look-ups, and an observation is a few
 * additions; the labels are written out only when scraped.
 */
export class RouteLatency {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly name: string;
  readonly help: string;
  private readonly bounds: readonly number[];
  private readonly series: LatencySeries[] = [];
  constructor(name: string, help: string, bounds: readonly number[]) {
    this.name = name;
    this.help = help;
    this.bounds = bounds;
  }

  /** The series of one route pattern, by method and status code, made on first use. */
  route(route: string): (method: string, status: number) => LatencySeries {
    const byMethod = new Map<string, Map<number, LatencySeries>>();
    return (method, status) => {
      let byStatus = byMethod.get(method);
      if (!byStatus) byMethod.set(method, (byStatus = new Map()));
      let series = byStatus.get(status);
      if (!series) {
        series = new LatencySeries({ method, route, status_code: String(status) }, this.bounds);
        byStatus.set(status, series);
        this.series.push(series);
      }
      return series;
    };
  }

  /** What prom-client's registry writes out: cumulative buckets, +Inf, sum and count per series. */
  get() {
    const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
    for (const series of this.series) {
      let cumulative = 0;
      series.counts.forEach((count, bucket) => {
        cumulative += count;
        values.push({ metricName: `${this.name}_bucket`, labels: { ...series.labels, le: this.bounds[bucket] ?? '+Inf' }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_sum`, labels: series.labels, value: series.sum });
      values.push({ metricName: `${this.name}_count`, labels: series.labels, value: series.count });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset() {
    for (const series of this.series) {
      series.counts.fill(0);
      series.sum = 0;
      series.count = 0;
    }
  }
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
