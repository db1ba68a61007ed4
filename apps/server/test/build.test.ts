import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, repoRoot } from './reliability/processes.ts';

/**
 * `npm run build` (scripts/build.mjs, decision 021) in a copy of the checkout, so this
 * run's own build is left alone: React's production build whatever NODE_ENV says,
 * staleness by content (not file times), and a rebuild that keeps the old hashed assets
 * for 7 days. The copy shares node_modules and the packages through symlinks.
 */
let copy: string;
const webDist = () => path.join(copy, 'apps/web/dist');
const state = () => JSON.parse(fs.readFileSync(path.join(webDist(), '.build.json'), 'utf8')) as { sourceHash: string; retired: Record<string, number> };
const assets = () => fs.readdirSync(path.join(webDist(), 'assets')).sort();

function node(args: string[]) {
  // NODE_ENV=development in the shell, as in the issue: the build must not take it.
  return spawnSync(process.execPath, args, { cwd: copy, env: childEnv({ NODE_ENV: 'development' }), encoding: 'utf8' });
}

function build() {
  const result = node(['scripts/build.mjs']);
  expect(result.status, result.stderr).toBe(0);
}

function stale(part: 'web' | 'server'): boolean {
  const result = node(['-e', `import('./scripts/build.mjs').then((m) => console.log(m.isStale('${part}')))`]);
  expect(result.status, result.stderr).toBe(0);
  return result.stdout.trim() === 'true';
}

beforeAll(() => {
  copy = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-build-'));
  fs.mkdirSync(path.join(copy, 'scripts'));
  fs.copyFileSync(path.join(repoRoot, 'scripts/build.mjs'), path.join(copy, 'scripts/build.mjs'));
  for (const file of ['package.json', 'package-lock.json', 'tsconfig.base.json']) fs.copyFileSync(path.join(repoRoot, file), path.join(copy, file));
  fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(copy, 'node_modules'));
  fs.symlinkSync(path.join(repoRoot, 'packages'), path.join(copy, 'packages'));
  fs.mkdirSync(path.join(copy, 'apps/server'), { recursive: true });
  fs.symlinkSync(path.join(repoRoot, 'apps/server/src'), path.join(copy, 'apps/server/src'));
  fs.copyFileSync(path.join(repoRoot, 'apps/server/package.json'), path.join(copy, 'apps/server/package.json'));
  // The web app's sources are copied: the test changes one.
  fs.cpSync(path.join(repoRoot, 'apps/web'), path.join(copy, 'apps/web'), {
    recursive: true,
    filter: (source) => !/[/\\](node_modules|dist|\.build-next)$/.test(source),
  });
  fs.symlinkSync(path.join(repoRoot, 'apps/web/node_modules'), path.join(copy, 'apps/web/node_modules'));
});

afterAll(() => {
  if (copy) fs.rmSync(copy, { recursive: true, force: true });
});

describe('npm run build (issue 13)', { timeout: 180_000 }, () => {
  it('makes the web app (React production build, even with NODE_ENV=development) and one server bundle', () => {
    expect(stale('web')).toBe(true);
    build();
    const scripts = assets().filter((file) => file.endsWith('.js'));
    const code = scripts.map((file) => fs.readFileSync(path.join(webDist(), 'assets', file), 'utf8')).join('\n');
    expect(code).toContain('Minified React error');
    expect(code).not.toContain('react.dev/link/');
    const bundle = fs.readFileSync(path.join(copy, 'apps/server/dist/main.mjs'), 'utf8');
    // Our packages are inside; other packages are imported from node_modules.
    expect(bundle).not.toMatch(/from ["']@storefront\//);
    expect(bundle).toMatch(/from ["']fastify["']/);
    expect(stale('web')).toBe(false);
    expect(stale('server')).toBe(false);
  });

  it('judges staleness by content: a touched file is not a change, an edited one is', () => {
    const source = path.join(copy, 'apps/web/src/app/not-found-page.tsx');
    const future = new Date(Date.now() + 60_000);
    fs.utimesSync(source, future, future);
    expect(stale('web')).toBe(false);
    fs.appendFileSync(source, '\n// edited\n');
    expect(stale('web')).toBe(true);
    // The server is built from other sources.
    expect(stale('server')).toBe(false);
  });

  it('keeps the previous build’s hashed assets after a rebuild, for 7 days', () => {
    const before = assets();
    const oldPage = fs.readFileSync(path.join(webDist(), 'index.html'), 'utf8');
    const changed = path.join(copy, 'apps/web/src/app/not-found-page.tsx');
    fs.appendFileSync(changed, '(globalThis as Record<string, unknown>).buildTestMarker = 1;\n');
    build();
    const after = assets();
    const retired = before.filter((file) => !after.includes(file) || state().retired[`assets/${file}`] !== undefined);
    // Something was rebuilt under a new hash, and every old asset is still served from dist.
    expect(Object.keys(state().retired).length).toBeGreaterThan(0);
    for (const file of before) expect(after).toContain(file);
    for (const file of retired) expect(fs.existsSync(path.join(webDist(), 'assets', file))).toBe(true);
    // Every script the old page loads is still there.
    for (const [, src] of oldPage.matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g)) expect(fs.existsSync(path.join(webDist(), src!))).toBe(true);

    // Eight days later, the next build drops them.
    const file = path.join(webDist(), '.build.json');
    const aged = state();
    for (const name of Object.keys(aged.retired)) aged.retired[name] = Date.now() - 8 * 24 * 60 * 60 * 1000;
    fs.writeFileSync(file, JSON.stringify(aged));
    const agedNames = Object.keys(aged.retired);
    fs.appendFileSync(changed, '(globalThis as Record<string, unknown>).buildTestMarker = 2;\n');
    build();
    for (const name of agedNames) expect(fs.existsSync(path.join(webDist(), name)), name).toBe(false);
  });
});
