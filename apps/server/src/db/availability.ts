import { AsyncLocalStorage } from 'node:async_hooks';
import type pg from 'pg';

/**
 * The database going away for a moment (a restart, a failover): issue 40 item 18.
 *
 * - Connecting is always safe to retry (no statement was sent): the pool's `connect` waits
 *   through a short outage (about 2.5 s) instead of failing, so the reads and the transactions
 *   that start during a restart go through when it is back.
 * - What still fails (a statement cut off mid-flight, a longer outage) is answered 503 with
 *   `Retry-After` (http/error-handler.ts), never 500; a statement whose fate is unknown is not
 *   re-run (it may have written).
 * - One log line per outage, not per request.
 */

/** Errors that mean the server could not be reached or did not accept the connection yet. */
const CONNECT_CODES = new Set(['ECONNREFUSED', 'ENOENT', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', '57P03']);
/** Errors that mean the database went away or is going away (admin shutdown, crash, connection failure). */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006']);
const CONNECT_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|the database system is (starting up|shutting down|in recovery mode)/;

const codeOf = (error: unknown): string | undefined => {
  for (let current = error, depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    if ('code' in current && typeof current.code === 'string') return current.code;
    current = 'cause' in current ? current.cause : undefined;
  }
  return undefined;
};
const messageOf = (error: unknown): string => {
  for (let current = error, depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    if ('message' in current && typeof current.message === 'string' && CONNECT_MESSAGES.test(current.message)) return current.message;
    current = 'cause' in current ? current.cause : undefined;
  }
  return '';
};

/** A failure to get a connection at all: nothing was sent, so trying again is safe. */
export function isConnectFailure(error: unknown): boolean {
  const code = codeOf(error);
  return (code !== undefined && CONNECT_CODES.has(code)) || CONNECT_MESSAGES.test(messageOf(error));
}

/** The database is unreachable or went away: the request may be tried again shortly (503). */
export function isDatabaseUnavailable(error: unknown): boolean {
  const code = codeOf(error);
  return isConnectFailure(error) || (code !== undefined && UNAVAILABLE_STATES.has(code));
}

/** Waits between connection attempts: about 2.5 s in all, a restart's usual length. */
export const CONNECT_RETRY_DELAYS_MS = [50, 100, 200, 400, 600, 600, 600];

const noRetry = new AsyncLocalStorage<true>();

/** Runs `work` with connections that are not retried (a readiness probe answers at once). */
export function withoutConnectRetry<T>(work: () => Promise<T>): Promise<T> {
  return noRetry.run(true, work);
}

type ConnectCallback = (error: Error | undefined, client: pg.PoolClient | undefined, release: (release?: unknown) => void) => void;

/** Makes the pool's `connect` (and so `query` and every transaction) wait through a short outage. */
export function retryConnects(pool: pg.Pool): void {
  const connectOnce = pool.connect.bind(pool) as unknown as (callback: ConnectCallback) => void;
  const connect = (callback: ConnectCallback) => {
    let attempt = 0;
    const retrying = noRetry.getStore() !== true;
    const tryOnce = () =>
      connectOnce((error, client, release) => {
        if (error && retrying && isConnectFailure(error) && attempt < CONNECT_RETRY_DELAYS_MS.length && !pool.ending) {
          noteDatabaseOutage(error);
          setTimeout(tryOnce, CONNECT_RETRY_DELAYS_MS[attempt++]).unref();
          return;
        }
        callback(error, client, release);
      });
    tryOnce();
  };
  (pool as unknown as { connect: (callback?: ConnectCallback) => unknown }).connect = (callback?: ConnectCallback) => {
    if (callback) return connect(callback);
    return new Promise<pg.PoolClient>((resolve, reject) => connect((error, client) => (error ? reject(error) : resolve(client!))));
  };
}

const listeners = new Set<(error: unknown) => void>();

/** Hears every sign of an outage (a retried connection, a request answered 503); returns the unsubscribe. */
export function onDatabaseOutage(listener: (error: unknown) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Reports a sign of an outage to the listeners. */
export function noteDatabaseOutage(error: unknown): void {
  for (const listener of listeners) listener(error);
}

/** One log line per outage: the first sign, then nothing until `quietMs` passed without one. */
export function oncePerOutage(log: (error: unknown) => void, quietMs = 10_000): (error: unknown) => void {
  let lastAt = Number.NEGATIVE_INFINITY;
  return (error) => {
    const now = Date.now();
    if (now - lastAt > quietMs) log(error);
    lastAt = now;
  };
}
