import { PgBoss, type QueueOptions } from 'pg-boss';
import type pg from 'pg';
import type { Tx } from '../db/transaction.ts';
import { warnCleanup } from '../cleanup.ts';

/**
 * Durable background work in Postgres (pg-boss): a job survives restarts and is
 * retried with backoff until its handler succeeds, so an SMTP outage delays mail
 * but loses none.
 */
export interface SendOptions {
  /** Not before this time. */
  startAfter?: Date;
}

export interface JobQueue {
  send(name: string, data: object, options?: SendOptions): Promise<void>;
  /** Enqueues inside the caller's transaction: the job exists only if the transaction commits. */
  sendInTransaction(tx: Tx, name: string, data: object, options?: SendOptions): Promise<void>;
  /** Runs `name` on a cron schedule (one run per tick across all processes). */
  schedule(name: string, cron: string): Promise<void>;
  /** `concurrency`: this process works that many jobs of the queue at once (default 1). */
  work<T extends object>(name: string, handler: (data: T) => Promise<void>, options?: { concurrency?: number }): Promise<void>;
  /** Changes a queue's settings for the jobs sent from now on (also on a database made before). */
  updateQueue(name: string, options: Pick<QueueOptions, 'expireInSeconds'>): Promise<void>;
  stop(): Promise<void>;
}

export const QUEUES = [
  'send-email',
  'reconcile-checkouts',
  'expire-checkout',
  'oidc-cleanup',
  'storage-cleanup',
  'storage-orphans',
  'refund-payment',
  'refund-retry',
  'refund-sweep',
  'password-reset-request',
  'oidc-backchannel-logout',
  'encode-track',
  'digital-file-cleanup',
  'record-tax',
  'reverse-tax',
  'preorder-release',
  'send-gift-card',
  'tax-calculation-sweep',
  'checkout-reminders',
] as const;

// Processes starting together on a new database would race to create pg-boss's schema
// (one failing with a duplicate key): they take turns under this advisory lock.
const START_LOCK_KEY = 727_302;

// pg-boss writes a job with the same statement text for a queue every time: as a named
// (prepared) statement each connection parses and plans it once, not for every job (it
// is the costliest statement of a wallet-only order to plan; decision 015). Few texts exist
// (one per queue); past this many, statements are simply sent unnamed.
const MAX_NAMED_STATEMENTS = 32;
const statementNames = new Map<string, string>();

function namedQuery(text: string, values?: unknown[]): pg.QueryConfig {
  let name = statementNames.get(text);
  if (!name && statementNames.size < MAX_NAMED_STATEMENTS) {
    name = `pgboss_${statementNames.size}`;
    statementNames.set(text, name);
  }
  return name ? { name, text, values } : { text, values };
}

/** The pg client behind a Drizzle node-postgres transaction (Drizzle keeps it on its session). */
function transactionClient(tx: Tx): pg.PoolClient {
  return (tx as unknown as { session: { client: pg.PoolClient } }).session.client;
}

export async function startJobQueue(pool: pg.Pool, onError: (error: unknown) => void): Promise<JobQueue> {
  const boss = new PgBoss({
    db: { executeSql: (text: string, values?: unknown[]) => pool.query(text, values) },
    schema: 'pgboss',
    // Expired jobs (a worker died holding them) are found by this pass: every 15 s instead of
    // the default 60, so a short queue expiry is not stretched by up to a minute.
    superviseIntervalSeconds: 15,
    monitorIntervalSeconds: 15,
  });
  boss.on('error', onError);
  const lock = await pool.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [START_LOCK_KEY]);
    await boss.start();
    for (const name of QUEUES) await boss.createQueue(name, { retryLimit: 20, retryDelay: 5, retryBackoff: true });
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [START_LOCK_KEY]).catch(warnCleanup('releasing the job queue start lock'));
    lock.release();
  }
  return {
    async send(name, data, options) {
      await boss.send(name, data, options?.startAfter ? { startAfter: options.startAfter } : {});
    },
    async sendInTransaction(tx, name, data, options) {
      const client = transactionClient(tx);
      await boss.send(name, data, {
        ...(options?.startAfter ? { startAfter: options.startAfter } : {}),
        db: { executeSql: (text: string, values?: unknown[]) => client.query(namedQuery(text, values)) },
      });
    },
    async schedule(name, cron) {
      await boss.schedule(name, cron);
    },
    async work(name, handler, options) {
      const concurrency = options?.concurrency ?? 1;
      if (concurrency > 1) {
        // Two workers, each taking batches of `concurrency` jobs worked at once, fetched back to
        // back while batches come full (pg-boss waits its polling interval after every fetch
        // otherwise); one fetches while the other's batch finishes. Each job stands alone: a
        // failed one is failed (and retried) by itself, the rest complete.
        const batchSize = Math.ceil(concurrency / 2);
        await boss.work<object>(name, { pollingIntervalSeconds: 0.5, batchSize, burstWhenBatchFull: true, localConcurrency: 2 }, async (jobs) => {
          const results = await Promise.allSettled(jobs.map((job) => handler(job.data as never)));
          await Promise.all(results.map((result, i) => (result.status === 'rejected' ? boss.fail(name, jobs[i]!.id, { message: String(result.reason) }) : undefined)));
        });
        return;
      }
      await boss.work<object>(name, { pollingIntervalSeconds: 0.5 }, async (jobs) => {
        for (const job of jobs) await handler(job.data as never);
      });
    },
    async updateQueue(name, options) {
      await boss.updateQueue(name, options);
    },
    async stop() {
      await boss.stop({ graceful: true, timeout: 5_000 });
    },
  };
}

/** Runs `task` on a cron schedule, once per tick across all processes. */
export type Every = (queue: string, cron: string, task: () => Promise<unknown>) => Promise<void>;

export function everyOn(jobs: JobQueue): Every {
  return async (queue, cron, task) => {
    await jobs.work(queue, async () => {
      await task();
    });
    await jobs.schedule(queue, cron);
  };
}
