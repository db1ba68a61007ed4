import type { JobQueue } from '../jobs/queue.ts';
import type { Mail, SendMail } from './mailer.ts';

/** Mail goes through the job queue: a failed send is retried, never dropped. */
export async function startMailWorker(queue: JobQueue, send: SendMail): Promise<void> {
  await queue.work<Mail>('send-email', send);
}

export function enqueueMail(queue: JobQueue, mail: Mail): Promise<void> {
  return queue.send('send-email', mail);
}
