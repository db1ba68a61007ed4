import type { AppServer } from '../lib/app-server.ts';
import { figure, round, type Figure } from '../lib/figures.ts';
import { runLoad, type LoadResult } from '../lib/load.ts';
import { captureRoutes, startRawServer } from '../lib/raw-server.ts';

export const HTTP_CONNECTIONS = 50;

export interface HttpReadsOptions {
  durationSeconds: number;
  warmupSeconds: number;
}

/**
 * GET of the product list and of one product from the shop, and the same bytes from a
 * bare node:http server in its own process: the ratio is how much of the platform's
 * limit the shop keeps. Both run at 50 connections with one autocannon process each.
 */
export async function benchHttpReads(app: AppServer, productId: string, options: HttpReadsOptions) {
  const paths = { list: '/api/products', product: `/api/products/${encodeURIComponent(productId)}` };
  const raw = await startRawServer(await captureRoutes(app.base, Object.values(paths)));
  const runs: Record<string, { app: LoadResult; raw: LoadResult; bytes: number }> = {};
  const figures: Figure[] = [];
  try {
    for (const [name, url] of Object.entries(paths)) {
      const load = (base: string) =>
        runLoad({ url: `${base}${url}`, connections: HTTP_CONNECTIONS, durationSeconds: options.durationSeconds, warmupSeconds: options.warmupSeconds });
      const bytes = Buffer.byteLength(await (await fetch(`${app.base}${url}`, { headers: { 'accept-encoding': 'identity' } })).text());
      const shop = await load(app.base);
      const platform = await load(raw.base);
      runs[name] = { app: shop, raw: platform, bytes };
      const label = name === 'list' ? 'GET /api/products' : 'GET /api/products/:id';
      const bad = shop.requests - shop.ok + shop.errors + shop.timeouts;
      figures.push(
        figure(`http.${name}.rps`, `${label}: shop req/s`, round(shop.okPerSecond, 0), 'req/s', undefined, bad > 0 ? `${bad} failed or non-2xx responses` : `${bytes} bytes per response`),
        figure(`http.${name}.rawRps`, `${label}: raw node:http req/s`, round(platform.okPerSecond, 0), 'req/s'),
        figure(`http.${name}.ratio`, `${label}: shop / raw`, round(shop.okPerSecond / platform.okPerSecond, 3), '', { op: '>=', value: 0.8 }),
        figure(`http.${name}.p99`, `${label}: p99 at ${HTTP_CONNECTIONS} connections`, shop.latencyMs.p99, 'ms', { op: '<', value: 25 }),
      );
    }
  } finally {
    await raw.stop();
  }
  return { figures, runs };
}
