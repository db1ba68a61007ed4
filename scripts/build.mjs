// `npm run build`: the one production build (decision 021).
//   apps/web/dist                the web app (Vite, always React's production build)
//   apps/server/dist/main.mjs    the server as one ES module (esbuild; packages stay in node_modules)
//   apps/server/dist/cli.mjs     the command line tool, the same way
// Each output records the content hash of the sources it was built from, so `npm start` in
// development rebuilds only what changed (file times say nothing after a checkout or copy).
// A new web build is installed into dist file by file, each file replaced atomically and
// index.html last, and the previous builds' hashed assets stay for KEEP_OLD_ASSETS_DAYS:
// a browser holding an old page can still load its chunks after a deploy.
//
//   node scripts/build.mjs              build both
//   node scripts/build.mjs --if-stale   build only what is missing or out of date
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const root = path.resolve(import.meta.dirname, '..');
export const webDist = path.join(root, 'apps/web/dist');
export const serverBundle = path.join(root, 'apps/server/dist/main.mjs');
const serverDist = path.dirname(serverBundle);
const STATE_FILE = '.build.json';
/** apps/web/dist/ssr: the server-side rendering module, never served (web-app.ts). */
export const SSR_DIR = 'ssr';
export const KEEP_OLD_ASSETS_DAYS = 7;
const DAY_MS = 24 * 60 * 60 * 1000;

// What each output is built from. Tests are left out: they change nothing that ships.
const SHARED_INPUTS = ['packages/domain', 'packages/sdk', 'package-lock.json', 'scripts/build.mjs'];
const INPUTS = {
  web: ['apps/web', ...SHARED_INPUTS],
  server: ['apps/server/src', 'apps/server/package.json', ...SHARED_INPUTS],
};
const SKIPPED = new Set(['node_modules', 'dist', '.vite', '.build-next']);
const isTest = (name) => /\.test\.[cm]?[jt]sx?$/.test(name);

function addToHash(hash, full, relative) {
  const stat = fs.statSync(full, { throwIfNoEntry: false });
  if (!stat) return;
  if (stat.isDirectory()) {
    for (const name of fs.readdirSync(full).sort()) {
      if (SKIPPED.has(name) || isTest(name)) continue;
      addToHash(hash, path.join(full, name), `${relative}/${name}`);
    }
    return;
  }
  hash.update(`${relative}\0${stat.size}\0`);
  hash.update(fs.readFileSync(full));
}

/** The content hash of what `part` ('web' or 'server') is built from. */
export function sourceHash(part) {
  const hash = createHash('sha256');
  for (const input of INPUTS[part]) addToHash(hash, path.join(root, input), input);
  return hash.digest('hex');
}

function readState(dir) {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, STATE_FILE), 'utf8'));
  } catch {
    return null;
  }
}

const outputOf = { web: () => path.join(webDist, 'index.html'), server: () => serverBundle };
const dirOf = { web: webDist, server: serverDist };

/** Whether `part`'s build is missing or was made from other sources than those here now. */
export function isStale(part) {
  if (!fs.existsSync(outputOf[part]())) return true;
  return readState(dirOf[part])?.sourceHash !== sourceHash(part);
}

/** For scripts that only care about the web app (bench/run.ts). */
export function webBuildIsStale() {
  return isStale('web');
}

/** Writes `file` by a rename: a reader sees the old file or the new one, never half of one. */
function replaceFile(from, to) {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  const temp = `${to}.${process.pid}.tmp`;
  fs.copyFileSync(from, temp);
  fs.renameSync(temp, to);
}

function listFiles(dir, prefix = '') {
  const files = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) files.push(...listFiles(path.join(dir, entry.name), relative));
    else files.push(relative);
  }
  return files;
}

export function buildWeb() {
  const hash = sourceHash('web');
  const next = path.join(root, 'apps/web/.build-next');
  fs.rmSync(next, { recursive: true, force: true });
  // NODE_ENV=development in the shell would make Vite bundle React's development build.
  const vite = path.join(root, 'node_modules/vite/bin/vite.js');
  const result = spawnSync(process.execPath, [vite, 'build', '--outDir', next, '--emptyOutDir', '--logLevel', 'warn'], {
    cwd: path.join(root, 'apps/web'),
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: 'inherit',
  });
  if (result.status !== 0) throw new Error(`vite build failed (exit ${result.status ?? result.signal}).`);
  // The server's rendering of public pages (decision 062), beside the page it fills.
  const ssr = spawnSync(process.execPath, [vite, 'build', '--ssr', 'src/entry-server.tsx', '--outDir', path.join(next, SSR_DIR), '--emptyOutDir', '--logLevel', 'warn'], {
    cwd: path.join(root, 'apps/web'),
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: 'inherit',
  });
  if (ssr.status !== 0) throw new Error(`vite build --ssr failed (exit ${ssr.status ?? ssr.signal}).`);

  const previous = readState(webDist);
  const built = listFiles(next);
  const now = Date.now();
  // Hashed assets of earlier builds: kept for a while, each from the day it was replaced.
  const retired = {};
  // The server's rendering module loads its chunks when first used: a server still running
  // the previous build needs them for as long as a browser does.
  for (const folder of ['assets', `${SSR_DIR}/assets`]) {
    if (!fs.existsSync(path.join(webDist, folder))) continue;
    for (const file of listFiles(path.join(webDist, folder)).map((name) => `${folder}/${name}`)) {
      if (built.includes(file)) continue;
      const since = previous?.retired?.[file] ?? now;
      if (now - since < KEEP_OLD_ASSETS_DAYS * DAY_MS) retired[file] = since;
      else fs.rmSync(path.join(webDist, file), { force: true });
    }
  }
  // New hashed files first, pages last: nothing served points at a file not yet there.
  const pagesLast = [...built].sort((a, b) => Number(a.endsWith('.html')) - Number(b.endsWith('.html')));
  for (const file of pagesLast) replaceFile(path.join(next, file), path.join(webDist, file));
  // Files of the old build that are not hashed assets and not in the new one (a removed public file).
  for (const file of listFiles(webDist)) {
    if (file === STATE_FILE || built.includes(file) || file in retired || file.endsWith('.tmp')) continue;
    fs.rmSync(path.join(webDist, file), { force: true });
  }
  fs.writeFileSync(path.join(webDist, STATE_FILE), JSON.stringify({ sourceHash: hash, builtAt: new Date(now).toISOString(), retired }, null, 2));
  fs.rmSync(next, { recursive: true, force: true });
}

export async function buildServer() {
  const hash = sourceHash('server');
  const { build } = await import('esbuild');
  const next = path.join(root, 'apps/server/.build-next');
  fs.rmSync(next, { recursive: true, force: true });
  await build({
    entryPoints: { main: path.join(root, 'apps/server/src/main.ts'), cli: path.join(root, 'apps/server/src/cli.ts') },
    outdir: next,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    logLevel: 'warning',
    // Our own workspace packages (TypeScript) go into the bundle; every other package is
    // loaded from node_modules at run time (native parts, their own files, one copy).
    plugins: [
      {
        name: 'packages-stay-in-node-modules',
        setup(builder) {
          builder.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@storefront/') ? undefined : { path: args.path, external: true }));
        },
      },
    ],
  });
  fs.mkdirSync(serverDist, { recursive: true });
  // cli first, main last: a start that sees the new main.mjs has its whole build.
  for (const file of ['cli.mjs', 'main.mjs']) replaceFile(path.join(next, file), path.join(serverDist, file));
  fs.writeFileSync(path.join(serverDist, STATE_FILE), JSON.stringify({ sourceHash: hash, builtAt: new Date().toISOString() }, null, 2));
  fs.rmSync(next, { recursive: true, force: true });
}

export async function build({ ifStale = false, parts = ['web', 'server'], log = console.log } = {}) {
  for (const part of parts) {
    if (ifStale && !isStale(part)) continue;
    const started = Date.now();
    log(`Building the ${part === 'web' ? 'web app' : 'server'}…`);
    if (part === 'web') buildWeb();
    else await buildServer();
    log(`Built the ${part === 'web' ? 'web app (apps/web/dist)' : 'server (apps/server/dist/main.mjs)'} in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) {
  build({ ifStale: process.argv.includes('--if-stale') }).catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
