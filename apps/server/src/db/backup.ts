import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import type pg from 'pg';
import { MIGRATIONS_DIR } from './migrate.ts';
import { announceChanged } from './notify.ts';
import { warnCleanup } from '../cleanup.ts';

/**
 * Logical backups of the shop's database (docs/decisions/012-backups-without-pg-dump.md). The embedded
 * package ships no pg_dump, and Debian's is too old for its PostgreSQL 18, so we write
 * our own: one consistent snapshot of every table, as Postgres's own text form of each
 * value, in a gzipped file of JSON lines. The schema is not in the file: it is exactly
 * the committed migrations the backup names, which a restore replays before loading.
 */
export const BACKUP_FORMAT = 'storefront-backup/2';
/** The first format: the database only (still restored). */
const BACKUP_FORMAT_1 = 'storefront-backup/1';
const FORMATS = [BACKUP_FORMAT, BACKUP_FORMAT_1];

/** Pending jobs (emails, reconciliation) live in pg-boss's own table. */
const JOB_TABLE = 'pgboss.job';

interface Header {
  format: string;
  createdAt: string;
  serverVersion: string;
  migrations: { hash: string; createdAt: number }[];
  jobSchemaVersion: number | null;
  /**
   * Format 2: where the stored objects (images, their variants, upload staging) were:
   * 'local' means they follow the database in this file; 'external' means an object
   * store (S3) the operator backs up; absent in format 1 files.
   */
  objects?: 'local' | 'external';
  /** The settings that travel: the AUTH_SECRET when it was kept in DATA_DIR, and a fingerprint of it. */
  settings?: { authSecret?: string; authSecretFingerprint?: string };
}
interface TableStart {
  table: string;
  columns: string[];
}
interface Sequences {
  sequences: { name: string; lastValue: string }[];
}
interface Trailer {
  complete: true;
  tables: number;
  rows: number;
}

interface ObjectStart {
  object: string;
  size: number;
  sha256: string;
}
interface ObjectsTrailer {
  objectsComplete: true;
  objects: number;
  bytes: number;
}

export interface BackupSummary {
  tables: number;
  rows: number;
  bytes: number;
  /** Stored files copied into the backup (null: objects live in an external store). */
  objects: { count: number; bytes: number } | null;
}

export interface BackupOptions {
  /** The local storage driver's folder (DATA_DIR/storage), or null when objects live in S3. */
  storageDir: string | null;
  /** AUTH_SECRET, and whether it is kept in DATA_DIR (then it travels in the file). */
  authSecret?: { value: string; stored: boolean };
}

export interface RestoreSummary {
  takenAt: string;
  tables: number;
  rows: number;
  /** Jobs still to run (waiting, retrying or running when the backup was taken), or 'skipped'. */
  jobs: number | 'skipped';
  /** The other job rows restored: finished, cancelled or failed ones pg-boss keeps for a while. */
  jobHistory: number;
  /** Files written to the staging folder given to restoreDatabase. */
  objects: { count: number; bytes: number } | null;
}

/** A short, one-way fingerprint of AUTH_SECRET: tells whether two secrets match. */
export function secretFingerprint(secret: string): string {
  return createHash('sha256').update(`storefront-auth-secret:${secret}`).digest('hex').slice(0, 16);
}

/** Largest piece of a stored file on one line of the backup (base64 of this many bytes). */
const OBJECT_CHUNK = 768 * 1024;

/** Every stored file under `root`, as a key with '/' separators (files being written are skipped). */
async function* storedFiles(root: string, prefix = ''): AsyncGenerator<string> {
  let entries: fs.Dirent[];
  try {
    entries = await fs.promises.readdir(path.join(root, prefix), { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const key = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) yield* storedFiles(root, key);
    else if (entry.isFile() && !entry.name.endsWith('.tmp')) yield key;
  }
}

async function* objectLines(root: string, counts: { count: number; bytes: number }): AsyncGenerator<string> {
  for await (const key of storedFiles(root)) {
    let data: Buffer;
    try {
      data = await fs.promises.readFile(path.join(root, ...key.split('/')));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue; // deleted meanwhile
      throw error;
    }
    const sha256 = createHash('sha256').update(data).digest('hex');
    yield `${JSON.stringify({ object: key, size: data.length, sha256 } satisfies ObjectStart)}\n`;
    for (let offset = 0; offset < data.length; offset += OBJECT_CHUNK) {
      yield `${JSON.stringify(data.subarray(offset, offset + OBJECT_CHUNK).toString('base64'))}\n`;
    }
    counts.count += 1;
    counts.bytes += data.length;
  }
  yield `${JSON.stringify({ objectsComplete: true, objects: counts.count, bytes: counts.bytes } satisfies ObjectsTrailer)}\n`;
}

export class BackupFileError extends Error {
  constructor(file: string, problem: string) {
    super(`${file} is not a usable backup: ${problem}`);
    this.name = 'BackupFileError';
  }
}

// The same text form on the way out and in, whatever the server's defaults.
const SESSION_SETTINGS = [
  "SET LOCAL DateStyle = 'ISO, YMD'",
  "SET LOCAL IntervalStyle = 'postgres'",
  "SET LOCAL TimeZone = 'UTC'",
  "SET LOCAL bytea_output = 'hex'",
  'SET LOCAL extra_float_digits = 3',
];

/** Every value as the text Postgres prints for it, so it reads back exactly. */
const asText = { getTypeParser: () => (value: string) => value };

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
const qualified = (name: string) =>
  name
    .split('.')
    .map((part) => ident(part))
    .join('.');

async function jobSchemaVersion(client: pg.PoolClient): Promise<number | null> {
  const { rows } = await client.query<{ version: number | null }>("SELECT CASE WHEN to_regclass('pgboss.version') IS NULL THEN NULL ELSE 0 END AS version");
  if (rows[0]!.version === null) return null;
  const version = await client.query<{ version: number }>('SELECT version FROM pgboss.version');
  return version.rows[0]?.version ?? null;
}

/**
 * Tables the database derives from others (by triggers, decision 034): not backed up, since
 * loading the orders and lines of a backup fills them again.
 */
const DERIVED_TABLES = ['order_search_term', 'order_item_term'];

/** The shop's tables, parents before the tables whose foreign keys point at them. */
async function tablesInLoadOrder(client: pg.PoolClient): Promise<string[]> {
  const tables = await client.query<{ oid: number; name: string }>(
    `
    SELECT c.oid::int AS oid, n.nspname || '.' || c.relname AS name
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition AND NOT (c.relname = ANY($1::text[]))
    ORDER BY c.relname`,
    [DERIVED_TABLES],
  );
  const keys = await client.query<{ child: number; parent: number }>(
    "SELECT conrelid::int AS child, confrelid::int AS parent FROM pg_constraint WHERE contype = 'f' AND conrelid <> confrelid",
  );
  const ordered: string[] = [];
  const placed = new Set<number>();
  let remaining = tables.rows;
  while (remaining.length > 0) {
    const ready = remaining.filter((table) => keys.rows.every((key) => key.child !== table.oid || placed.has(key.parent) || !remaining.some((t) => t.oid === key.parent)));
    if (ready.length === 0) throw new Error(`Foreign keys form a cycle among ${remaining.map((t) => t.name).join(', ')}.`);
    for (const table of ready) {
      ordered.push(table.name);
      placed.add(table.oid);
    }
    remaining = remaining.filter((table) => !placed.has(table.oid));
  }
  return ordered;
}

async function columnsOf(client: pg.PoolClient, table: string): Promise<{ name: string; identity: boolean }[]> {
  const { rows } = await client.query<{ name: string; identity: string }>(
    `SELECT attname AS name, attidentity AS identity FROM pg_attribute
     WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = '' ORDER BY attnum`,
    [qualified(table)],
  );
  return rows.map((row) => ({ name: row.name, identity: row.identity === 'a' }));
}

async function* backupLines(
  client: pg.PoolClient,
  counts: { tables: number; rows: number },
  options: BackupOptions,
  objects: { count: number; bytes: number },
): AsyncGenerator<string> {
  const version = await client.query<{ server_version: string }>('SHOW server_version');
  const migrations = await client.query<{ hash: string; created_at: string }>('SELECT hash, created_at FROM drizzle.__drizzle_migrations ORDER BY created_at');
  const jobVersion = await jobSchemaVersion(client);
  const header: Header = {
    format: BACKUP_FORMAT,
    createdAt: new Date().toISOString(),
    serverVersion: version.rows[0]!.server_version,
    migrations: migrations.rows.map((row) => ({ hash: row.hash, createdAt: Number(row.created_at) })),
    jobSchemaVersion: jobVersion,
    objects: options.storageDir ? 'local' : 'external',
    settings: options.authSecret?.value
      ? {
          ...(options.authSecret.stored ? { authSecret: options.authSecret.value } : {}),
          authSecretFingerprint: secretFingerprint(options.authSecret.value),
        }
      : {},
  };
  yield `${JSON.stringify(header)}\n`;

  const tables = await tablesInLoadOrder(client);
  if (jobVersion !== null) tables.push(JOB_TABLE);
  for (const table of tables) {
    const columns = (await columnsOf(client, table)).map((column) => column.name);
    yield `${JSON.stringify({ table, columns } satisfies TableStart)}\n`;
    await client.query(`DECLARE backup_rows NO SCROLL CURSOR FOR SELECT ${columns.map(ident).join(', ')} FROM ${qualified(table)}`);
    for (;;) {
      const batch = await client.query<unknown[]>({ text: 'FETCH 500 FROM backup_rows', rowMode: 'array', types: asText });
      if (batch.rows.length === 0) break;
      counts.rows += batch.rows.length;
      yield `${batch.rows.map((row) => JSON.stringify(row)).join('\n')}\n`;
    }
    await client.query('CLOSE backup_rows');
    counts.tables += 1;
  }

  const sequences = await client.query<{ name: string; last_value: string }>(
    "SELECT schemaname || '.' || sequencename AS name, last_value::text FROM pg_sequences WHERE schemaname = 'public' AND last_value IS NOT NULL",
  );
  yield `${JSON.stringify({ sequences: sequences.rows.map((row) => ({ name: row.name, lastValue: row.last_value })) } satisfies Sequences)}\n`;
  yield `${JSON.stringify({ complete: true, ...counts } satisfies Trailer)}\n`;
  // The files after the database snapshot: every object a backed-up row names is on disk
  // by then (objects are written before their rows and never changed in place).
  if (options.storageDir) yield* objectLines(options.storageDir, objects);
}

/** Writes a consistent snapshot of the database to `file` (replaced only once complete). */
export async function backupDatabase(pool: pg.Pool, file: string, options: BackupOptions = { storageDir: null }): Promise<BackupSummary> {
  const partial = `${file}.partial`;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const counts = { tables: 0, rows: 0 };
  const objects = { count: 0, bytes: 0 };
  const client = await pool.connect();
  try {
    // One snapshot for every table, as pg_dump takes.
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    for (const setting of SESSION_SETTINGS) await client.query(setting);
    await pipeline(Readable.from(backupLines(client, counts, options, objects)), createGzip(), fs.createWriteStream(partial, { mode: 0o600 }));
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(warnCleanup('rolling back the failed backup'));
    fs.rmSync(partial, { force: true });
    throw error;
  } finally {
    client.release();
  }
  fs.renameSync(partial, file);
  return { ...counts, bytes: fs.statSync(file).size, objects: options.storageDir ? objects : null };
}

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
