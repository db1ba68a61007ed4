import { desc } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { devMailbox } from '../db/schema/index.ts';
import type { Mail } from './mailer.ts';

/** Keeps a mail in the dev mailbox (the table behind /dev/mailbox) instead of sending it. */
export async function saveDevMail(db: Db, mail: Mail): Promise<void> {
  await db.insert(devMailbox).values(mail);
}

/** The dev mailbox's newest mails, newest first. */
export async function latestDevMails(db: Db, limit = 50) {
  return db.select().from(devMailbox).orderBy(desc(devMailbox.id)).limit(limit);
}
