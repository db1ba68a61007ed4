import { PgBoss } from 'pg-boss';
import type pg from 'pg';

/**
 * Durable background work in Postgres (pg-boss): a job survives restarts and is
 * retried with backoff until its handler succeeds, so an SMTP outage delays mail
 * but loses none.
 */
export interface JobQueue {
  send(name: string, data: object): Promise<void>;
  work<T extends object>(name: string, handler: (data: T) => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

export const QUEUES = ['send-email'] as const;

export async function startJobQueue(pool: pg.Pool, onError: (error: unknown) => void): Promise<JobQueue> {
  const boss = new PgBoss({
    db: { executeSql: (text: string, values?: unknown[]) => pool.query(text, values) },
    schema: 'pgboss',
  });
  boss.on('error', onError);
  await boss.start();
  for (const name of QUEUES) await boss.createQueue(name, { retryLimit: 20, retryDelay: 5, retryBackoff: true });
  return {
    async send(name, data) {
      await boss.send(name, data);
    },
    async work(name, handler) {
      await boss.work<object>(name, { pollingIntervalSeconds: 0.5 }, async (jobs) => {
        for (const job of jobs) await handler(job.data as never);
      });
    },
    async stop() {
      await boss.stop({ graceful: true, timeout: 5_000 });
    },
  };
}
