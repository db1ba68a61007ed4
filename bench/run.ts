import type { Product } from '@storefront/domain/catalog.ts';
// `npm run bench`: builds the web app if needed, starts the real server on a fresh
// embedded database, seeds a realistic catalogue, measures every figure of issue 8 next
// to its target, writes bench/results/latest.json (and latest.md) and prints the table.
// Options: --quick (short runs, smaller scale: for working on the bench itself),
//          --skip=http,checkout,hotrow,live,digital,frontend,scale,drop,mail (leave sections out),
//          --only=drop (run only the named sections, comma-separated),
//          --land (record this run's figures as the landed ones in bench/results/landed.json,
//          committed: every later run prints its change against them and flags a guarded
//          ratio that fell by more than 10%; bench/lib/landed.ts).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root, startAppServer, type AppServer } from './lib/app-server.ts';
import { ADMIN, callFunction, SHOPPER, signIn, signInCookie } from './lib/client.ts';
import { failedFigure, markdownTable, textTable, type Figure } from './lib/figures.ts';
import { compareWithLanded, formatChange, landFigures, parseLanded, regressionSummary } from './lib/landed.ts';
import { benchCheckout } from './sections/checkout.ts';
import { benchDigital } from './sections/digital.ts';
import { benchDrop } from './sections/drop.ts';
import { benchFirstVisits } from './sections/first-visits.ts';
import { benchBundles, benchLighthouse, checkDelivery } from './sections/frontend.ts';
import { benchHotRow } from './sections/hot-row.ts';
import { benchHttpReads } from './sections/http-reads.ts';
import { benchLiveFanOut } from './sections/live.ts';
import { benchMail } from './sections/mail.ts';
import { benchScale } from './sections/scale.ts';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const land = args.includes('--land');
const listArg = (name: string) => new Set((args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? '').split(',').filter(Boolean));
const SECTIONS = ['http', 'checkout', 'hotrow', 'live', 'digital', 'frontend', 'scale', 'drop', 'mail'];
const only = listArg('only');
const unknown = [...only, ...listArg('skip')].filter((name) => !SECTIONS.includes(name));
if (unknown.length > 0) throw new Error(`Unknown bench section(s): ${unknown.join(', ')} (sections: ${SECTIONS.join(', ')})`);
const skip = only.size > 0 ? new Set(SECTIONS.filter((name) => !only.has(name))) : listArg('skip');
/** The sections that share the one server on the embedded database (drop starts its own cluster). */
const SHARED_SERVER_SECTIONS = SECTIONS.filter((name) => name !== 'drop' && name !== 'mail');
const resultsDir = path.join(root, 'bench/results');
/** The figures of the last landed run (committed; the rest of bench/results/ is git-ignored). */
const landedFile = path.join(resultsDir, 'landed.json');
/** A record label's shop: the 12 seeded samples and this many more releases. */
const CATALOG_SIZE = 60;

// The quick and the full settings side by side, the same shape on purpose (duplicates lists them as a pair).
const settings = quick
  ? {
      lighthouse: { runs: 1 },
      http: { rounds: 1, durationSeconds: 3, warmupSeconds: 1 },
      checkout: { durationSeconds: 3, warmupSeconds: 1 },
      live: { clients: 200, rounds: 3 },
      digital: { seconds: 10, downloads: 20 },
      scale: {
        products: 2000,
        orders: 50_000,
        shopperOrders: 2000,
        users: 200,
        connections: 10,
        rate: 100,
        durationSeconds: 3,
        warmupSeconds: 1,
        saturateSeconds: 2,
        bareRuns: 100,
      },
      drop: { fans: 2000, units: 200, maxAdmitted: 50, workers: 2, joinConcurrency: 100, saleTimeoutSeconds: 150 },
      mail: { fans: 2000, largeFans: 10_000, concurrency: 50 },
    }
  : {
      lighthouse: { runs: 3 },
      http: { rounds: 3, durationSeconds: 8, warmupSeconds: 2 },
      checkout: { durationSeconds: 10, warmupSeconds: 2 },
      live: { clients: 1000, rounds: 10 },
      digital: { seconds: 60, downloads: 50 },
      scale: {
        products: 10_000,
        orders: 1_000_000,
        shopperOrders: 20_000,
        users: 2000,
        connections: 10,
        rate: 100,
        durationSeconds: 10,
        warmupSeconds: 2,
        saturateSeconds: 5,
        bareRuns: 500,
      },
      drop: { fans: 20_000, units: 2000, maxAdmitted: 400, workers: 4, joinConcurrency: 200, saleTimeoutSeconds: 300 },
      mail: { fans: 20_000, largeFans: 100_000, concurrency: 50 },
    };

const started = Date.now();
const log = (line: string) => console.log(`[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`);

function buildIfNeeded() {
  // The same staleness rule as `npm start` (scripts/build.mjs: a content hash), then the production build.
  const stale = spawnSync(process.execPath, ['-e', "import('./scripts/build.mjs').then((m) => process.exit(m.isStale('web') || m.isStale('server') ? 1 : 0))"], { cwd: root });
  if (stale.status === 0) {
    log('web build is up to date');
    return;
  }
  log('building the web app (npm run build)');
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (build.status !== 0) throw new Error('npm run build failed');
}

/** Every active product, following the shop list's pages. */
async function allProducts(app: AppServer): Promise<Product[]> {
  const found: Product[] = [];
  let next: string | null = null;
  do {
    const page = (await (await fetch(`${app.base}/api/products?limit=60${next ? `&after=${next}` : ''}`)).json()) as { products: Product[]; next: string | null };
    found.push(...page.products);
    next = page.next;
  } while (next);
  return found;
}

/** The shopper's signed-in pages for Lighthouse (checkout with a cart is the checkout section's). */
async function signedInPages(base: string) {
  const headers = { cookie: await signInCookie(base, SHOPPER.email, SHOPPER.password) };
  return [
    { name: 'account', url: '/account', headers },
    { name: 'wallet', url: '/wallet', headers },
    { name: 'my-orders', url: '/my-orders', headers },
  ];
}

async function addCatalog(app: AppServer): Promise<Product[]> {
  const token = await signIn(app.base, ADMIN.email, ADMIN.password);
  const seeded = await allProducts(app);
  const images = seeded.flatMap((product) => product.images.slice(0, 1));
  const kinds = ['Vinyl LP', '7" Single', 'Cassette', 'Tee', 'Hoodie', 'Poster', 'CD', 'Tote Bag'];
  for (let i = seeded.length; i < CATALOG_SIZE; i += 1) {
    const kind = kinds[i % kinds.length]!;
    await callFunction(
      app.base,
      'releaseBizarreProduct',
      {
        name: `Release ${String(i + 1).padStart(3, '0')} ${kind}`,
        description: `${kind} from the label's catalogue, pressed in a limited run. Ships in 3 to 5 days.`,
        priceCents: 900 + ((i * 613) % 5000),
        images: [images[i % images.length]!],
      },
      token,
    );
  }
  return allProducts(app);
}

/** Runs one section; a failure becomes missed figures with the reason, not a lost run. */
async function section(name: string, figures: Figure[], details: Record<string, unknown>, run: () => Promise<{ figures: Figure[]; [key: string]: unknown }>) {
  if (skip.has(name)) {
    log(`${name}: skipped`);
    return;
  }
  log(`${name}: running`);
  const sectionStarted = Date.now();
  try {
    const { figures: measured, ...rest } = await run();
    figures.push(...measured);
    details[name] = rest;
  } catch (error) {
    console.error(error);
    figures.push(failedFigure(`${name}.failed`, `${name}: did not complete`, '', { op: '=', value: 'completed' }, String(error)));
  }
  log(`${name}: done in ${((Date.now() - sectionStarted) / 1000).toFixed(0)} s`);
}

function machine() {
  return {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    platform: `${os.type()} ${os.release()}`,
    loadAverageAtStart: os.loadavg().map((load) => Math.round(load * 100) / 100),
  };
}

/** The sections that measure one server on the embedded database, with its catalogue. */
async function sharedServerSections(figures: Figure[], details: Record<string, unknown>) {
  log('starting the server on a fresh embedded database');
  const app = await startAppServer(path.join(resultsDir, 'server.log'));
  // Ctrl-C: stop the server in order, so its temporary DATA_DIR goes too.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log(`${signal}: stopping the server`);
      void app.stop().finally(() => process.exit(130));
    });
  }
  try {
    log(`server ready at ${app.base} (DATA_DIR ${app.dataDir}); adding the catalogue`);
    const products = await addCatalog(app);
    log(`${products.length} products in the shop`);
    const product = products[0]!;

    await section('http', figures, details, () => benchHttpReads(app, product.id, settings.http));
    await section('checkout', figures, details, () => benchCheckout(app, product.id, settings.checkout));
    await section('hotrow', figures, details, () => benchHotRow(app, settings.checkout));
    await section('live', figures, details, () => benchLiveFanOut(app, product, settings.live));
    await section('digital', figures, details, () => benchDigital(app, settings.digital));
    await section('frontend', figures, details, async () => {
      const bundles = benchBundles();
      const delivery = await checkDelivery(app.base);
      const lighthouseRun = await benchLighthouse(
        app.base,
        [
          { name: 'home', url: '/home', seo: true },
          { name: 'shop', url: '/shop', seo: true },
          { name: 'product', url: `/product/${encodeURIComponent(product.id)}`, seo: true },
          { name: 'checkout', url: '/checkout' },
          // Signed in: the shopper's own pages (issue 17), with the session cookie on every request.
          ...(await signedInPages(app.base)),
        ],
        settings.lighthouse,
      );
      // Issue 39 item 18: a console tab's and a release page's first visit as a person meets them.
      const firstVisits = await benchFirstVisits(app.base, settings.lighthouse);
      return {
        figures: [...bundles.figures, ...delivery, ...lighthouseRun.figures, ...firstVisits.figures],
        bundles: bundles.details,
        lighthouse: lighthouseRun.reports,
        firstVisits: firstVisits.runs,
      };
    });
    await section('scale', figures, details, () => benchScale(app, settings.scale, log));
  } finally {
    log('stopping the server');
    await app.stop();
  }
}

async function main() {
  fs.mkdirSync(resultsDir, { recursive: true });
  const host = machine();
  log(`machine: ${host.cpus} CPUs, ${host.memoryGiB} GiB, Node ${host.node}, load ${host.loadAverageAtStart.join(' ')}${quick ? ' (--quick)' : ''}`);
  buildIfNeeded();
  const figures: Figure[] = [];
  const details: Record<string, unknown> = {};

  if (SHARED_SERVER_SECTIONS.some((name) => !skip.has(name))) await sharedServerSections(figures, details);
  await section('drop', figures, details, () => benchDrop(settings.drop, log, resultsDir));
  await section('mail', figures, details, () => benchMail(settings.mail, log, resultsDir));

  const totalSeconds = Math.round((Date.now() - started) / 1000);
  figures.push({ key: 'bench.seconds', label: 'bench: total run time', value: totalSeconds, unit: 's', target: { op: '<', value: 900 }, met: totalSeconds < 900 });
  const finishedAt = new Date().toISOString();
  const mode = quick ? 'quick' : 'full';
  const landed = parseLanded(fs.existsSync(landedFile) ? fs.readFileSync(landedFile, 'utf8') : null);
  const changes = compareWithLanded(figures, landed[mode]);
  const changeColumn = new Map(changes.map((change) => [change.key, formatChange(change)]));
  const results = {
    finishedAt,
    quick,
    skipped: [...skip],
    machine: { ...host, loadAverageAtEnd: os.loadavg().map((l) => Math.round(l * 100) / 100) },
    figures,
    changes,
    details,
  };
  fs.writeFileSync(path.join(resultsDir, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  fs.writeFileSync(path.join(resultsDir, 'latest.md'), `${markdownTable(figures, changeColumn)}\n`);
  console.log(`\n${textTable(figures, changeColumn)}\n`);
  const missed = figures.filter((f) => f.met === false);
  console.log(`${figures.filter((f) => f.met === true).length} targets met, ${missed.length} missed; results in bench/results/latest.json (${totalSeconds} s)`);
  for (const line of regressionSummary(figures, changes)) console.log(line);
  if (land) {
    const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout.trim() || null;
    fs.writeFileSync(landedFile, `${JSON.stringify(landFigures(landed, figures, mode, { finishedAt, commit }), null, 2)}\n`);
    console.log(`--land: this run's figures are now the landed ${mode} figures in bench/results/landed.json (commit it with the change)`);
  }
}

main().catch((error: unknown) => {
  console.error('The benchmark failed:', error);
  process.exit(1);
});
