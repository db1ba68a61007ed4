import fs from 'node:fs';
import path from 'node:path';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import type pg from 'pg';
import { warnCleanup } from '../cleanup.ts';

// apps/server/drizzle, from the sources (apps/server/src/db) or the bundle (apps/server/dist).
export const MIGRATIONS_DIR = path.resolve(import.meta.dirname, path.basename(import.meta.dirname) === 'dist' ? '../drizzle' : '../../drizzle');

// Any constant works; it only has to be the same for every process that migrates.
const MIGRATION_LOCK_KEY = 727_301;

/** What a start did to the schema: the migrations it applied (by tag, oldest first), and how many there are. */
export interface MigrationReport {
  applied: string[];
  total: number;
}

interface JournalEntry {
  tag: string;
  when: number;
}

function journal(): JournalEntry[] {
  const text = fs.readFileSync(path.join(MIGRATIONS_DIR, 'meta', '_journal.json'), 'utf8');
  return (JSON.parse(text) as { entries: JournalEntry[] }).entries;
}

/** Applies the committed migrations, one process at a time; says which ones this call applied. */
export async function runMigrations(pool: pg.Pool): Promise<MigrationReport> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    // Drizzle records each applied migration with its journal time: the ones after the
    // newest recorded time are what this call applies (read under the lock).
    const table = await client.query<{ name: string | null }>("SELECT to_regclass('drizzle.__drizzle_migrations')::text AS name");
    const before = table.rows[0]?.name ? await client.query<{ last: string | null }>('SELECT max(created_at)::text AS last FROM drizzle.__drizzle_migrations') : undefined;
    await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_DIR });
    const recorded = before?.rows[0]?.last;
    const last = recorded === null || recorded === undefined ? -Infinity : Number(recorded);
    const entries = journal();
    return { applied: entries.filter((entry) => entry.when > last).map((entry) => entry.tag), total: entries.length };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(warnCleanup('releasing the migration lock'));
    client.release();
  }
}

/** The start-up line about migrations (issue 25 item 10). */
export function describeMigrations(report: MigrationReport): string {
  if (report.applied.length === 0) return `Migrations: none to apply (all ${report.total} were applied before).`;
  return `Migrations: applied ${report.applied.length} of ${report.total}: ${report.applied.join(', ')}.`;
}
