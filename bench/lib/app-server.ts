import { freePort } from '../../apps/server/src/db/embedded.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const root = path.resolve(import.meta.dirname, '../..');

export interface AppServer {
  base: string;
  port: number;
  dataDir: string;
  /** postgres://... of the embedded cluster the server runs (from DATA_DIR/pg.port). */
  databaseUrl: string;
  pid: number;
  stop(): Promise<void>;
}

async function waitForReady(base: string, child: ChildProcess, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`The server exited with code ${child.exitCode} before it was ready.`);
    try {
      const response = await fetch(`${base}/readyz`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`The server at ${base} was not ready within ${timeoutMs / 1000} s.`);
}

const DIR_PREFIX = 'storefront-bench-';

/** DATA_DIRs left by runs that were killed: removed once no live process holds their lock. */
function removeAbandonedDataDirs() {
  for (const name of fs.readdirSync(os.tmpdir())) {
    if (!name.startsWith(DIR_PREFIX)) continue;
    const dir = path.join(os.tmpdir(), name);
    let holder = 0;
    try {
      holder = Number(fs.readFileSync(path.join(dir, 'server.lock'), 'utf8'));
    } catch {
      // no lock: the server never started there, or stopped cleanly
    }
    let alive: boolean;
    try {
      alive = holder > 0 && process.kill(holder, 0);
    } catch {
      alive = false;
    }
    if (!alive && Date.now() - fs.statSync(dir).mtimeMs > 10 * 60 * 1000) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The real server (`node --import tsx apps/server/src/main.ts`) on a fresh embedded
 * database in a new temporary DATA_DIR, which is removed again on stop(). Its output goes
 * to `logFile`.
 */
export async function startAppServer(logFile: string, extraEnv: Record<string, string> = {}): Promise<AppServer> {
  removeAbandonedDataDirs();
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), DIR_PREFIX));
  // As root, postgres runs as its own user and must be able to enter the folder.
  fs.chmodSync(dataDir, 0o755);
  const log = fs.openSync(logFile, 'w');
  const child = spawn(
    process.execPath,
    [...(process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : []), '--import', 'tsx', 'apps/server/src/main.ts'],
    {
      cwd: root,
      stdio: ['ignore', log, log],
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        NODE_ENV: 'development',
        LOG_LEVEL: 'warn',
        ADMIN_EMAILS: 'admin@example.com',
        // The hot-row section signs up and signs in a crowd of buyers from this one address.
        SIGNUP_RATE_LIMIT: '100000',
        SIGNIN_RATE_LIMIT: '100000',
        CHECKOUT_RATE_LIMIT: '100000',
        CHECKOUT_ADDRESS_RATE_LIMIT: '100000',
        QUOTE_RATE_LIMIT: '100000',
        QUOTE_ADDRESS_RATE_LIMIT: '100000',
        ...extraEnv,
      },
    },
  );
  const base = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    }
    fs.closeSync(log);
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitForReady(base, child, 120_000);
    const pgPort = fs.readFileSync(path.join(dataDir, 'pg.port'), 'utf8').trim();
    const password = fs.readFileSync(path.join(dataDir, 'pg-password'), 'utf8').trim();
    const databaseUrl = `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${pgPort}/storefront`;
    return { base, port, dataDir, databaseUrl, pid: child.pid!, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
