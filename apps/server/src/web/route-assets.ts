import fs from 'node:fs';
import path from 'node:path';

/**
 * The styles of a server-rendered page, named in its <head> (decision 062, session 10).
 * Without them the browser learns of the page's stylesheets only with its lazy chunk, after the
 * server's HTML was painted with the shell's styles: the page then moves (Lighthouse: CLS
 * 0.137 on /product/:id). Its chunks are not preloaded: on a slow connection they took the
 * bandwidth the first paint needed (Lighthouse performance 97 on /home with them, 98-100
 * without, same machine, same hour).
 *
 * Two kinds of page have their chunks preloaded (issue 39 item 18): a release page
 * (/music/:id), whose Play button works only once its chunk has arrived and hydrated, and the
 * console (/release...), rendered in the browser alone. Without the preloads the browser learns
 * of each chunk only from the one before: the entry, then the console page's chunk, then its
 * tab's, each a round trip after the other (150 ms each under Lighthouse's mobile throttling).
 */

/** Each public page's module in the web app (apps/web/src/app/router.tsx), by address pattern. */
export const PAGE_MODULES: Readonly<Record<string, string>> = {
  '/': 'src/features/content/components/home-page.tsx',
  '/home': 'src/features/content/components/home-page.tsx',
  '/about': 'src/features/content/components/about-page.tsx',
  '/history': 'src/features/content/components/history-page.tsx',
  '/contact': 'src/features/content/components/contact-page.tsx',
  '/privacy-policy': 'src/features/content/components/privacy-policy-page.tsx',
  '/shop': 'src/features/catalog/components/shop-page.tsx',
  '/product/:id': 'src/features/catalog/components/product-page.tsx',
  '/music/:id': 'src/features/digital/components/music-page.tsx',
  '/artist/:slug': 'src/features/roster/components/artist-page.tsx',
  '/artists': 'src/features/roster/components/artists-page.tsx',
};

/** Public pages whose chunks the HTML preloads too (the rest: styles only, see above). */
export const PRELOADED_PAGES: ReadonlySet<string> = new Set(['/music/:id']);

/** The console page (/release and its tabs' addresses), rendered in the browser only. */
export const CONSOLE_MODULE = 'src/features/admin/components/release-page.tsx';

/**
 * Each console tab's own modules (apps/web/src/features/admin/components/release-tabs.tsx), by
 * its address /release/<tab>: its lazy chunk, and the module of the query the console page
 * starts with its own code (app/router.tsx). Release Product and View Orders are in the page's chunk.
 */
export const CONSOLE_TAB_MODULES: Readonly<Record<string, readonly string[]>> = {
  products: ['src/features/admin/components/products-tab.tsx'],
  bundles: ['src/features/admin/components/bundles-tab.tsx'],
  categories: ['src/features/admin/components/categories-tab.tsx'],
  music: ['src/features/admin/components/music-tab.tsx'],
  roster: ['src/features/admin/components/roster-tab.tsx'],
  drops: ['src/features/admin/components/drops-tab.tsx'],
  content: ['src/features/admin/components/content/content-tab.tsx'],
  discounts: ['src/features/admin/components/discounts-tab.tsx'],
  announcements: ['src/features/admin/components/announcements-tab.tsx'],
  audience: ['src/features/admin/components/audience-tab.tsx'],
  sales: ['src/features/admin/components/sales-tab.tsx', 'src/features/admin/api/sales-overview.ts'],
  shipping: ['src/features/admin/components/shipping-tax-tab.tsx'],
  admins: ['src/features/admin/components/admins-tab.tsx'],
  activity: ['src/features/admin/components/activity-tab.tsx'],
};

/** The web app's modules a page address (not a public page's) needs first: the console's. */
export function clientRouteModules(pathname: string): readonly string[] {
  const parts = pathname.split('/').filter(Boolean);
  if (parts[0] !== 'release' || parts.length > 3) return [];
  if (parts.length === 1) return [CONSOLE_MODULE];
  const [, tab, id] = parts;
  if (id !== undefined) {
    // An order's address (in the page's chunk) or a drop's (the Drops tab's).
    if (tab === 'orders') return [CONSOLE_MODULE];
    return tab === 'drops' ? [CONSOLE_MODULE, ...CONSOLE_TAB_MODULES.drops!] : [];
  }
  if (tab === 'orders') return [CONSOLE_MODULE];
  const modules = tab === undefined ? undefined : CONSOLE_TAB_MODULES[tab];
  if (!modules) return [];
  // A query's module first: over HTTP/1.1's six connections the browser fetches the preloads a
  // few at a time, and the page's code asks for this one as soon as it runs.
  const isQuery = (module: string) => module.includes('/api/');
  return [...modules.filter(isQuery), CONSOLE_MODULE, ...modules.filter((module) => !isQuery(module))];
}

interface ManifestChunk {
  file: string;
  css?: string[];
  imports?: string[];
  isEntry?: boolean;
}
type Manifest = Record<string, ManifestChunk>;

const attribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/**
 * The stylesheet links of one module: its styles and those of every chunk it imports
 * statically, each once; what the entry (index.html) already loads is left out. '' for a
 * module the manifest does not know.
 */
export function routeLinks(manifest: Manifest, module: string): string {
  const entry = Object.values(manifest).find((chunk) => chunk.isEntry);
  const already = new Set(entry?.css ?? []);
  const styles: string[] = [];
  const seen = new Set<string>();
  const visit = (key: string) => {
    const chunk = manifest[key];
    if (!chunk || seen.has(key) || chunk.isEntry) return;
    seen.add(key);
    for (const css of chunk.css ?? []) if (!already.has(css) && !styles.includes(css)) styles.push(css);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  visit(module);
  return styles.map((file) => `<link rel="stylesheet" crossorigin href="/${attribute(file)}">`).join('');
}

/**
 * The preloads of `modules` (issue 39 item 18): each one's chunk and every chunk it imports
 * statically as <link rel="modulepreload">, each once, and their styles as <link rel="preload"
 * as="style"> (fetched beside the scripts without holding up the first paint; the app's loader
 * then adds them as stylesheets from the cache). What the entry loads is left out, and what
 * `except` (a page's stylesheet links) names already. '' for modules the manifest does not know.
 */
export function preloadLinks(manifest: Manifest, modules: readonly string[], except = ''): string {
  const entry = Object.values(manifest).find((chunk) => chunk.isEntry);
  const already = new Set(entry?.css ?? []);
  const scripts: string[] = [];
  const styles: string[] = [];
  const seen = new Set<string>();
  const visit = (key: string) => {
    const chunk = manifest[key];
    if (!chunk || seen.has(key) || chunk.isEntry) return;
    seen.add(key);
    if (!scripts.includes(chunk.file)) scripts.push(chunk.file);
    for (const css of chunk.css ?? []) if (!already.has(css) && !styles.includes(css) && !except.includes(`href="/${attribute(css)}"`)) styles.push(css);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  for (const module of modules) visit(module);
  return (
    scripts.map((file) => `<link rel="modulepreload" crossorigin href="/${attribute(file)}">`).join('') +
    styles.map((file) => `<link rel="preload" as="style" crossorigin href="/${attribute(file)}">`).join('')
  );
}

export interface RouteAssets {
  /** A public page's links in its <head>, by its address pattern: its styles, and for PRELOADED_PAGES its chunks. */
  pageLinks(pattern: string | undefined): string;
  /** The preloads of another page address (the console's; '' for the rest). */
  clientLinks(pathname: string): string;
}

/** Reads the build's manifest once; the links of each page (empty without a build or a manifest). */
export function loadRouteAssets(webDistDir: string): RouteAssets {
  let manifest: Manifest = {};
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(webDistDir, '.vite', 'manifest.json'), 'utf8')) as Manifest;
  } catch {
    // No manifest (a build without one, or none at all): pages are served as before.
  }
  const links = new Map(
    Object.entries(PAGE_MODULES).map(([pattern, module]) => {
      const styles = routeLinks(manifest, module);
      return [pattern, PRELOADED_PAGES.has(pattern) ? styles + preloadLinks(manifest, [module], styles) : styles];
    }),
  );
  const clientLinks = new Map<string, string>();
  return {
    pageLinks: (pattern) => (pattern === undefined ? '' : (links.get(pattern) ?? '')),
    clientLinks: (pathname) => {
      const modules = clientRouteModules(pathname);
      if (modules.length === 0) return '';
      const key = modules.join(' ');
      let made = clientLinks.get(key);
      if (made === undefined) {
        made = preloadLinks(manifest, modules);
        clientLinks.set(key, made);
      }
      return made;
    },
  };
}
