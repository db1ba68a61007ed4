import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { retryConnects } from './availability.ts';
import pg from 'pg';
import * as schema from './schema/index.ts';

export type Db = NodePgDatabase<typeof schema> & { $client: pg.Pool };

export interface Database {
  db: Db;
  pool: pg.Pool;
  close(): Promise<void>;
}

/** How a serving shop's connections are named in pg_stat_activity (the CLI's restore looks for them). */
export const SERVER_APPLICATION_NAME = 'storefront';

const closeHooks = new WeakMap<Db, (() => Promise<void>)[]>();

/** Runs `hook` before the pool of `db` closes (close()): e.g. work collected for it is done first. */
export function beforeClose(db: Db, hook: () => Promise<void>): void {
  const hooks = closeHooks.get(db) ?? [];
  hooks.push(hook);
  closeHooks.set(db, hooks);
}

export function connectDatabase(connectionString: string, options: { max?: number; applicationName?: string } = {}): Database {
  const pool = new pg.Pool({ connectionString, max: options.max ?? 10, ...(options.applicationName ? { application_name: options.applicationName } : {}) });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // So must a checked-out client (e.g. between the statements of a transaction) when the
  // server goes away: its pending and next queries fail instead, and the request gets a 5xx.
  pool.on('connect', (client) => client.on('error', () => undefined));
  // A restart of the database: new connections wait for it a moment (issue 40 item 18).
  retryConnects(pool);
  const db = drizzle(pool, { schema });
  // What committed transactions announced is said before the pool closes (decision 067).
  return { db, pool, close: () => Promise.all((closeHooks.get(db) ?? []).map((hook) => hook())).then(() => pool.end()) };
}
