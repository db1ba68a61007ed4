import { and, eq, ne, or } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { marketingConsents } from '../db/schema/index.ts';
import type { Tx } from '../db/transaction.ts';
import { publishLive } from '../live/live.publish.ts';

/**
 * Marketing consent, kept apart from orders (issue 37 part 2, decision 074): one row per
 * normalised address. Given by a box (checkout, signup), /account, or the public form once its
 * mailed link is confirmed (double opt-in); withdrawn in one click. Only `given` is consent.
 */
export type ConsentSource = (typeof marketingConsents.$inferSelect)['source'];
export type WithdrawnBy = NonNullable<(typeof marketingConsents.$inferSelect)['withdrawnBy']>;

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

/** The caller's consent, as /account shows it. */
export async function consentOf(db: Db | Tx, email: string) {
  const [row] = await db
    .select()
    .from(marketingConsents)
    .where(eq(marketingConsents.email, normaliseEmail(email)));
  return {
    consented: row?.status === 'given',
    source: row?.status === 'given' ? row.source : null,
    page: row?.status === 'given' ? row.page : null,
    givenAt: row?.status === 'given' && row.givenAt ? row.givenAt.toISOString() : null,
  };
}

/** Records consent given now (a box, /account): when, how and from which page. */
export async function giveConsent(db: Db | Tx, consent: { email: string; userId?: string | null; source: ConsentSource; page: string }): Promise<void> {
  const now = new Date();
  const values = {
    email: normaliseEmail(consent.email),
    userId: consent.userId ?? null,
    status: 'given' as const,
    source: consent.source,
    page: consent.page,
    requestedAt: now,
    givenAt: now,
    withdrawnAt: null,
    withdrawnBy: null,
  };
  await db
    .insert(marketingConsents)
    .values(values)
    .onConflictDoUpdate({ target: marketingConsents.email, set: { ...values, userId: consent.userId ?? undefined } });
  if (consent.userId) await publishLive(db, { topic: 'profile', userId: consent.userId });
}

/**
 * The public form's request (double opt-in): a pending row for an address that has not
 * consented; true when a confirmation mail should go. An address that consented already is
 * left as it is (and gets no mail).
 */
export async function requestConsent(db: Db, email: string, page: string): Promise<boolean> {
  const rows = await db
    .insert(marketingConsents)
    .values({ email: normaliseEmail(email), status: 'pending', source: 'form', page })
    .onConflictDoUpdate({
      target: marketingConsents.email,
      set: { status: 'pending', source: 'form', page, requestedAt: new Date(), withdrawnAt: null, withdrawnBy: null },
      setWhere: ne(marketingConsents.status, 'given'),
    })
    .returning({ id: marketingConsents.id });
  return rows.length > 0;
}

/** The mailed link confirmed: a pending request becomes consent. False: nothing pending (confirmed already, or withdrawn since). */
export async function confirmConsent(db: Db, email: string): Promise<boolean> {
  const rows = await db
    .update(marketingConsents)
    .set({ status: 'given', givenAt: new Date() })
    .where(and(eq(marketingConsents.email, normaliseEmail(email)), eq(marketingConsents.status, 'pending')))
    .returning({ userId: marketingConsents.userId });
  return rows.length > 0;
}

/** Withdraws the address's consent (or pending request), in one step; true when there was one. */
export async function withdrawConsent(db: Db, email: string, by: WithdrawnBy): Promise<boolean> {
  const rows = await db
    .update(marketingConsents)
    .set({ status: 'withdrawn', withdrawnAt: new Date(), withdrawnBy: by })
    .where(and(eq(marketingConsents.email, normaliseEmail(email)), ne(marketingConsents.status, 'withdrawn')))
    .returning({ userId: marketingConsents.userId });
  const userId = rows[0]?.userId;
  if (userId) await publishLive(db, { topic: 'profile', userId });
  return rows.length > 0;
}

/** Deleting an account (decision 074): its consent goes, by account and by its address. */
export async function forgetConsent(tx: Db | Tx, userId: string, email: string): Promise<void> {
  await tx.delete(marketingConsents).where(or(eq(marketingConsents.userId, userId), eq(marketingConsents.email, normaliseEmail(email))));
}

/** The data export's part: the address's consent with when, how and where. */
export async function exportConsent(db: Db, email: string) {
  const rows = await db
    .select()
    .from(marketingConsents)
    .where(eq(marketingConsents.email, normaliseEmail(email)));
  return rows.map((row) => ({
    email: row.email,
    status: row.status,
    source: row.source,
    page: row.page,
    requestedAt: row.requestedAt.toISOString(),
    givenAt: row.givenAt?.toISOString() ?? null,
    withdrawnAt: row.withdrawnAt?.toISOString() ?? null,
    withdrawnBy: row.withdrawnBy,
    // What an imported file said of the fan (decision 078).
    name: row.name,
    country: row.country,
  }));
}
