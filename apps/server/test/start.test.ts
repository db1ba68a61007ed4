import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../src/db/embedded.ts';
import { newTestDataDir } from './temp-data-dirs.ts';

/**
 * The real start-up path (`node --import tsx apps/server/src/main.ts`, what `npm start`
 * runs): embedded Postgres in a fresh DATA_DIR, seeding, the DATA_DIR lock, and a clean
 * shutdown on SIGTERM that leaves no postgres behind.
 */
const repoRoot = path.resolve(import.meta.dirname, '../../..');
const dataDir = newTestDataDir('start');
const pgDir = path.join(dataDir, 'pg');

interface ServerProcess {
  child: ChildProcess;
  port: number;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const started: ServerProcess[] = [];

function baseEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  // The server under test must use its own embedded database, whatever this run uses.
  delete env.DATABASE_URL;
  delete env.TEST_DATABASE_URL;
  delete env.NODE_OPTIONS;
  return env;
}

async function spawnServer(settings: Record<string, string> = {}): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/server/src/main.ts'], {
    cwd: repoRoot,
    env: { ...baseEnv(), NODE_ENV: 'development', HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...settings },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const server = { child, port, output: () => output, exited };
  started.push(server);
  return server;
}

/** Polls until `check` returns a value, the deadline passes, or `stopIf` says to give up. */
async function poll<T>(what: string, check: () => Promise<T | undefined>, { timeoutMs, stopIf }: { timeoutMs: number; stopIf?: () => string | undefined }): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    const reason = stopIf?.();
    if (reason) throw new Error(`Gave up waiting for ${what}: ${reason}`);
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function waitUntilReady(server: ServerProcess): Promise<void> {
  await poll(`${server.port}/readyz`, async () => ((await fetch(`http://127.0.0.1:${server.port}/readyz`)).status === 200 ? true : undefined), {
    timeoutMs: 90_000,
    stopIf: () =>
      server.child.exitCode !== null || server.child.signalCode !== null
        ? `the server exited (${server.child.exitCode ?? server.child.signalCode}):\n${server.output()}`
        : undefined,
  });
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`Timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function postmasterPid(): number | undefined {
  try {
    const pid = Number(fs.readFileSync(path.join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Pids of running processes whose command line names our data dir (the postmaster has `-D <dir>`). */
function processesUsingDataDir(): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes(dataDir) && Number(entry) !== process.pid) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

async function get<T>(server: ServerProcess, url: string): Promise<{ status: number; body: T }> {
  const response = await fetch(`http://127.0.0.1:${server.port}${url}`);
  return { status: response.status, body: (await response.json()) as T };
}

async function historyCount(server: ServerProcess): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${server.port}/fn/listHistory`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ data: { limit: 100 } }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { entries: unknown[] } }).data.entries.length;
}

/** SIGTERM, then: exit code 0, and no postgres left for the data dir. */
async function stopCleanly(server: ServerProcess): Promise<void> {
  const postmaster = postmasterPid();
  expect(postmaster, 'postmaster.pid while running').toBeDefined();
  server.child.kill('SIGTERM');
  const { code, signal } = await withTimeout(server.exited, 30_000, 'the server to exit after SIGTERM');
  expect({ code, signal }, server.output()).toEqual({ code: 0, signal: null });
  expect(isAlive(postmaster!)).toBe(false);
  expect(fs.existsSync(path.join(pgDir, 'postmaster.pid'))).toBe(false);
  expect(fs.existsSync(path.join(dataDir, 'server.lock'))).toBe(false);
  expect(processesUsingDataDir()).toEqual([]);
}

/** Stops whatever a failed test left running: its servers, then a postgres they orphaned. */
async function stopLeftovers(): Promise<void> {
  for (const server of started.splice(0)) {
    if (server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGTERM');
      await withTimeout(server.exited, 30_000, 'a leftover server').catch(() => server.child.kill('SIGKILL'));
    }
  }
  const leftovers = processesUsingDataDir();
  for (const pid of leftovers) process.kill(pid, 'SIGINT');
  await poll('leftover postgres to stop', async () => (leftovers.some(isAlive) ? undefined : true), { timeoutMs: 30_000 }).catch(() => undefined);
}

afterEach(stopLeftovers, 90_000);

afterAll(async () => {
  await stopLeftovers();
  fs.rmSync(dataDir, { recursive: true, force: true });
}, 90_000);

describe('starting the server for real', { timeout: 120_000 }, () => {
  it('a bad setting stops start-up with a message naming it', async () => {
    const server = await spawnServer({ PORT: 'abc' });
    const { code } = await withTimeout(server.exited, 30_000, 'the server to refuse PORT=abc');
    expect(code).not.toBe(0);
    expect(server.output()).toMatch(/^\s*PORT: /m);
    expect(fs.existsSync(dataDir)).toBe(false);
  });

  it('starts on an empty DATA_DIR, seeds sample content, refuses a second server, and stops cleanly', async () => {
    // At info: the start-up and last lines (issue 25 item 10).
    const server = await spawnServer({ LOG_LEVEL: 'info' });
    await waitUntilReady(server);
    // One line naming every migration this start applied.
    const journal = JSON.parse(fs.readFileSync(path.join(repoRoot, 'apps/server/drizzle/meta/_journal.json'), 'utf8')) as { entries: { tag: string }[] };
    const migrationLines = server.output().match(/^.*Migrations: .*$/gm) ?? [];
    expect(migrationLines).toHaveLength(1);
    expect(migrationLines[0]).toContain(`applied ${journal.entries.length} of ${journal.entries.length}: ${journal.entries.map((entry) => entry.tag).join(', ')}.`);

    const home = await get<{ slug: string; title: string }>(server, '/api/pages/home');
    expect(home.status).toBe(200);
    expect(home.body.slug).toBe('home');
    expect(home.body.title.length).toBeGreaterThan(0);
    expect(await historyCount(server)).toBe(35);

    const second = await spawnServer();
    const { code } = await withTimeout(second.exited, 60_000, 'the second server to give up');
    expect(code).not.toBe(0);
    expect(second.output()).toContain(`already using DATA_DIR ${dataDir}`);
    expect(second.output()).toContain(`(pid ${server.child.pid})`);
    // The first one is untouched.
    expect((await get(server, '/readyz')).status).toBe(200);

    await stopCleanly(server);
    // The last line of the run says it stopped.
    expect(server.output().trimEnd().split('\n').at(-1)).toMatch(/Storefront stopped\.$/);
  });

  it('starts again on the same DATA_DIR with the data kept and nothing seeded twice', async () => {
    const server = await spawnServer({ LOG_LEVEL: 'info' });
    await waitUntilReady(server);
    expect(server.output()).toMatch(/Migrations: none to apply \(all \d+ were applied before\)\./);
    expect(await historyCount(server)).toBe(35);
    expect((await get(server, '/api/pages/home')).status).toBe(200);
    expect(server.output()).not.toContain('Seeded sample content');
    await stopCleanly(server);
  });

  it('on SIGTERM lets a request in flight finish, then closes its kept-alive connection and stops postgres', async () => {
    // At info: the test waits for the server's "SIGTERM received" line.
    const server = await spawnServer({ LOG_LEVEL: 'info' });
    await waitUntilReady(server);
    // Hold a lock from outside so that a listHistory request is stuck inside the database.
    const lines = fs.readFileSync(path.join(pgDir, 'postmaster.pid'), 'utf8').split('\n');
    const locker = new pg.Client({
      host: '127.0.0.1',
      port: Number(lines[3]),
      user: 'postgres',
      password: fs.readFileSync(path.join(dataDir, 'pg-password'), 'utf8').trim(),
      database: 'storefront',
    });
    locker.on('error', () => undefined);
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE timeline_entries IN ACCESS EXCLUSIVE MODE');
      // fetch keeps its connection open after the answer, as a browser does.
      const inFlight = fetch(`http://127.0.0.1:${server.port}/fn/listHistory`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ data: {} }),
      });
      await poll(
        'the request to wait on the lock',
        async () => {
          // pg_locks is live; pg_stat_activity would be a snapshot frozen inside this transaction.
          const { rows } = await locker.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = 'timeline_entries'::regclass");
          return rows[0]!.n > 0 ? true : undefined;
        },
        { timeoutMs: 10_000 },
      );
      server.child.kill('SIGTERM');
      await poll('the server to start shutting down', async () => (server.output().includes('SIGTERM received') ? true : undefined), {
        timeoutMs: 10_000,
      });
      await locker.query('ROLLBACK');
      const response = await inFlight;
      expect(response.status).toBe(200);
      expect(((await response.json()) as { data: { entries: unknown[] } }).data.entries).toHaveLength(35);
    } finally {
      await locker.end().catch(() => undefined);
    }
    const { code, signal } = await withTimeout(server.exited, 30_000, 'the server to exit after SIGTERM');
    expect({ code, signal }, server.output()).toEqual({ code: 0, signal: null });
    expect(processesUsingDataDir()).toEqual([]);
  });

  it('recovers after the server was killed and left its postgres running', async () => {
    const killed = await spawnServer();
    await waitUntilReady(killed);
    const orphan = postmasterPid()!;
    killed.child.kill('SIGKILL');
    await withTimeout(killed.exited, 10_000, 'the killed server');
    expect(isAlive(orphan)).toBe(true);

    const server = await spawnServer({ LOG_LEVEL: 'info' });
    await waitUntilReady(server);
    expect(isAlive(orphan)).toBe(false);
    expect(postmasterPid()).not.toBe(orphan);
    // The operator learns what happened (issue 25 item 10).
    // Stopped by the new server, or (its output went to the killed one) gone by itself before it started: said either way.
    const said = server
      .output()
      .split('\n')
      .find((line) => line.includes(`PostgreSQL (pid ${orphan})`) && line.includes(pgDir));
    expect(said, server.output()).toMatch(/Stopped an orphaned embedded PostgreSQL .* left running in|was left by a server that did not stop cleanly .* has stopped since/);
    expect(await historyCount(server)).toBe(35);
    await stopCleanly(server);
  });
});
