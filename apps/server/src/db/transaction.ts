import { is, Param, Placeholder } from 'drizzle-orm';
import { DATA_ACCESS_MESSAGES } from '@storefront/domain/messages.ts';
import { AppError } from '../errors.ts';
import type { Db } from './client.ts';
import { sqlState } from './errors.ts';

export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export interface TransactionOptions {
  /** How many times the whole function may run (spec: default 5, at least 1). */
  maxAttempts?: number;
  isolationLevel?: 'read committed' | 'repeatable read' | 'serializable';
}

export const DEFAULT_MAX_ATTEMPTS = 5;

/** What runs once a runTransaction transaction committed (decision 067: live announcements), never on a rollback. */
const commitHooks = new WeakMap<object, ((db: Db) => void)[]>();

/**
 * Runs `hook` once the transaction `tx` of runTransaction has committed. False when `tx` is not
 * one (the pool, or a transaction opened some other way): the caller does its work at once.
 */
export function onCommit(tx: unknown, hook: (db: Db) => void): boolean {
  const hooks = typeof tx === 'object' && tx !== null ? commitHooks.get(tx) : undefined;
  if (!hooks) return false;
  hooks.push(hook);
  return true;
}

// SQLSTATEs that mean "nothing was written, run it again".
const RETRYABLE = new Set(['40001', '40P01']);

export function isRetryableTransactionError(error: unknown): boolean {
  const state = sqlState(error);
  return state !== undefined && RETRYABLE.has(state);
}

/**
 * Runs `fn` in one transaction and runs it again on a serialization failure or a
 * deadlock, up to `maxAttempts` times. Every multi-row write goes through here.
 */
export async function runTransaction<T>(db: Db, fn: (tx: Tx, attempt: number) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new AppError('invalid-argument', DATA_ACCESS_MESSAGES.maxAttempts);
  }
  const isolationLevel = options.isolationLevel ?? 'serializable';
  for (let attempt = 1; ; attempt += 1) {
    try {
      // What the function announces is said after the commit (decision 067), never on a rollback.
      const hooks: ((db: Db) => void)[] = [];
      const result = await db.transaction(
        (tx) => {
          commitHooks.set(tx, hooks);
          return fn(tx, attempt);
        },
        { isolationLevel },
      );
      for (const hook of hooks) hook(db);
      return result;
    } catch (error) {
      if (!isRetryableTransactionError(error)) throw error;
      if (attempt >= maxAttempts) {
        throw new AppError('aborted', 'The change conflicted with another one. Please try again.');
      }
      // Jittered backoff so the conflicting transactions do not collide again in step.
      const delay = Math.random() * Math.min(100, 5 * 2 ** attempt);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** What a transaction of runTransactionEndingWith gives back: its result, and its last statement. */
export interface Ending<T> {
  result: T;
  /**
   * Parameter-free SQL sent with COMMIT in one round trip (the simple query protocol): the
   * rows it locks are held for this statement and the commit only, not for a round trip and
   * a turn of this process's event loop more. It aborts the transaction by raising.
   */
  last?: string;
}

/**
 * runTransaction for a transaction whose last statement touches a hot row (decision 044: a
 * drop's variant): `fn` runs in the transaction as usual and returns its last statement,
 * which goes to the server together with COMMIT in one round trip. A raised error rolls
 * everything back and reaches the caller (its SQLSTATE says why); conflicts and deadlocks run
 * `fn` again. The wrapper's own COMMIT, which follows, is answered here without being sent
 * (there is nothing left to commit): one round trip less per order (issue 35).
 */
export async function runTransactionEndingWith<T>(db: Db, fn: (tx: Tx, attempt: number) => Promise<Ending<T>>, options: TransactionOptions = {}): Promise<T> {
  return runTransaction(
    db,
    async (tx, attempt) => {
      const { result, last } = await fn(tx, attempt);
      if (last) {
        const connection = connectionOf(tx);
        await connection.query(`${last};\nCOMMIT`);
        skipNextCommit(connection);
      }
      return result;
    },
    options,
  );
}

interface Connection {
  query(...args: unknown[]): Promise<unknown>;
}

/**
 * Runs a statement whose text was built once (a named, prepared text with its parameters) on
 * the transaction's connection: the hottest writes (an order's insert) skip building their SQL
 * on every call, which a CPU profile of the orders bench showed costing more than the
 * statement's round trip (issue 35).
 */
export async function preparedRows<Row>(tx: Tx, statement: { name: string; text: string; params: unknown[] }, values: Record<string, unknown>): Promise<Row[]> {
  const result = (await connectionOf(tx).query({ name: statement.name, text: statement.text, values: driverValues(statement.params, values) })) as { rows: Row[] };
  return result.rows;
}

/** Drizzle's `fillPlaceholders`, but a null stays null (Drizzle's own inserts never map one). */
function driverValues(params: unknown[], values: Record<string, unknown>): unknown[] {
  return params.map((param) => {
    const placeholder = is(param, Placeholder) ? param : is(param, Param) && is(param.value, Placeholder) ? param.value : undefined;
    if (!placeholder) return param;
    if (!(placeholder.name in values)) throw new Error(`No value for placeholder "${placeholder.name}"`);
    const value = values[placeholder.name];
    if (value === null || value === undefined) return null;
    return is(param, Param) ? param.encoder.mapToDriverValue(value) : value;
  });
}

/** The pg connection behind a Drizzle node-postgres transaction (Drizzle keeps it on its session). */
function connectionOf(tx: Tx): Connection {
  return (tx as unknown as { session: { client: Connection } }).session.client;
}

/**
 * The transaction was committed with its last statement: Drizzle's COMMIT, the next query on
 * this connection, is answered as PostgreSQL would (nothing sent). Any other next query
 * (never expected) is sent as it is. The connection's own query method is back either way.
 */
function skipNextCommit(connection: Connection): void {
  const own = Object.prototype.hasOwnProperty.call(connection, 'query') ? connection.query : undefined;
  const restore = () => {
    if (own) connection.query = own;
    else delete (connection as Partial<Connection>).query;
  };
  const send = connection.query.bind(connection);
  connection.query = (...args: unknown[]) => {
    restore();
    const first = args[0];
    const text = typeof first === 'string' ? first : (first as { text?: unknown } | undefined)?.text;
    if (typeof text === 'string' && text.trim().toLowerCase() === 'commit') return Promise.resolve({ command: 'COMMIT', rowCount: null, rows: [], fields: [] });
    return send(...args);
  };
}
