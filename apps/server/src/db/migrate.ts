import path from 'node:path';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import type pg from 'pg';
import { warnCleanup } from '../cleanup.ts';

// apps/server/drizzle, from the sources (apps/server/src/db) or the bundle (apps/server/dist).
export const MIGRATIONS_DIR = path.resolve(import.meta.dirname, path.basename(import.meta.dirname) === 'dist' ? '../drizzle' : '../../drizzle');

// Any constant works; it only has to be the same for every process that migrates.
const MIGRATION_LOCK_KEY = 727_301;

/** Applies the committed migrations, one process at a time. */
export async function runMigrations(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_DIR });
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(warnCleanup('releasing the migration lock'));
    client.release();
  }
}
