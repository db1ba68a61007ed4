import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONSOLE_MODULE, CONSOLE_TAB_MODULES, clientRouteModules, PAGE_MODULES, preloadLinks, PRELOADED_PAGES, routeLinks } from './route-assets.ts';

const webRoot = path.resolve(import.meta.dirname, '../../../web');

describe('a server-rendered page names its own stylesheets (route-assets.ts)', () => {
  it('every page module is a file of the web app, loaded by its router', () => {
    const router = fs.readFileSync(path.join(webRoot, 'src/app/router.tsx'), 'utf8');
    for (const module of new Set(Object.values(PAGE_MODULES))) {
      expect(fs.existsSync(path.join(webRoot, module)), module).toBe(true);
      expect(router, module).toContain(`import('../${module.slice('src/'.length)}')`);
    }
  });

  it("lists the styles of a page and the chunks it imports, each once, but not the entry's or a module it does not know", () => {
    const manifest = {
      'index.html': { file: 'assets/index.js', css: ['assets/index.css'], isEntry: true, imports: [] },
      'src/page.tsx': { file: 'assets/page.js', css: ['assets/page.css'], imports: ['index.html', '_a.js', '_b.js'] },
      '_a.js': { file: 'assets/a.js', css: ['assets/page.css', 'assets/a.css'], imports: ['_b.js'] },
      '_b.js': { file: 'assets/b.js', imports: ['_a.js'] },
    };
    expect(routeLinks(manifest, 'src/page.tsx')).toBe('<link rel="stylesheet" crossorigin href="/assets/page.css"><link rel="stylesheet" crossorigin href="/assets/a.css">');
    expect(routeLinks(manifest, 'src/unknown.tsx')).toBe('');
    expect(routeLinks({}, 'src/page.tsx')).toBe('');
  });
});

describe("a first visit's chunks are preloaded from the HTML (issue 39 item 18)", () => {
  it('every console tab with a chunk of its own is in the table, each module a file the web app loads by itself', () => {
    const tabs = fs.readFileSync(path.join(webRoot, 'src/features/admin/components/release-tabs.tsx'), 'utf8');
    const router = fs.readFileSync(path.join(webRoot, 'src/app/router.tsx'), 'utf8');
    expect(router).toContain(`import('../${CONSOLE_MODULE.slice('src/'.length)}')`);
    // The tabs as the web app lists them (lib/paths.ts, read as text: the server does not import the web app).
    const paths = fs.readFileSync(path.join(webRoot, 'src/lib/paths.ts'), 'utf8');
    const CONSOLE_TABS = [.../export const CONSOLE_TABS = \[([^\]]*)\]/.exec(paths)![1]!.matchAll(/'([a-z]+)'/g)].map((match) => match[1]!);
    expect(CONSOLE_TABS.length).toBeGreaterThan(10);
    // Release Product and View Orders are in the page's own chunk.
    expect(Object.keys(CONSOLE_TAB_MODULES).sort()).toEqual(CONSOLE_TABS.filter((tab) => tab !== 'release' && tab !== 'orders').sort());
    for (const modules of Object.values(CONSOLE_TAB_MODULES)) {
      for (const module of modules) {
        expect(fs.existsSync(path.join(webRoot, module)), module).toBe(true);
        const fromTabs = `import('./${module.slice('src/features/admin/components/'.length)}')`;
        const fromRouter = `import('../${module.slice('src/'.length)}')`;
        expect(tabs.includes(fromTabs) || router.includes(fromRouter), module).toBe(true);
      }
    }
    for (const pattern of PRELOADED_PAGES) expect(PAGE_MODULES[pattern], pattern).toBeDefined();
  });

  it("names a console address's modules: the page's, and its tab's", () => {
    const sales = CONSOLE_TAB_MODULES.sales!;
    expect(clientRouteModules('/release')).toEqual([CONSOLE_MODULE]);
    expect(clientRouteModules('/release/')).toEqual([CONSOLE_MODULE]);
    // The tab's first query's module first (the page's code asks for it at once), then the page's chunk and the tab's.
    expect(clientRouteModules('/release/sales')).toEqual(['src/features/admin/api/sales-overview.ts', CONSOLE_MODULE, 'src/features/admin/components/sales-tab.tsx']);
    expect(new Set(clientRouteModules('/release/sales'))).toEqual(new Set([CONSOLE_MODULE, ...sales]));
    expect(clientRouteModules('/release/orders')).toEqual([CONSOLE_MODULE]);
    expect(clientRouteModules('/release/orders/abc')).toEqual([CONSOLE_MODULE]);
    expect(clientRouteModules('/release/drops/abc')).toEqual([CONSOLE_MODULE, ...CONSOLE_TAB_MODULES.drops!]);
    for (const other of ['/release/nothing', '/release/sales/x', '/release/a/b/c', '/shop', '/login', '/', '/releases']) expect(clientRouteModules(other), other).toEqual([]);
  });

  it("preloads each module's chunk and the chunks it imports, each once, and their styles, but nothing of the entry's or already linked", () => {
    const manifest = {
      'index.html': { file: 'assets/index.js', css: ['assets/index.css'], isEntry: true, imports: [] },
      'src/page.tsx': { file: 'assets/page.js', css: ['assets/page.css', 'assets/index.css'], imports: ['index.html', '_a.js', '_b.js'] },
      'src/tab.tsx': { file: 'assets/tab.js', imports: ['index.html', '_b.js'] },
      '_a.js': { file: 'assets/a.js', css: ['assets/a.css'], imports: ['_b.js'] },
      '_b.js': { file: 'assets/b.js', imports: ['_a.js'] },
    };
    expect(preloadLinks(manifest, ['src/page.tsx', 'src/tab.tsx'])).toBe(
      '<link rel="modulepreload" crossorigin href="/assets/page.js"><link rel="modulepreload" crossorigin href="/assets/a.js">' +
        '<link rel="modulepreload" crossorigin href="/assets/b.js"><link rel="modulepreload" crossorigin href="/assets/tab.js">' +
        '<link rel="preload" as="style" crossorigin href="/assets/page.css"><link rel="preload" as="style" crossorigin href="/assets/a.css">',
    );
    expect(preloadLinks(manifest, ['src/page.tsx'], routeLinks(manifest, 'src/page.tsx'))).not.toContain('as="style"');
    expect(preloadLinks(manifest, ['src/unknown.tsx'])).toBe('');
    expect(preloadLinks({}, ['src/page.tsx'])).toBe('');
  });
});
