import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newTestDataDir } from '../../test/temp-data-dirs.ts';
import { DataDirInUseError, DataDirUnreachableError, openPathFor, startEmbeddedPostgres, type EmbeddedDatabase } from './embedded.ts';

/**
 * The embedded Postgres owns its DATA_DIR: one server at a time, data kept across
 * restarts, and a lock left by a dead process taken over. This file makes its own
 * cluster (a few seconds of initdb), separate from the shared test server.
 */
const dataDir = newTestDataDir('embedded');
const lockPath = path.join(dataDir, 'server.lock');
let running: EmbeddedDatabase | null = null;

async function start(): Promise<EmbeddedDatabase> {
  running = await startEmbeddedPostgres({ dataDir, ephemeral: true });
  return running;
}

async function stop(): Promise<void> {
  const current = running;
  running = null;
  await current?.stop();
}

async function query<T extends pg.QueryResultRow>(database: EmbeddedDatabase, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: database.connectionString });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

/** A pid that surely belonged to a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  return child.pid;
}

beforeAll(async () => {
  await start();
}, 120_000);

afterAll(async () => {
  try {
    await stop();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

describe('embedded Postgres', () => {
  it('answers on 127.0.0.1 with a storefront database, and holds the lock', async () => {
    expect(running!.connectionString).toMatch(/^postgresql:\/\/postgres:[^@]+@127\.0\.0\.1:\d+\/storefront$/);
    const [row] = await query<{ db: string }>(running!, 'SELECT current_database() AS db');
    expect(row!.db).toBe('storefront');
    expect(fs.readFileSync(lockPath, 'utf8')).toBe(String(process.pid));
  });

  it('refuses a second server on the same DATA_DIR while the first runs, and leaves the first alone', async () => {
    const error = await rejection(startEmbeddedPostgres({ dataDir, ephemeral: true }));
    expect(error).toBeInstanceOf(DataDirInUseError);
    expect((error as Error).message).toContain(`already using DATA_DIR ${dataDir}`);
    // The refused start must not have stopped or replaced the running postgres.
    const [row] = await query<{ one: number }>(running!, 'SELECT 1 AS one');
    expect(row!.one).toBe(1);
    expect(fs.readFileSync(lockPath, 'utf8')).toBe(String(process.pid));
  });

  it('refuses a DATA_DIR whose lock a live process holds', async () => {
    await stop();
    const otherLive = process.ppid;
    fs.writeFileSync(lockPath, String(otherLive));
    try {
      const error = await rejection(startEmbeddedPostgres({ dataDir, ephemeral: true }));
      expect(error).toBeInstanceOf(DataDirInUseError);
      expect((error as Error).message).toContain(`(pid ${otherLive})`);
      expect((error as Error).message).toContain(dataDir);
      expect(fs.readFileSync(lockPath, 'utf8')).toBe(String(otherLive));
    } finally {
      fs.rmSync(lockPath, { force: true });
    }
    await start();
  });

  it('keeps data across stop and start', async () => {
    await query(running!, 'CREATE TABLE kept (note text)');
    await query(running!, "INSERT INTO kept VALUES ('still here')");
    await stop();
    expect(fs.existsSync(lockPath)).toBe(false);
    expect(fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
    const again = await start();
    expect(await query<{ note: string }>(again, 'SELECT note FROM kept')).toEqual([{ note: 'still here' }]);
  });

  it.each<[string, () => string]>([
    ['a dead pid', () => String(deadPid())],
    ['garbage', () => 'not a pid'],
    ['nothing', () => ''],
  ])('takes over a stale server.lock holding %s', async (_name, content) => {
    await stop();
    fs.writeFileSync(lockPath, content());
    const again = await start();
    expect(fs.readFileSync(lockPath, 'utf8')).toBe(String(process.pid));
    expect(await query<{ note: string }>(again, 'SELECT note FROM kept')).toEqual([{ note: 'still here' }]);
  });
});

// A checkout cloned into `mktemp -d` (mode 0700) holds the PostgreSQL programs: the checkout
// is the shop's own, so it is opened for passing through; a closed folder above it is not.
describe('the folders the postgres user must pass through', () => {
  it('opens a closed checkout for passing through, and leaves everything as it was when a folder above it is closed', () => {
    const outer = newTestDataDir('open-path');
    const checkout = path.join(outer, 'checkout');
    const programs = path.join(checkout, 'node_modules');
    fs.mkdirSync(programs, { recursive: true, mode: 0o755 });
    fs.chmodSync(outer, 0o700);
    fs.chmodSync(checkout, 0o700);
    try {
      expect(openPathFor(programs, [checkout])).toEqual({ blocking: outer, opened: [] });
      expect(fs.statSync(checkout).mode & 0o777).toBe(0o700);

      fs.chmodSync(outer, 0o755);
      expect(openPathFor(programs, [checkout])).toEqual({ opened: [checkout] });
      expect(fs.statSync(checkout).mode & 0o777).toBe(0o701);
      expect(fs.statSync(programs).mode & 0o777).toBe(0o755);
      expect(openPathFor(programs, [checkout])).toEqual({ opened: [] });
    } finally {
      fs.rmSync(outer, { recursive: true, force: true });
    }
  });
});

// Issue 13: as root, postgres runs as the user `postgres`, who must reach DATA_DIR/pg.
describe.skipIf(process.getuid?.() !== 0)('as root, a DATA_DIR made with mode 0700 (what `mktemp -d` makes)', () => {
  it('works for the embedded database: DATA_DIR gets search permission for others only (0701)', { timeout: 120_000 }, async () => {
    const privateDir = newTestDataDir('embedded-0700');
    fs.mkdirSync(privateDir, { mode: 0o700 });
    let database: EmbeddedDatabase | undefined;
    try {
      expect(fs.statSync(privateDir).mode & 0o777).toBe(0o700);
      database = await startEmbeddedPostgres({ dataDir: privateDir, ephemeral: true });
      expect(await query<{ ok: number }>(database, 'SELECT 1 AS ok')).toEqual([{ ok: 1 }]);
      expect(fs.statSync(privateDir).mode & 0o777).toBe(0o701);
      // Its secrets stay its owner's.
      expect(fs.statSync(path.join(privateDir, 'pg-password')).mode & 0o077).toBe(0);
    } finally {
      await database?.stop();
      fs.rmSync(privateDir, { recursive: true, force: true });
    }
  });

  it('names the folder above DATA_DIR that keeps postgres out, and what to run', async () => {
    const outer = newTestDataDir('embedded-outer');
    fs.mkdirSync(outer, { mode: 0o700 });
    try {
      const error = await rejection(startEmbeddedPostgres({ dataDir: path.join(outer, 'data'), ephemeral: true }));
      expect(error).toBeInstanceOf(DataDirUnreachableError);
      expect((error as Error).message).toContain(`\`chmod o+x ${outer}\``);
      // The operator's folder is left as it was, and the lock is released.
      expect(fs.statSync(outer).mode & 0o777).toBe(0o700);
      expect(fs.existsSync(path.join(outer, 'data', 'server.lock'))).toBe(false);
    } finally {
      fs.rmSync(outer, { recursive: true, force: true });
    }
  });
});
