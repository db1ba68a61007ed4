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
      return await db.transaction((tx) => fn(tx, attempt), { isolationLevel });
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
 * `fn` again. An empty transaction is opened after the COMMIT, in the same round trip, for the
 * wrapper's own COMMIT to close (a COMMIT with no transaction would log a warning each time).
 */
export async function runTransactionEndingWith<T>(db: Db, fn: (tx: Tx, attempt: number) => Promise<Ending<T>>, options: TransactionOptions = {}): Promise<T> {
  return runTransaction(
    db,
    async (tx, attempt) => {
      const { result, last } = await fn(tx, attempt);
      if (last) await connectionOf(tx).query(`${last};\nCOMMIT;\nBEGIN`);
      return result;
    },
    options,
  );
}

/** The pg connection behind a Drizzle node-postgres transaction (Drizzle keeps it on its session). */
function connectionOf(tx: Tx): { query(text: string): Promise<unknown> } {
  return (tx as unknown as { session: { client: { query(text: string): Promise<unknown> } } }).session.client;
}
