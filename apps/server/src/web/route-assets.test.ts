import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PAGE_MODULES, routeLinks } from './route-assets.ts';

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
