import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { paths, routePatterns } from '../../apps/web/src/lib/paths.ts';
import { root } from '../lib/app-server.ts';
import { figure, round, type Figure } from '../lib/figures.ts';

const distDir = path.join(root, 'apps/web/dist');

interface ManifestChunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  imports?: string[];
}

/** Route path -> the source file its lazy page is imported from, read from router.tsx. */
function routeSources(): Map<string, string> {
  const router = fs.readFileSync(path.join(root, 'apps/web/src/app/router.tsx'), 'utf8');
  const pageFiles = new Map<string, string>();
  for (const match of router.matchAll(/const (\w+) = lazyPage\(\(\) =>\s*import\('([^']+)'\)/g)) {
    pageFiles.set(match[1]!, path.posix.normalize(path.posix.join('src/app', match[2]!)));
  }
  const routes = new Map<string, string>();
  // The router names its addresses through lib/paths.ts: page(paths.shop, 'Shop', ShopPage), or
  // page(routePatterns.product, null, ProductPage) for a page that names its own tab.
  const addresses: Record<string, Record<string, unknown>> = { paths, routePatterns };
  for (const match of router.matchAll(/page\((paths|routePatterns)\.(\w+), (?:'[^']*'|null), (\w+)\)/g)) {
    const address = addresses[match[1]!]![match[2]!];
    const source = pageFiles.get(match[3]!);
    if (typeof address === 'string' && source) routes.set(address, source);
  }
  return routes;
}

function readManifest(): Record<string, ManifestChunk> {
  return JSON.parse(fs.readFileSync(path.join(distDir, '.vite/manifest.json'), 'utf8')) as Record<string, ManifestChunk>;
}

/** The files of the chunks at `keys` and their static imports, but none of `skip`, with their sizes. */
function chunkFiles(manifest: Record<string, ManifestChunk>, keys: string[], skip: ReadonlySet<string> = new Set()) {
  const files = new Set<string>();
  const visit = (key: string) => {
    const chunk = manifest[key];
    if (!chunk || files.has(chunk.file) || skip.has(chunk.file)) return;
    files.add(chunk.file);
    for (const next of chunk.imports ?? []) visit(next);
  };
  for (const key of keys) visit(key);
  let raw = 0;
  let gzip = 0;
  for (const file of files) {
    const bytes = fs.readFileSync(path.join(distDir, file));
    raw += bytes.length;
    gzip += zlib.gzipSync(bytes, { level: 9 }).length;
  }
  return { files: [...files], rawBytes: raw, gzipBytes: gzip };
}

/**
 * The JavaScript a first visit to `route` must download before the page shows: the entry
 * chunk and its static imports, plus the route's lazy chunk and its static imports.
 */
export function initialJs(route: string) {
  const manifest = readManifest();
  const entryKey = Object.keys(manifest).find((key) => manifest[key]!.isEntry);
  const source = routeSources().get(route);
  if (!entryKey) throw new Error('The Vite manifest has no entry chunk.');
  if (!source || !manifest[source]) throw new Error(`No lazy chunk found for ${route} (router.tsx or the manifest changed).`);
  return chunkFiles(manifest, [entryKey, source]);
}

/**
 * The JavaScript a lazy part of a page (a console tab) adds when it is opened: the chunk of
 * `source` and its static imports that the page's first load has not brought already.
 */
export function lazyPartJs(route: string, source: string) {
  const manifest = readManifest();
  if (!manifest[source]) throw new Error(`No lazy chunk found for ${source} (the import or the manifest changed).`);
  return chunkFiles(manifest, [source], new Set(initialJs(route).files));
}

/**
 * The console's tabs on /release that load their code when opened (issue 18), with the
 * budget of what opening one may add (decision 033: the content editor).
 */
const CONSOLE_TABS: { name: string; source: string; budgetKb?: number }[] = [
  { name: 'content', source: 'src/features/admin/components/content/content-tab.tsx', budgetKb: 8 },
  { name: 'music', source: 'src/features/admin/components/music-tab.tsx' },
];

/** First-load JavaScript a shopper's page may need, gzipped. */
const SHOPPER_PAGE_BUDGET_KB = 100;

/** The pages a shopper opens: the shop, the content pages the console edits, and the signed-in ones. */
const SHOPPER_ROUTES = [
  '/home',
  '/shop',
  '/product/:id',
  '/checkout',
  '/about',
  '/history',
  '/contact',
  '/privacy-policy',
  '/login',
  '/signup',
  '/account',
  '/wallet',
  '/my-orders',
  // Digital releases (issue 28): the release page is held to the shop's budget, and so are the fan's library and redeem page.
  '/music/:id',
  '/library',
  '/redeem',
  // The roster (issue 36): an artist's page and the list, held to the shop's budget.
  '/artist/:slug',
  '/artists',
];

export function benchBundles(): { figures: Figure[]; details: Record<string, ReturnType<typeof initialJs>> } {
  const figures: Figure[] = [];
  const details: Record<string, ReturnType<typeof initialJs>> = {};
  for (const route of [...SHOPPER_ROUTES, '/release']) {
    const js = initialJs(route);
    details[route] = js;
    const kb = round(js.gzipBytes / 1024, 1);
    // Issue 8 set /shop's budget; issue 17 holds every shopper's page to it. The label's console is measured, not held.
    const budget = route === '/release' ? undefined : { op: '<=' as const, value: SHOPPER_PAGE_BUDGET_KB };
    figures.push(figure(`bundle.${route}`, `initial JS ${route} (gzip, ${js.files.length} files)`, kb, 'KB', budget));
  }
  for (const tab of CONSOLE_TABS) {
    const js = lazyPartJs('/release', tab.source);
    details[`/release#${tab.name}`] = js;
    const kb = round(js.gzipBytes / 1024, 1);
    figures.push(
      figure(
        `bundle./release#${tab.name}`,
        `JS the console's ${tab.name} tab adds when opened (gzip, ${js.files.length} files)`,
        kb,
        'KB',
        tab.budgetKb === undefined ? undefined : { op: '<=', value: tab.budgetKb },
      ),
    );
  }
  return { figures, details };
}

/** Whether hashed assets and JSON leave the server compressed and cacheable as they should. */
export async function checkDelivery(base: string): Promise<Figure[]> {
  const html = await (await fetch(`${base}/shop`)).text();
  const entry = /<script type="module" crossorigin src="([^"]+)"/.exec(html)?.[1];
  const asset = entry ? await fetch(`${base}${entry}`, { headers: { 'accept-encoding': 'br, gzip' } }) : undefined;
  const list = await fetch(`${base}/api/products`, { headers: { 'accept-encoding': 'br, gzip' } });
  await asset?.arrayBuffer();
  await list.arrayBuffer();
  const etag = list.headers.get('etag');
  const revalidated = etag ? (await fetch(`${base}/api/products`, { headers: { 'if-none-match': etag } })).status : null;
  return [
    figure(
      'delivery.asset',
      'hashed JS asset: encoding, cache-control',
      asset ? `${asset.headers.get('content-encoding') ?? 'none'}; ${asset.headers.get('cache-control') ?? 'none'}` : 'not found',
      '',
    ),
    figure('delivery.json', 'GET /api/products: encoding, ETag', `${list.headers.get('content-encoding') ?? 'none'}; ${etag ? 'ETag' : 'no ETag'}`, ''),
    figure('delivery.304', 'GET /api/products with If-None-Match', revalidated === null ? 'no ETag' : String(revalidated), '', { op: '=', value: '304' }),
  ];
}

type Lhr = NonNullable<Awaited<ReturnType<typeof lighthouse>>>['lhr'];

/** What the report blames: the elements that shifted, the LCP element, what blocked rendering. */
function diagnostics(lhr: Lhr) {
  const items = (id: string) => (lhr.audits[id]?.details as { items?: Record<string, unknown>[] } | undefined)?.items ?? [];
  const nodeLabel = (item: Record<string, unknown>) => {
    const node = item.node as { snippet?: string; nodeLabel?: string } | undefined;
    return node?.snippet ?? node?.nodeLabel ?? '';
  };
  return {
    layoutShifts: items('layout-shifts').map((item) => ({ score: item.score, element: nodeLabel(item) })),
    lcpElement: items('largest-contentful-paint-element').flatMap((item) => {
      const nested = (item as { items?: Record<string, unknown>[] }).items;
      return nested ? nested.map(nodeLabel).filter(Boolean) : [nodeLabel(item)];
    }),
    renderBlocking: items('render-blocking-resources').map((item) => item.url),
    unusedJavaScriptBytes: items('unused-javascript').reduce((sum, item) => sum + Number(item.wastedBytes ?? 0), 0),
    opportunities: Object.values(lhr.audits)
      .filter((audit) => audit.details?.type === 'opportunity' && (audit.numericValue ?? 0) > 0 && audit.score !== null && audit.score < 1)
      .map((audit) => `${audit.id}: ${audit.displayValue ?? ''}`),
  };
}

interface LighthousePage {
  name: string;
  url: string;
  /** Sent with every request of the page: a signed-in visitor's session cookie. */
  headers?: Record<string, string>;
  /** A public page for search engines (issue 30): its Lighthouse SEO score is measured, target 100. */
  seo?: boolean;
}

const CHROME_FLAGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/**
 * Lighthouse scores move by several points from run to run: each page is measured `runs`
 * times and the run with the median performance score kept. A run whose trace failed
 * (Lighthouse's own NO_NAVSTART and the like) is run again, up to twice per page.
 */
async function medianRun(url: string, port: number, runs: number, headers?: Record<string, string>): Promise<Lhr> {
  const good: Lhr[] = [];
  let lastError = '';
  for (let attempt = 0; good.length < runs && attempt < runs + 2; attempt += 1) {
    const result = await lighthouse(url, { port, output: 'json', logLevel: 'error', onlyCategories: ['performance', 'accessibility', 'seo'], extraHeaders: headers ?? null });
    if (result && !result.lhr.runtimeError) good.push(result.lhr);
    else lastError = result?.lhr.runtimeError?.code ?? 'no result';
  }
  if (good.length === 0) throw new Error(`Lighthouse failed on ${url}: ${lastError}`);
  good.sort((a, b) => (a.categories.performance?.score ?? 0) - (b.categories.performance?.score ?? 0));
  return good[Math.floor(good.length / 2)]!;
}

/** Lighthouse's mobile preset (its default) in Debian's Chromium, one page after another. */
export async function benchLighthouse(base: string, pages: LighthousePage[], options: { runs: number }) {
  const chrome = await chromeLauncher.launch({ chromePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', chromeFlags: CHROME_FLAGS, logLevel: 'silent' });
  const figures: Figure[] = [];
  const reports: Record<string, unknown> = {};
  try {
    for (const page of pages) {
      const lhr = await medianRun(`${base}${page.url}`, chrome.port, options.runs, page.headers);
      const score = (id: string) => Math.round((lhr.categories[id]?.score ?? 0) * 100);
      const audit = (id: string) => lhr.audits[id];
      const unsized = (audit('unsized-images')?.details as { items?: unknown[] } | undefined)?.items?.length ?? 0;
      const finalUrl = new URL(lhr.finalDisplayedUrl).pathname;
      const label = finalUrl === page.url || page.url.startsWith('/product/') ? page.name : `${page.name} (lands on ${finalUrl})`;
      const failing = (category: string) =>
        Object.values(lhr.audits)
          .filter((a) => lhr.categories[category]?.auditRefs.some((ref) => ref.id === a.id && ref.weight > 0) && a.score !== null && a.score < 1)
          .map((a) => a.id);
      const failedA11y = failing('accessibility');
      const perfNote = ['first-contentful-paint', 'largest-contentful-paint', 'total-blocking-time', 'speed-index']
        .map(
          (id) =>
            `${id.replace(/-/g, ' ').replace('first contentful paint', 'FCP').replace('largest contentful paint', 'LCP').replace('total blocking time', 'TBT').replace('speed index', 'SI')} ${audit(id)?.displayValue ?? '?'}`,
        )
        .join(', ');
      figures.push(
        figure(`lighthouse.${page.name}.performance`, `Lighthouse ${label}: performance`, score('performance'), '', { op: '>=', value: 95 }, perfNote),
        figure(
          `lighthouse.${page.name}.accessibility`,
          `Lighthouse ${label}: accessibility`,
          score('accessibility'),
          '',
          { op: '>=', value: 95 },
          failedA11y.length > 0 ? `failing: ${failedA11y.join(', ')}` : undefined,
        ),
        ...(page.seo
          ? [
              figure(
                `lighthouse.${page.name}.seo`,
                `Lighthouse ${label}: SEO`,
                score('seo'),
                '',
                { op: '>=', value: 100 },
                failing('seo').length > 0 ? `failing: ${failing('seo').join(', ')}` : undefined,
              ),
            ]
          : []),
        figure(`lighthouse.${page.name}.cls`, `Lighthouse ${label}: CLS`, round(audit('cumulative-layout-shift')?.numericValue ?? Number.NaN, 3), '', { op: '<', value: 0.05 }),
        figure(`lighthouse.${page.name}.unsized`, `Lighthouse ${label}: images without width/height`, unsized, '', { op: '=', value: 0 }),
      );
      fs.mkdirSync(path.join(root, 'bench/results/lighthouse'), { recursive: true });
      fs.writeFileSync(path.join(root, `bench/results/lighthouse/${page.name}.json`), JSON.stringify(lhr));
      reports[page.name] = {
        diagnostics: diagnostics(lhr),
        url: page.url,
        finalUrl,
        scores: { performance: score('performance'), accessibility: score('accessibility'), ...(page.seo ? { seo: score('seo') } : {}) },
        metrics: Object.fromEntries(
          ['first-contentful-paint', 'largest-contentful-paint', 'total-blocking-time', 'cumulative-layout-shift', 'speed-index'].map((id) => [
            id,
            audit(id)?.numericValue ?? null,
          ]),
        ),
        failedAccessibilityAudits: failedA11y,
        unsizedImages: unsized,
      };
    }
  } finally {
    await chrome.kill();
  }
  return { figures, reports };
}
