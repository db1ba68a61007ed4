import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import type pg from 'pg';
import { MIGRATIONS_DIR } from './migrate.ts';
import { announceChanged } from './notify.ts';
import { warnCleanup } from '../cleanup.ts';
import {
  BACKUP_FORMAT,
  BackupFileError,
  columnsOf,
  FORMATS,
  type Header,
  ident,
  JOB_TABLE,
  jobSchemaVersion,
  type ObjectStart,
  type ObjectsTrailer,
  qualified,
  type RestoreSummary,
  type Sequences,
  SESSION_SETTINGS,
  type TableStart,
  type Trailer,
} from './backup.ts';

/** Restoring a backup file written by backup.ts: the database, then its stored files. */

/** The lines of a backup file; a damaged gzip stream ends the loop with a BackupFileError. */
async function* readLines(file: string): AsyncGenerator<string> {
  const gunzip = createGunzip();
  const done = pipeline(fs.createReadStream(file), gunzip).then(
    () => undefined,
    (error: unknown) => error,
  );
  const damaged = (error: unknown) => new BackupFileError(file, `it is damaged (${error instanceof Error ? error.message : String(error)}).`);
  try {
    for await (const line of readline.createInterface({ input: gunzip, crlfDelay: Infinity })) if (line) yield line;
  } catch (error) {
    throw damaged(error);
  }
  const error = await done;
  if (error) throw damaged(error);
}

export interface BackupHeader {
  createdAt: string;
  serverVersion: string;
  /** 'local': the stored files are in the file; 'external': they were in S3; 'none': a format 1 file. */
  objects: 'local' | 'external' | 'none';
  /** The AUTH_SECRET kept in DATA_DIR when the backup was taken (it travels with the backup). */
  authSecret: string | undefined;
  authSecretFingerprint: string | undefined;
}

/** When and from what a backup was taken, read from its first line (for a confirmation). */
export async function readBackupHeader(file: string): Promise<BackupHeader> {
  if (!fs.existsSync(file)) throw new BackupFileError(file, 'there is no such file.');
  const lines = readLines(file);
  try {
    const first = await lines.next();
    const header = JSON.parse(first.done ? '{}' : first.value) as Header;
    if (!FORMATS.includes(header.format)) throw new BackupFileError(file, `it is not a ${BACKUP_FORMAT} file.`);
    return {
      createdAt: header.createdAt,
      serverVersion: header.serverVersion,
      objects: header.objects ?? 'none',
      authSecret: header.settings?.authSecret,
      authSecretFingerprint: header.settings?.authSecretFingerprint,
    };
  } catch (error) {
    if (error instanceof SyntaxError) throw new BackupFileError(file, 'it does not start with a backup header.');
    throw error;
  } finally {
    await lines.return(undefined);
  }
}

/** The committed migrations the backup was made at; refuses a backup from newer code. */
function migrationsOf(file: string, header: Header) {
  const known = readMigrationFiles({ migrationsFolder: MIGRATIONS_DIR });
  header.migrations.forEach((migration, index) => {
    if (known[index]?.hash !== migration.hash) {
      throw new BackupFileError(file, `it was made at a database migration this version of the shop does not have (#${index + 1}); restore it with the version that made it.`);
    }
  });
  return { atBackup: known.slice(0, header.migrations.length), newer: known.slice(header.migrations.length) };
}

async function applyMigrations(client: pg.PoolClient, migrations: ReturnType<typeof readMigrationFiles>) {
  // What drizzle's migrator does, inside our transaction instead of its own.
  await client.query('CREATE SCHEMA IF NOT EXISTS drizzle');
  await client.query('CREATE TABLE IF NOT EXISTS drizzle.__drizzle_migrations (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)');
  for (const migration of migrations) {
    for (const statement of migration.sql) if (statement.trim()) await client.query(statement);
    await client.query('INSERT INTO drizzle.__drizzle_migrations (hash, created_at) VALUES ($1, $2)', [migration.hash, migration.folderMillis]);
  }
}

async function insertRows(client: pg.PoolClient, table: string, columns: string[], overriding: boolean, rows: unknown[][]) {
  if (rows.length === 0) return;
  const values = rows.map((_, r) => `(${columns.map((__, c) => `$${r * columns.length + c + 1}`).join(', ')})`).join(', ');
  await client.query(`INSERT INTO ${qualified(table)} (${columns.map(ident).join(', ')})${overriding ? ' OVERRIDING SYSTEM VALUE' : ''} VALUES ${values}`, rows.flat());
}

/**
 * Replaces the shop's data with a backup's, in one transaction: the public schema is
 * dropped and rebuilt from the migrations the backup names, its rows loaded, then any
 * newer migrations applied. Pending jobs are replaced too when pg-boss's tables have
 * the backup's shape. A damaged or partial file changes nothing.
 */
export async function restoreDatabase(pool: pg.Pool, file: string, options: RestoreOptions = {}): Promise<RestoreSummary> {
  if (!fs.existsSync(file)) throw new BackupFileError(file, 'there is no such file.');
  const lines = readLines(file);
  try {
    return await restoreLines(pool, file, lines, options);
  } catch (error) {
    if (error instanceof SyntaxError) throw new BackupFileError(file, `a line is not valid JSON (${error.message}).`);
    throw error;
  } finally {
    await lines.return(undefined);
  }
}

export interface RestoreOptions {
  /**
   * An empty folder to write the backup's stored files into (the caller moves it into
   * place once this returns); without it, the files are read and checked but not written.
   */
  objectsDir?: string;
}

async function restoreLines(pool: pg.Pool, file: string, lines: AsyncGenerator<string>, options: RestoreOptions): Promise<RestoreSummary> {
  const first = await lines.next();
  const header = JSON.parse(first.done ? '{}' : first.value) as Header;
  if (!FORMATS.includes(header.format)) throw new BackupFileError(file, `it is not a ${BACKUP_FORMAT} file.`);
  const migrations = migrationsOf(file, header);

  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    for (const setting of SESSION_SETTINGS) await client.query(setting);
    // Wait for requests in flight rather than fail at once, but not forever.
    await client.query("SET LOCAL lock_timeout = '60s'");
    await client.query('DROP SCHEMA IF EXISTS public CASCADE');
    await client.query('DROP SCHEMA IF EXISTS drizzle CASCADE');
    await client.query('CREATE SCHEMA public');
    await client.query('GRANT USAGE ON SCHEMA public TO PUBLIC');
    await applyMigrations(client, migrations.atBackup);
    const loadJobs = header.jobSchemaVersion !== null && header.jobSchemaVersion === (await jobSchemaVersion(client));
    const summary = await loadData(client, file, lines, loadJobs);
    // The files are read before the commit: a damaged file section changes nothing either.
    const objects = header.objects === 'local' ? await loadObjects(file, lines, options.objectsDir) : null;
    await applyMigrations(client, migrations.newer);
    // Running servers drop their cached catalogue and live clients refetch, at the commit.
    await announceChanged(client, ['products', 'all-orders', 'content', 'admin']);
    await client.query('COMMIT');
    return { takenAt: header.createdAt, ...summary, objects };
  } catch (error) {
    await client.query('ROLLBACK').catch(warnCleanup('rolling back the failed restore'));
    throw error;
  } finally {
    client.release();
  }
}

/** The same lines, but leaving the loop early does not close them (the next section goes on reading). */
function sectionOf(lines: AsyncGenerator<string>): AsyncIterable<string> {
  return { [Symbol.asyncIterator]: () => ({ next: () => lines.next() }) };
}

/** Loads every table section of the file, batching rows into multi-row inserts. */
async function loadData(client: pg.PoolClient, file: string, lines: AsyncGenerator<string>, loadJobs: boolean) {
  const summary = { tables: 0, rows: 0, jobs: loadJobs ? 0 : ('skipped' as const), jobHistory: 0 };
  // pg-boss keeps finished jobs for days: only these states are work still to do.
  const PENDING_STATES = new Set(['created', 'retry', 'active']);
  let jobStateColumn = -1;
  let current: { table: string; columns: string[]; overriding: boolean; load: boolean } | null = null;
  let pending: unknown[][] = [];
  const seen = { tables: 0, rows: 0 };
  const flush = async () => {
    if (current?.load) await insertRows(client, current.table, current.columns, current.overriding, pending);
    pending = [];
  };
  for await (const line of sectionOf(lines)) {
    const item = JSON.parse(line) as unknown[] | TableStart | Sequences | Trailer;
    if (Array.isArray(item)) {
      if (!current || item.length !== current.columns.length) throw new BackupFileError(file, 'a row does not match its table.');
      seen.rows += 1;
      if (!current.load) continue;
      pending.push(item);
      if (current.table === JOB_TABLE) {
        if (PENDING_STATES.has(String(item[jobStateColumn]))) summary.jobs = (summary.jobs as number) + 1;
        else summary.jobHistory += 1;
      } else summary.rows += 1;
      if (pending.length * current.columns.length >= 20_000) await flush();
      continue;
    }
    await flush();
    if ('table' in item) {
      const isJobs = item.table === JOB_TABLE;
      seen.tables += 1;
      const load = !isJobs || loadJobs;
      const columns = load ? await columnsOf(client, item.table) : [];
      const known = new Set(columns.map((column) => column.name));
      if (load && item.columns.some((column) => !known.has(column))) {
        throw new BackupFileError(file, `its table ${item.table} does not match the migrations it names.`);
      }
      if (isJobs && load) await client.query(`DELETE FROM ${qualified(JOB_TABLE)}`);
      // Rows a migration wrote (0027's default categories) give way to the backup's own: the
      // backup's rows replace ALL rows. Parents load before their children, so nothing points here yet.
      if (!isJobs && load) await client.query(`DELETE FROM ${qualified(item.table)}`);
      if (isJobs) jobStateColumn = item.columns.indexOf('state');
      if (!isJobs) summary.tables += 1;
      current = { table: item.table, columns: item.columns, overriding: columns.some((column) => column.identity), load };
    } else if ('sequences' in item) {
      current = null;
      for (const sequence of item.sequences) {
        await client.query('SELECT setval($1::regclass, $2::bigint, true)', [qualified(sequence.name), sequence.lastValue]);
      }
    } else if ('complete' in item) {
      if (item.tables !== seen.tables || item.rows !== seen.rows) throw new BackupFileError(file, 'its contents do not add up to its own totals.');
      return summary;
    }
  }
  throw new BackupFileError(file, 'it ends before its last table (was it cut short?).');
}

/** The stored-files section of a format 2 backup, each file checked against its size and SHA-256. */
async function loadObjects(file: string, lines: AsyncGenerator<string>, into: string | undefined) {
  const counts = { count: 0, bytes: 0 };
  let current: { start: ObjectStart; hash: ReturnType<typeof createHash>; size: number; fd: number | null } | null = null;
  const finish = () => {
    if (!current) return;
    if (current.fd !== null) fs.closeSync(current.fd);
    if (current.size !== current.start.size || current.hash.digest('hex') !== current.start.sha256) {
      throw new BackupFileError(file, `its copy of the stored file ${current.start.object} is damaged.`);
    }
    counts.count += 1;
    counts.bytes += current.size;
    current = null;
  };
  for await (const line of sectionOf(lines)) {
    const item = JSON.parse(line) as string | ObjectStart | ObjectsTrailer;
    if (typeof item === 'string') {
      if (!current) throw new BackupFileError(file, 'stored-file data comes before its file.');
      const data = Buffer.from(item, 'base64');
      current.hash.update(data);
      current.size += data.length;
      if (current.fd !== null) fs.writeSync(current.fd, data);
      continue;
    }
    finish();
    if ('object' in item) {
      const key = item.object;
      // Keys are the storage driver's own: relative, no '..', nothing outside the folder.
      if (typeof key !== 'string' || !/^[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/.test(key) || key.split('/').some((part) => /^\.+$/.test(part))) {
        throw new BackupFileError(file, `it names a stored file outside the storage folder (${String(key)}).`);
      }
      let fd: number | null = null;
      if (into) {
        const target = path.join(into, ...key.split('/'));
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fd = fs.openSync(target, 'wx', 0o600);
      }
      current = { start: item, hash: createHash('sha256'), size: 0, fd };
    } else if ('objectsComplete' in item) {
      if (item.objects !== counts.count || item.bytes !== counts.bytes) throw new BackupFileError(file, 'its stored files do not add up to its own totals.');
      return counts;
    }
  }
  throw new BackupFileError(file, 'it ends before its last stored file (was it cut short?).');
}
