import fs from 'node:fs';
import path from 'node:path';

/**
 * The styles of a server-rendered page, named in its <head> (decision 062, session 10).
 * Without them the browser learns of the page's stylesheets only with its lazy chunk, after the
 * server's HTML was painted with the shell's styles: the page then moves (Lighthouse: CLS
 * 0.137 on /product/:id). Its chunks are not preloaded: on a slow connection they took the
 * bandwidth the first paint needed (Lighthouse performance 97 on /home with them, 98-100
 * without, same machine, same hour).
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

/** Reads the build's manifest once; the links of each page pattern (empty without a build or a manifest). */
export function loadRouteAssets(webDistDir: string): (pattern: string | undefined) => string {
  let manifest: Manifest = {};
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(webDistDir, '.vite', 'manifest.json'), 'utf8')) as Manifest;
  } catch {
    // No manifest (a build without one, or none at all): pages are served as before.
  }
  const links = new Map(Object.entries(PAGE_MODULES).map(([pattern, module]) => [pattern, routeLinks(manifest, module)]));
  return (pattern) => (pattern === undefined ? '' : (links.get(pattern) ?? ''));
}
