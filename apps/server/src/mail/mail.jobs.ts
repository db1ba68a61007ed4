import type { JobQueue } from '../jobs/queue.ts';
import type { Mail, SendMail } from './mailer.ts';

/**
 * How long a send may hold its job before the job counts as lost (its process died) and is
 * retried; pg-boss's default is 15 minutes. Comfortably above the SMTP timeouts in
 * mailer.ts, so a slow send fails there first instead of going out twice.
 */
export const MAIL_JOB_EXPIRE_SECONDS = 60;

/** Mail goes through the job queue: a failed send is retried, never dropped. */
export async function startMailWorker(queue: JobQueue, send: SendMail): Promise<void> {
  await queue.updateQueue('send-email', { expireInSeconds: MAIL_JOB_EXPIRE_SECONDS });
  await queue.work<Mail>('send-email', send);
}

/** Queues a mail for the mail worker; areas are handed this rather than the queue. */
export type QueueMail = (mail: Mail) => Promise<void>;

export function enqueueMail(queue: JobQueue, mail: Mail): Promise<void> {
  return queue.send('send-email', mail);
}
