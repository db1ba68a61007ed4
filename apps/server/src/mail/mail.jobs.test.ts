import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testConfig, type TestDatabase } from '../../test/database.ts';
import { startSmtpPeer } from '../../test/smtp.ts';
import { startJobQueue, type JobQueue } from '../jobs/queue.ts';
import { enqueueMail, MAIL_JOB_EXPIRE_SECONDS, startMailWorker } from './mail.jobs.ts';
import { createMailer } from './mailer.ts';

let database: TestDatabase;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
const queues: JobQueue[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  smtp = await startSmtpPeer();
});

afterAll(async () => {
  for (const queue of queues) await queue.stop().catch(() => undefined);
  await smtp?.close();
  await database?.close();
});

async function mailJobs() {
  const { rows } = await database.pool.query<{ state: string; expire_seconds: number }>("SELECT state::text AS state, expire_seconds FROM pgboss.job WHERE name = 'send-email'");
  return rows;
}

describe('mail jobs', () => {
  it('a mail held by a worker that died is sent again after a minute, not pg-boss’s 15', async () => {
    // The first worker takes the job and never finishes it, then loses its connections: as if
    // its process were killed mid-send (a graceful stop would hand the job back at once).
    const dyingPool = new pg.Pool({ connectionString: database.connectionString, max: 2 });
    const dying = await startJobQueue(dyingPool, () => undefined);
    queues.push(dying);
    let taken!: () => void;
    const tookIt = new Promise<void>((resolve) => (taken = resolve));
    await startMailWorker(dying, () => {
      taken();
      return new Promise<void>(() => undefined);
    });
    await enqueueMail(dying, { to: 'fan@example.org', subject: 'Your receipt', text: 'Thank you for your order o_held', html: '<p>Thank you</p>' });
    await tookIt;
    await dyingPool.end();
    expect(await mailJobs()).toEqual([{ state: 'active', expire_seconds: MAIL_JOB_EXPIRE_SECONDS }]);

    // The minute passes (moved back, not waited for); a live worker then sends the mail.
    await database.pool.query(`UPDATE pgboss.job SET started_on = started_on - interval '${MAIL_JOB_EXPIRE_SECONDS} seconds' WHERE name = 'send-email'`);
    const live = await startJobQueue(database.pool, () => undefined);
    queues.push(live);
    await startMailWorker(live, createMailer(testConfig({ env: { SMTP_URL: smtp.url } }), database.db));
    await smtp.waitForText('fan@example.org', 'Thank you for your order o_held', 60_000);
  }, 90_000);
});
