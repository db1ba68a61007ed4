import fs from 'node:fs';
import path from 'node:path';
import autocannon, { type Request, type Result } from 'autocannon';
import { connectDatabase } from '../../src/db/client.ts';
import { freePort, runningEmbeddedConnection } from '../../src/db/embedded.ts';
import { contentSeeder, runSeeds } from '../../src/seed/seed.ts';
import { grantCredits } from '../../src/wallet/wallet.commands.ts';
import { testConfig } from '../database.ts';
import { startSmtpPeer } from '../smtp.ts';
import { newTestDataDir } from '../temp-data-dirs.ts';
import { random, seedShop, signInAll, type Shopper } from './money-load.ts';
import { repoRoot, spawnServer, stopServer, waitUntilReady } from './processes.ts';

/**
 * `npm run soak`: one production-mode server on a fresh embedded DATA_DIR, held at a fixed
 * request rate of mixed traffic (browse, quote, wallet and card checkouts) by autocannon
 * for SOAK_SECONDS (default 600), with SSE connections open throughout. Every window it
 * records error rate, p99 latency and the server's RSS; the figures of the first and last
 * windows go into docs/reliability.md. Exits non-zero when a bound is broken.
 */
const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const SSE_CONNECTIONS = Number(process.env.SOAK_SSE ?? 50);
const WINDOW = SECONDS <= 120 ? Math.max(5, Math.floor(SECONDS / 2)) : 60;
const WINDOWS = Math.max(1, Math.round(SECONDS / WINDOW));
// Requests per second of each kind (a checkout flow is two requests).
const RATES = { browse: 20, quote: 8, walletCheckout: 2, cardCheckout: 2 };
const BOUNDS = { errorRate: 0.01, p99Ms: 1000, rssGrowth: (start: number) => start * 1.25 + 32 * 1024 * 1024 };

const contact = { name: 'Soak Shopper', email: 'soak@example.org', phone: '' };
const shipping = { name: 'Soak Shopper', line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };

function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

interface SseStream {
  ended: boolean;
  chunks: number;
  close(): void;
}

async function openStream(url: string, token: string): Promise<SseStream> {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` }, signal: controller.signal });
  if (response.status !== 200) throw new Error(`SSE answered ${response.status}`);
  const stream: SseStream = { ended: false, chunks: 0, close: () => controller.abort() };
  void (async () => {
    try {
      for await (const _chunk of response.body!) stream.chunks += 1;
    } catch {
      // aborted at the end
    }
    stream.ended = true;
  })();
  return stream;
}

function traffic(base: string, shoppers: Shopper[], productIds: string[]) {
  const rng = random(99);
  let flow = 0;
  const json = (token: string) => ({ 'content-type': 'application/json', authorization: `Bearer ${token}` });
  const randomItems = () => [{ id: productIds[rng.int(productIds.length)]!, qty: 1 + rng.int(2) }];
  const shopper = () => shoppers[rng.int(shoppers.length)]!;

  const browse: Request[] = [
    { method: 'GET', path: '/api/products' },
    { method: 'GET', path: `/api/products/${productIds[0]}` },
    { method: 'GET', path: '/api/pages/home' },
    { method: 'POST', path: '/fn/listHistory', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ data: { limit: 20 } }) },
    { method: 'GET', path: '/api/site' },
  ];
  const quote: Request[] = [
    {
      method: 'POST',
      path: '/fn/quoteCheckout',
      setupRequest: (request) => ({ ...request, headers: json(shopper().token), body: JSON.stringify({ data: { items: randomItems(), useWallet: rng.chance(0.5) } }) }),
    },
  ];
  const walletCheckout: Request[] = [
    {
      method: 'POST',
      path: '/fn/quoteCheckout',
      setupRequest: (request, context) => {
        context.token = shopper().token;
        context.items = randomItems();
        return { ...request, headers: json(context.token as string), body: JSON.stringify({ data: { items: context.items, useWallet: true } }) };
      },
      onResponse: (status, body, context) => {
        context.quote = status === 200 ? (JSON.parse(body) as { data: unknown }).data : null;
      },
    },
    {
      method: 'POST',
      path: '/fn/completeWalletOnlyOrderStreetFlavor',
      setupRequest: (request, context) => {
        if (!context.quote) return undefined;
        const data = { items: context.items, contact, shipping, quote: context.quote, checkoutId: `soak-wallet-${(flow += 1)}` };
        return { ...request, headers: json(context.token as string), body: JSON.stringify({ data }) };
      },
    },
  ];
  const cardCheckout: Request[] = [
    {
      method: 'POST',
      path: '/fn/createPaymentLinkStreetFlavorMerch',
      setupRequest: (request, context) => {
        context.token = shopper().token;
        const data = { items: randomItems(), useWallet: false, contact, shipping, checkoutId: `soak-card-${(flow += 1)}` };
        return { ...request, headers: json(context.token as string), body: JSON.stringify({ data }) };
      },
      onResponse: (status, body, context) => {
        context.url = status === 200 ? (JSON.parse(body) as { data: { url: string } }).data.url : null;
      },
    },
    {
      method: 'POST',
      path: '/pay',
      setupRequest: (request, context) => {
        if (!context.url) return undefined;
        return {
          ...request,
          path: context.url as string,
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${context.token as string}` },
          body: 'card=4242424242424242',
        };
      },
    },
  ];
  const run = (requests: Request[], rate: number, connections: number, duration: number) =>
    autocannon({ url: base, connections, duration, overallRate: rate, timeout: 30, requests });
  return (duration: number) =>
    Promise.all([
      run(browse, RATES.browse, 4, duration),
      run(quote, RATES.quote, 2, duration),
      run(walletCheckout, RATES.walletCheckout * 2, 2, duration),
      run(cardCheckout, RATES.cardCheckout * 2, 2, duration),
    ]);
}

interface WindowFigures {
  requests: number;
  errors: number;
  p99: number;
  rss: number;
  statuses: Record<string, number>;
}

/** Errors: broken connections, time-outs and any answer but 200 (and the 302 of a payment). */
function figures(results: Result[], rss: number): WindowFigures {
  const statuses: Record<string, number> = {};
  let errors = 0;
  let requests = 0;
  for (const result of results) {
    errors += result.errors + result.timeouts;
    for (const [code, { count }] of Object.entries(result.statusCodeStats)) {
      statuses[code] = (statuses[code] ?? 0) + count;
      requests += count;
      if (code !== '200' && code !== '302') errors += count;
    }
  }
  return { requests, errors, p99: Math.max(...results.map((r) => r.latency.p99)), rss, statuses };
}

async function main() {
  const dataDir = newTestDataDir('soak');
  const smtp = await startSmtpPeer();
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const server = await spawnServer(
    {
      NODE_ENV: 'production',
      PAYMENT_PROVIDER: 'local',
      ALLOW_TEST_PAYMENTS: '1',
      DATA_DIR: dataDir,
      SMTP_URL: smtp.url,
      AUTH_SECRET: 'soak-secret-'.repeat(4),
      LOG_LEVEL: 'warn',
      PUBLIC_URL: publicUrl,
      TRUSTED_PROXIES: '127.0.0.1',
    },
    port,
  );
  const streams: SseStream[] = [];
  try {
    await waitUntilReady(server);
    const database = connectDatabase(runningEmbeddedConnection(dataDir)!, { max: 2 });
    // Production mode seeds nothing: the label's pages come from its content folder, as at a real launch.
    await runSeeds(database.db, { config: testConfig(), log: () => undefined }, [contentSeeder]);
    const { emails, productIds } = await seedShop(database.db, 20, 5);
    for (const email of emails) await grantCredits(database.db, email, String(Math.ceil(SECONDS * 6)), `soak-${email}`);
    await database.close();
    const shoppers = await signInAll(server.base, publicUrl, emails);
    for (let i = 0; i < SSE_CONNECTIONS; i += 1) streams.push(await openStream(`${server.base}/api/live`, shoppers[i % shoppers.length]!.token));

    const run = traffic(server.base, shoppers, productIds);
    const windows: WindowFigures[] = [];
    const rssBefore = rssOf(server.child.pid!);
    console.log(`soak: ${SECONDS} s in ${WINDOWS} windows of ${WINDOW} s, ${SSE_CONNECTIONS} SSE connections, server RSS ${mib(rssBefore)} before load`);
    for (let w = 0; w < WINDOWS; w += 1) {
      const results = await run(WINDOW);
      const window = figures(results, rssOf(server.child.pid!));
      windows.push(window);
      console.log(
        `  window ${w + 1}/${WINDOWS}: ${window.requests} requests, ${window.errors} errors, p99 ${window.p99} ms, RSS ${mib(window.rss)}, statuses ${JSON.stringify(window.statuses)}`,
      );
    }
    const sseOpen = streams.filter((s) => !s.ended).length;
    const first = windows[0]!;
    const last = windows.at(-1)!;
    const all = windows.reduce((sum, w) => ({ requests: sum.requests + w.requests, errors: sum.errors + w.errors }), { requests: 0, errors: 0 });
    const errorRate = all.errors / Math.max(1, all.requests);
    const problems = [
      errorRate > BOUNDS.errorRate ? `error rate ${(errorRate * 100).toFixed(2)}% > ${BOUNDS.errorRate * 100}%` : '',
      last.p99 > BOUNDS.p99Ms ? `p99 ${last.p99} ms > ${BOUNDS.p99Ms} ms in the last window` : '',
      last.rss > BOUNDS.rssGrowth(first.rss) ? `RSS grew from ${mib(first.rss)} to ${mib(last.rss)}` : '',
      sseOpen < SSE_CONNECTIONS ? `${SSE_CONNECTIONS - sseOpen} SSE connections dropped` : '',
    ].filter(Boolean);

    const rate = Object.values(RATES).reduce((a, b) => a + b, 0) + RATES.walletCheckout + RATES.cardCheckout;
    const report = [
      `Last run: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, \`SOAK_SECONDS=${SECONDS} npm run soak\` (${WINDOWS} windows of ${WINDOW} s; ${rate} requests/s offered: browse ${RATES.browse}, quote ${RATES.quote}, wallet checkout ${RATES.walletCheckout} and card checkout ${RATES.cardCheckout} flows/s of two requests each; ${SSE_CONNECTIONS} SSE connections).`,
      '',
      '| | first window | last window | whole run |',
      '|---|---|---|---|',
      `| requests | ${first.requests} | ${last.requests} | ${all.requests} |`,
      `| errors (not 200/302, broken, timed out) | ${first.errors} | ${last.errors} | ${all.errors} (${(errorRate * 100).toFixed(2)}%) |`,
      `| p99 latency | ${first.p99} ms | ${last.p99} ms | max ${Math.max(...windows.map((w) => w.p99))} ms |`,
      `| server RSS at the end of the window | ${mib(first.rss)} | ${mib(last.rss)} | before load ${mib(rssBefore)} |`,
      `| SSE connections open | ${SSE_CONNECTIONS} | ${sseOpen} | |`,
      '',
      `Bounds: error rate ≤ ${BOUNDS.errorRate * 100}%, last-window p99 ≤ ${BOUNDS.p99Ms} ms, last RSS ≤ 1.25 × first-window RSS + 32 MiB, every SSE connection still open. Result: ${problems.length === 0 ? '**held**' : `**broken**: ${problems.join('; ')}`}.`,
    ].join('\n');
    console.log(`\n${report}\n`);
    writeReport(report);
    process.exitCode = problems.length === 0 ? 0 : 1;
  } finally {
    for (const stream of streams) stream.close();
    await stopServer(server);
    await smtp.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Replaces the soak section of docs/reliability.md with this run's figures. */
function writeReport(report: string) {
  const file = path.join(repoRoot, 'docs/reliability.md');
  const start = '<!-- soak:start -->';
  const end = '<!-- soak:end -->';
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  if (!text.includes(start) || !text.includes(end)) {
    console.log(`(docs/reliability.md has no ${start} … ${end} section: figures not written)`);
    return;
  }
  fs.writeFileSync(file, `${text.slice(0, text.indexOf(start) + start.length)}\n${report}\n${text.slice(text.indexOf(end))}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
