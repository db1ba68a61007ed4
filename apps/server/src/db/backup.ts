import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type pg from 'pg';
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
export const FORMATS = [BACKUP_FORMAT, BACKUP_FORMAT_1];

/** Pending jobs (emails, reconciliation) live in pg-boss's own table. */
export const JOB_TABLE = 'pgboss.job';

export interface Header {
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
export interface TableStart {
  table: string;
  columns: string[];
}
export interface Sequences {
  sequences: { name: string; lastValue: string }[];
}
export interface Trailer {
  complete: true;
  tables: number;
  rows: number;
}

export interface ObjectStart {
  object: string;
  size: number;
  sha256: string;
}
export interface ObjectsTrailer {
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
export const SESSION_SETTINGS = [
  "SET LOCAL DateStyle = 'ISO, YMD'",
  "SET LOCAL IntervalStyle = 'postgres'",
  "SET LOCAL TimeZone = 'UTC'",
  "SET LOCAL bytea_output = 'hex'",
  'SET LOCAL extra_float_digits = 3',
];

/** Every value as the text Postgres prints for it, so it reads back exactly. */
const asText = { getTypeParser: () => (value: string) => value };

export const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
export const qualified = (name: string) =>
  name
    .split('.')
    .map((part) => ident(part))
    .join('.');

export async function jobSchemaVersion(client: pg.PoolClient): Promise<number | null> {
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

export async function columnsOf(client: pg.PoolClient, table: string): Promise<{ name: string; identity: boolean }[]> {
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
