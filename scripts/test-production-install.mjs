// The production install from a clean clone, as README "Production" tells it (issue 13, decision 021):
//   git clone → npm ci → npm run build → npm ci --omit=dev → NODE_ENV=production npm start
// then /readyz, a page and one of its assets, and SIGTERM: the server drains and exits 0.
// The clone is of this checkout's HEAD (commit first). Its database: DATABASE_URL when set,
// else the embedded one in a `mktemp -d` DATA_DIR (mode 0700). Run by CI (.ci/run).
//
//   node scripts/test-production-install.mjs
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-install-'));
// A checkout others may enter, as /srv/storefront is: as root the embedded postgres runs as
// the user postgres, who must reach its programs in node_modules.
fs.chmodSync(work, 0o755);
const shop = path.join(work, 'shop');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-install-data-'));
const started = Date.now();
const say = (line) => console.log(`[production install ${((Date.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}`);

// The clone's own environment: nothing of this shell's test or development settings.
const baseEnv = { ...process.env };
for (const name of Object.keys(baseEnv)) {
  if (name === 'TEST' || name.startsWith('VITEST') || name === 'NODE_OPTIONS' || name === 'DATA_DIR' || name === 'TEST_DATABASE_URL') delete baseEnv[name];
}

function sh(command, args, env = baseEnv) {
  say(`$ ${command} ${args.join(' ')}`);
  execFileSync(command, args, { cwd: shop, env, stdio: ['ignore', 'inherit', 'inherit'] });
}

function fail(message) {
  throw new Error(message);
}

/** Pids whose parent is `pid` (from /proc: no procps needed). */
function childrenOf(pid) {
  const children = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) children.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return children;
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function portIsFree(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function main() {
  say(`cloning ${root} (HEAD) into ${shop}`);
  execFileSync('git', ['clone', '--quiet', '--no-hardlinks', root, shop], { stdio: 'inherit' });
  const npmFlags = ['--no-audit', '--no-fund', '--prefer-offline'];
  sh('npm', ['ci', ...npmFlags]);
  sh('npm', ['run', 'build']);
  sh('npm', ['ci', '--omit=dev', ...npmFlags]);

  // What a production install has, and has not.
  for (const gone of ['@vitejs/plugin-react', 'eslint', '@playwright/test']) {
    if (fs.existsSync(path.join(shop, 'node_modules', gone, 'package.json'))) fail(`node_modules/${gone} is a build tool, yet \`npm ci --omit=dev\` installed it.`);
  }
  // npm keeps vitest (and its peer vite) and drizzle-kit in a production install, as
  // better-auth names them optional peers. The server must not need them: they go here.
  for (const dir of ['vite', 'vitest', '@vitest', 'drizzle-kit']) fs.rmSync(path.join(shop, 'node_modules', dir), { recursive: true, force: true });
  const pinned = path.join(shop, 'node_modules/node/bin/node');
  const version = execFileSync(pinned, ['--version'], { encoding: 'utf8' }).trim();
  if (!version.startsWith('v24.')) fail(`The pinned Node of a production install is ${version}, not 24.`);
  for (const built of ['apps/server/dist/main.mjs', 'apps/web/dist/index.html']) {
    if (!fs.existsSync(path.join(shop, built))) fail(`${built} is missing after the build and the production install.`);
  }

  const port = await freePort();
  const env = {
    ...baseEnv,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    AUTH_SECRET: 'production-install-check-secret-0123456789',
    SMTP_URL: 'smtp://127.0.0.1:9',
    PAYMENT_PROVIDER: 'local',
    ALLOW_TEST_PAYMENTS: '1',
    LOG_LEVEL: 'info',
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : { DATA_DIR: dataDir }),
  };
  say(`$ NODE_ENV=production npm start  (port ${port}, ${env.DATABASE_URL ? 'DATABASE_URL' : `DATA_DIR ${dataDir}, mode ${(fs.statSync(dataDir).mode & 0o777).toString(8)}`})`);
  const child = spawn('npm', ['start'], { cwd: shop, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  let done = false;
  void exited.then(() => (done = true));
  try {
    const base = `http://127.0.0.1:${port}`;
    for (let waited = 0; ; waited += 250) {
      if (done) fail(`npm start exited before it was ready:\n${output}`);
      if (waited > 120_000) fail(`npm start was not ready after 120 s:\n${output}`);
      const ready = await fetch(`${base}/readyz`).then(
        (response) => response.status === 200,
        () => false,
      );
      if (ready) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    say('/readyz: 200');
    const page = await (await fetch(`${base}/shop`)).text();
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(page)?.[1] ?? fail(`/shop is not the built web app:\n${page.slice(0, 300)}`);
    const script = await fetch(`${base}${asset}`);
    if (script.status !== 200) fail(`${asset} answered ${script.status}.`);
    const code = await script.text();
    if (code.includes('react.dev/link/') || !code.includes('Minified React error')) fail(`${asset} is not React's production build.`);
    say(`/shop and ${asset}: 200, React's production build`);
    // The server is npm's child through `exec` (no shell between): the pinned Node runs it.
    const [server] = childrenOf(child.pid);
    if (!server) fail('npm start has no child process.');
    const exe = fs.readlinkSync(`/proc/${server}/exe`);
    if (exe !== fs.realpathSync(pinned)) fail(`The server runs on ${exe}, not the pinned Node.`);
    say(`the server (pid ${server}) runs on ${path.relative(shop, exe)}`);
  } finally {
    child.kill('SIGTERM');
  }
  const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
  const result = await exited;
  clearTimeout(timer);
  if (result.code !== 0) fail(`After SIGTERM npm start exited with ${JSON.stringify(result)}:\n${output}`);
  if (!output.includes('SIGTERM received')) fail(`The server did not get the SIGTERM:\n${output}`);
  if (!(await portIsFree(port))) fail(`Port ${port} is still taken after npm start exited.`);
  say('SIGTERM: drained, exited 0, port free');
}

main()
  .then(() => say('the production install works'))
  .catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  })
  .finally(() => {
    fs.rmSync(work, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
