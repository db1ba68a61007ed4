import { desc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { devMailbox, mailSuppressions } from '../db/schema/index.ts';
import type { Mail } from './mailer.ts';

/** Keeps a mail in the dev mailbox (the table behind /dev/mailbox) instead of sending it. */
export async function saveDevMail(db: Db, mail: Mail): Promise<void> {
  await db.insert(devMailbox).values(mail);
}

/** The dev mailbox's newest mails, newest first. */
export async function latestDevMails(db: Db, limit = 50) {
  return db.select().from(devMailbox).orderBy(desc(devMailbox.id)).limit(limit);
}

const normalised = (email: string) => email.trim().toLowerCase();

/** Records an address that refused mail for good (a hard bounce); the first reason is kept. */
export async function suppressAddress(db: Db, email: string, reason: string): Promise<void> {
  await db
    .insert(mailSuppressions)
    .values({ email: normalised(email), reason: reason.slice(0, 500) })
    .onConflictDoNothing();
}

/** Whether marketing mail to this address is stopped by a hard bounce. */
export async function isSuppressed(db: Db, email: string): Promise<boolean> {
  const [row] = await db
    .select({ email: mailSuppressions.email })
    .from(mailSuppressions)
    .where(eq(mailSuppressions.email, normalised(email)));
  return row !== undefined;
}

/** Which of these addresses (normalised) marketing mail is stopped for by a hard bounce. */
export async function suppressedAmong(db: Db, emails: readonly string[]): Promise<Set<string>> {
  if (emails.length === 0) return new Set();
  const rows = await db
    .select({ email: mailSuppressions.email })
    .from(mailSuppressions)
    .where(inArray(mailSuppressions.email, emails.map(normalised)));
  return new Set(rows.map((row) => row.email));
}
