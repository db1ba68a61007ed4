import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../src/db/embedded.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { childEnv, poll, repoRoot, withTimeout } from './reliability/processes.ts';

/**
 * The production process model (decision 021, issue 13): the processes the README and
 * deploy/storefront.service tell operators to run serve the build, pass SIGTERM to the
 * server, which lets requests in flight finish and exits 0, freeing its port for the next
 * start. Runs the built bundle (apps/server/dist/main.mjs) against this run's Postgres.
 */
const UNIT = path.join(repoRoot, 'deploy/storefront.service');
let database: TestDatabase;
let envDir: string;

const settings = () => ({
  NODE_ENV: 'production',
  HOST: '127.0.0.1',
  DATABASE_URL: database.connectionString,
  PUBLIC_URL: 'http://127.0.0.1:9',
  AUTH_SECRET: 'production-test-secret-'.repeat(2),
  SMTP_URL: 'smtp://127.0.0.1:9',
  PAYMENT_PROVIDER: 'local',
  ALLOW_TEST_PAYMENTS: '1',
  LOG_LEVEL: 'info',
});

interface Started {
  pid: number;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal: NodeJS.Signals): void;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv, cwd = repoRoot): Started {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { pid: child.pid!, output: () => output, exited, kill: (signal) => child.kill(signal) };
}

/** The unit's [Service] keys (a key given twice, like Environment, keeps every value). */
function parseUnit(text: string): Map<string, string[]> {
  const keys = new Map<string, string[]>();
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = header[1]!;
      continue;
    }
    const eq = line.indexOf('=');
    const key = `${section}.${line.slice(0, eq)}`;
    keys.set(key, [...(keys.get(key) ?? []), line.slice(eq + 1)]);
  }
  return keys;
}

/** Pids whose parent is `pid` (from /proc: no procps needed). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
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

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function waitReady(started: Started, port: number) {
  let exited = false;
  void started.exited.then(() => (exited = true));
  await poll('the server to be ready', async () => ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200 ? true : undefined), {
    timeoutMs: 60_000,
    stopIf: () => (exited ? `it exited:\n${started.output()}` : undefined),
  });
}

/** SIGTERM while a request is held inside the database: it finishes, then the process exits 0 and frees its port. */
async function stopWhileBusy(started: Started, port: number, signal: NodeJS.Signals = 'SIGTERM') {
  const locker = new pg.Client({ connectionString: database.connectionString });
  await locker.connect();
  try {
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE timeline_entries IN ACCESS EXCLUSIVE MODE');
    const inFlight = fetch(`http://127.0.0.1:${port}/fn/listHistory`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ data: {} }) });
    await poll(
      'the request to wait on the lock',
      async () => {
        const { rows } = await locker.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = 'timeline_entries'::regclass");
        return rows[0]!.n > 0 ? true : undefined;
      },
      { timeoutMs: 10_000 },
    );
    started.kill(signal);
    await poll('the server to start draining', async () => (started.output().includes(`${signal} received`) ? true : undefined), { timeoutMs: 10_000 });
    // Draining: still running, the port no longer takes new work.
    expect(await Promise.race([started.exited.then(() => 'exited'), new Promise((resolve) => setTimeout(() => resolve('running'), 300))])).toBe('running');
    await locker.query('ROLLBACK');
    expect((await inFlight).status).toBe(200);
  } finally {
    await locker.end().catch(() => undefined);
  }
  const { code, signal: bySignal } = await withTimeout(started.exited, 30_000, 'the process to exit');
  expect({ code, signal: bySignal }, started.output()).toEqual({ code: 0, signal: null });
  expect(await portIsFree(port)).toBe(true);
}

beforeAll(async () => {
  // The build these processes serve (a no-op when it is up to date).
  const build = spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: repoRoot, encoding: 'utf8' });
  expect(build.status, build.stderr).toBe(0);
  database = await createTestDatabase();
  envDir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-env-'));
}, 120_000);

/** Servers a failed case left behind (a start whose signal never reached it): those on this test's database. */
function stopLeftoverServers() {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const environ = fs.readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      if (environ.includes(`DATABASE_URL=${database.connectionString}`)) process.kill(Number(entry), 'SIGTERM');
    } catch {
      // Gone, or not ours to read.
    }
  }
}

afterAll(async () => {
  if (database) stopLeftoverServers();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  await database?.close();
  if (envDir) fs.rmSync(envDir, { recursive: true, force: true });
});

describe('the production start (issue 13)', { timeout: 120_000 }, () => {
  it('`node scripts/start.mjs` serves the bundle in this process: SIGTERM drains it, frees the port, and the next start works', async () => {
    const port = await freePort();
    const env = childEnv({ ...settings(), PORT: String(port) });
    const first = run(process.execPath, ['scripts/start.mjs'], env);
    await waitReady(first, port);
    // No child: the process that got the signal is the server (no tsx, no build).
    expect(fs.readFileSync(`/proc/${first.pid}/cmdline`, 'utf8').split('\0')).toEqual([process.execPath, 'scripts/start.mjs', '']);
    expect(childrenOf(first.pid)).toEqual([]);
    const page = await (await fetch(`http://127.0.0.1:${port}/shop`)).text();
    expect(page).toContain('TEST MODE');
    await stopWhileBusy(first, port);
    // A fresh build is not called stale; the run's last line says it stopped (issue 25 items 7, 10).
    expect(first.output()).not.toContain('older than its sources');
    const last = JSON.parse(first.output().trimEnd().split('\n').at(-1)!) as { msg: string };
    expect(last.msg).toBe('Storefront stopped.');

    const next = run(process.execPath, ['scripts/start.mjs'], env);
    await waitReady(next, port);
    await stopWhileBusy(next, port, 'SIGINT');
  });

  it('`npm start`: SIGTERM to npm reaches the server, which drains and exits before npm does', async () => {
    const port = await freePort();
    const env = childEnv({ ...settings(), PORT: String(port) });
    const npm = run('npm', ['start', '--silent'], env);
    await waitReady(npm, port);
    await stopWhileBusy(npm, port);
    const next = run('npm', ['start', '--silent'], env);
    await waitReady(next, port);
    await stopWhileBusy(next, port);
  });

  it('refuses to start in production without a build, saying what to run', () => {
    // A checkout with the start script and no build.
    const bare = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-nobuild-'));
    try {
      fs.mkdirSync(path.join(bare, 'scripts'));
      fs.copyFileSync(path.join(repoRoot, 'scripts/start.mjs'), path.join(bare, 'scripts/start.mjs'));
      const result = spawnSync(process.execPath, ['scripts/start.mjs'], { cwd: bare, env: childEnv(settings()), encoding: 'utf8' });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('There is no production build (apps/server/dist/main.mjs, apps/web/dist/index.html missing). Run `npm run build` first');
    } finally {
      fs.rmSync(bare, { recursive: true, force: true });
    }
  });

  it('a production start on a build older than its sources says so (and not on one made from them)', async () => {
    // A checkout of its own around this run's build: the bundle, its sources copied, the rest linked.
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-stale-'));
    try {
      fs.mkdirSync(path.join(copy, 'apps/server/dist'), { recursive: true });
      for (const file of ['main.mjs', '.build.json']) fs.copyFileSync(path.join(repoRoot, 'apps/server/dist', file), path.join(copy, 'apps/server/dist', file));
      fs.cpSync(path.join(repoRoot, 'apps/server/src'), path.join(copy, 'apps/server/src'), { recursive: true });
      fs.cpSync(path.join(repoRoot, 'apps/server/drizzle'), path.join(copy, 'apps/server/drizzle'), { recursive: true });
      fs.copyFileSync(path.join(repoRoot, 'apps/server/package.json'), path.join(copy, 'apps/server/package.json'));
      fs.mkdirSync(path.join(copy, 'scripts'));
      fs.copyFileSync(path.join(repoRoot, 'scripts/build.mjs'), path.join(copy, 'scripts/build.mjs'));
      fs.copyFileSync(path.join(repoRoot, 'package-lock.json'), path.join(copy, 'package-lock.json'));
      for (const linked of ['node_modules', 'packages', 'apps/server/node_modules', 'apps/web']) {
        if (fs.existsSync(path.join(repoRoot, linked))) fs.symlinkSync(path.join(repoRoot, linked), path.join(copy, linked));
      }

      const startOnce = async () => {
        const port = await freePort();
        const started = run(process.execPath, ['apps/server/dist/main.mjs'], childEnv({ ...settings(), PORT: String(port) }), copy);
        await waitReady(started, port);
        await poll('the start-up lines', async () => (started.output().includes('Storefront ready') ? true : undefined), { timeoutMs: 10_000 });
        // The check runs just after "ready": give it its moment, then stop.
        await new Promise((resolve) => setTimeout(resolve, 1500));
        started.kill('SIGTERM');
        await withTimeout(started.exited, 30_000, 'the copy to stop');
        return started.output();
      };
      expect(await startOnce()).not.toContain('older than its sources');
      fs.appendFileSync(path.join(copy, 'apps/server/src/main.ts'), '\n// changed after the build\n');
      const stale = (await startOnce()).split('\n').find((line) => line.includes('older than its sources'));
      expect(stale, 'a warning line').toBeDefined();
      expect(JSON.parse(stale!)).toMatchObject({ level: 40, msg: expect.stringContaining('apps/server/dist (built ') });
      expect(stale).toContain('Run `npm run build`, then restart.');
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });

  it('`npm run cli` runs the built CLI in production (no TypeScript), and without a build refuses, saying what to run', () => {
    expect((JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.cli).toBe('node scripts/cli.mjs');
    const built = spawnSync(process.execPath, ['scripts/cli.mjs', 'help'], { cwd: repoRoot, env: childEnv(settings()), encoding: 'utf8' });
    expect(built.status, built.stderr).toBe(0);
    expect(built.stdout).toContain('Usage: npm run cli -- <command>');
    const bare = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-nobuild-cli-'));
    try {
      fs.mkdirSync(path.join(bare, 'scripts'));
      fs.copyFileSync(path.join(repoRoot, 'scripts/cli.mjs'), path.join(bare, 'scripts/cli.mjs'));
      // No build and no node_modules (no tsx): the production path never reaches for them.
      const result = spawnSync(process.execPath, ['scripts/cli.mjs', 'help'], { cwd: bare, env: childEnv(settings()), encoding: 'utf8' });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('There is no production build (apps/server/dist/cli.mjs missing). Run `npm run build` first');
    } finally {
      fs.rmSync(bare, { recursive: true, force: true });
    }
  });
});

describe('deploy/storefront.service', { timeout: 120_000 }, () => {
  const unit = parseUnit(fs.readFileSync(UNIT, 'utf8'));
  const one = (key: string) => unit.get(`Service.${key}`)?.at(-1);

  it('runs the built server with the pinned Node, stops it with SIGTERM, and restarts it on failure', () => {
    const [executable, ...args] = one('ExecStart')!.split(/\s+/);
    expect(executable).toBe(`${one('WorkingDirectory')}/node_modules/node/bin/node`);
    expect(args).toEqual(['apps/server/dist/main.mjs']);
    expect(one('KillSignal')).toBe('SIGTERM');
    // SIGTERM to the server alone: the embedded postgres is stopped by it, after the drain.
    expect(one('KillMode')).toBe('mixed');
    expect(Number(one('TimeoutStopSec'))).toBeGreaterThan(20);
    expect(one('Restart')).toBe('on-failure');
    expect(unit.get('Service.Environment')).toContain('NODE_ENV=production');
    expect(one('EnvironmentFile')).toMatch(/^\//);
    expect(unit.get('Install.WantedBy')).toEqual(['multi-user.target']);
  });

  it.skipIf(spawnSync('systemd-analyze', ['--version']).error !== undefined)(
    'passes `systemd-analyze verify` (with this checkout as its folder), and so does storefront@.service',
    () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-unit-'));
      try {
        for (const name of ['storefront.service', 'storefront@.service']) {
          const file = path.join(dir, name);
          fs.writeFileSync(file, fs.readFileSync(path.join(repoRoot, 'deploy', name), 'utf8').replaceAll(one('WorkingDirectory')!, repoRoot));
          const result = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' });
          // It warns (unknown keys, bad values) on stderr without failing: nothing may be said.
          expect({ name, status: result.status, said: `${result.stdout}${result.stderr}`.trim() }).toEqual({ name, status: 0, said: '' });
        }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('its ExecStart, with its Environment and an EnvironmentFile, serves and drains on its KillSignal', async () => {
    const port = await freePort();
    const workingDirectory = one('WorkingDirectory')!;
    const fromUnit = Object.fromEntries(unit.get('Service.Environment')!.map((pair) => pair.split(/=(.*)/s).slice(0, 2) as [string, string]));
    // The operator's EnvironmentFile (KEY=value lines), as systemd reads it.
    const envFile = path.join(envDir, 'storefront.env');
    fs.writeFileSync(
      envFile,
      `${Object.entries({ ...settings(), PORT: String(port) })
        .map(([key, value]) => `${key}=${value}`)
        .join('\n')}\n`,
    );
    const fromFile = Object.fromEntries(
      fs
        .readFileSync(envFile, 'utf8')
        .split('\n')
        .filter((line) => line && !line.startsWith('#'))
        .map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]),
    );
    // systemd starts from an empty environment: PATH and the unit's settings only.
    const env = { PATH: '/usr/bin:/bin', ...fromUnit, ...fromFile };
    const [executable, ...args] = one('ExecStart')!.replaceAll(workingDirectory, repoRoot).split(/\s+/);
    const first = run(executable!, args, env, repoRoot);
    await waitReady(first, port);
    expect((await (await fetch(`http://127.0.0.1:${port}/readyz`)).json()) as unknown).toEqual({ ok: true, database: 'reachable' });
    await stopWhileBusy(first, port, one('KillSignal') as NodeJS.Signals);
    // Restart=on-failure does not restart a clean stop; a new start takes the port at once.
    const next = run(executable!, args, env, repoRoot);
    await waitReady(next, port);
    await stopWhileBusy(next, port);
  });
});
