import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { ANNOUNCEMENT_MESSAGES } from '@storefront/domain/contracts/announcements.ts';
import type { Db } from '../db/client.ts';
import { announcementRecipients, announcements, fanFollows, marketingConsents, users } from '../db/schema/index.ts';
import { runTransaction } from '../db/transaction.ts';
import { AppError } from '../errors.ts';

/**
 * Announcements (issue 37 part 3, decision 079): drafts the label writes, and their recipients,
 * one row per announcement and address (the primary key: at most one mail per fan per
 * announcement, across instances). The rows are the announcements' own queue: a sender claims
 * a few (`sending`, committed, naming its session) before it hands them to SMTP; a claim whose
 * session is gone (a crash, a kill) becomes `unknown` and is never sent again.
 */
export type AnnouncementRow = typeof announcements.$inferSelect;
export type RecipientState = (typeof announcementRecipients.$inferSelect)['state'];

export interface AnnouncementDraft {
  subject: string;
  body: string;
  image: string;
  link: { kind: 'release' | 'product' | 'drop'; id: string; title: string; path: string } | null;
  toLabel: boolean;
  artistIds: number[];
}

/** The advisory-lock class a sender's session holds its key under (pg_locks shows it alive). */
export const SENDER_LOCK_CLASS = 797_903;
/** A claim older than this is unknown even when its session looks alive (a stuck send). */
const STUCK_CLAIM = '15 minutes';

const notFound = () => new AppError('not-found', ANNOUNCEMENT_MESSAGES.notFound);

export async function findAnnouncement(db: Db, id: number): Promise<AnnouncementRow> {
  const [row] = await db.select().from(announcements).where(eq(announcements.id, id));
  if (!row) throw notFound();
  return row;
}

export async function listAnnouncementRows(db: Db): Promise<AnnouncementRow[]> {
  return db.select().from(announcements).orderBy(desc(announcements.id)).limit(200);
}

/** A new draft, or a draft changed; an announcement that has been sent is not changed. */
export async function saveAnnouncementDraft(db: Db, id: number | null, draft: AnnouncementDraft, userId: string): Promise<number> {
  const values = {
    subject: draft.subject,
    body: draft.body,
    image: draft.image,
    linkKind: draft.link?.kind ?? null,
    linkId: draft.link?.id ?? null,
    linkTitle: draft.link?.title ?? '',
    linkPath: draft.link?.path ?? '',
    toLabel: draft.toLabel,
    artistIds: [...new Set(draft.artistIds)],
  };
  if (id === null) {
    const [row] = await db
      .insert(announcements)
      .values({ ...values, createdBy: userId })
      .returning({ id: announcements.id });
    return row!.id;
  }
  const rows = await db
    .update(announcements)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(announcements.id, id), eq(announcements.status, 'draft')))
    .returning({ id: announcements.id });
  if (rows.length === 0) {
    await findAnnouncement(db, id);
    throw new AppError('failed-precondition', ANNOUNCEMENT_MESSAGES.notDraft);
  }
  return id;
}

/**
 * The consenting followers an audience names: every address whose consent is `given` that
 * belongs to an account following the label (when `toLabel`) or one of the artists, and, for
 * the label, the addresses that signed up for its news without an account. By address: a fan
 * is one recipient whatever they follow.
 */
function audienceSql(toLabel: boolean, artistIds: number[]) {
  const artists = sql`ARRAY[${sql.join(
    artistIds.map((artistId) => sql`${artistId}::integer`),
    sql`, `,
  )}]::integer[]`;
  return sql`
    FROM ${marketingConsents} c
    LEFT JOIN ${users} u ON lower(u.email) = c.email
    WHERE c.status = 'given'
      AND ((${toLabel} AND u.id IS NULL)
        OR EXISTS (SELECT 1 FROM ${fanFollows} f WHERE f.user_id = u.id AND ((${toLabel} AND f.artist_id IS NULL) OR f.artist_id = ANY(${artists}))))`;
}

/** How many would get the announcement if it were sent now. */
export async function audienceSize(db: Db, toLabel: boolean, artistIds: number[]): Promise<number> {
  const result = await db.execute<{ n: number }>(sql`SELECT count(DISTINCT c.email)::int AS n ${audienceSql(toLabel, artistIds)}`);
  return result.rows[0]?.n ?? 0;
}

/**
 * Starts sending a draft: in one transaction its status becomes `sending` and one `queued` row
 * is written per consenting follower (one statement, however many there are). Answers the count.
 */
export async function startSending(db: Db, id: number): Promise<number> {
  return runTransaction(db, async (tx) => {
    const [row] = await tx
      .update(announcements)
      .set({ status: 'sending', startedAt: new Date(), updatedAt: new Date() })
      .where(and(eq(announcements.id, id), eq(announcements.status, 'draft')))
      .returning();
    if (!row) {
      const [exists] = await tx.select({ id: announcements.id }).from(announcements).where(eq(announcements.id, id));
      throw exists ? new AppError('failed-precondition', ANNOUNCEMENT_MESSAGES.notSendable) : notFound();
    }
    const inserted = await tx.execute(sql`
      INSERT INTO ${announcementRecipients} (announcement_id, email, name)
      SELECT ${id}::bigint, c.email, coalesce(min(u.name), '')
      ${audienceSql(row.toLabel, row.artistIds)}
      GROUP BY c.email
      ORDER BY min(c.id)
      ON CONFLICT DO NOTHING`);
    const count = inserted.rowCount ?? 0;
    if (count === 0) throw new AppError('failed-precondition', ANNOUNCEMENT_MESSAGES.noRecipients);
    return count;
  });
}

/** Pauses (`sending` to `paused`) or resumes (`paused` to `sending`); false when it was not in the state to. */
export async function changeSendingStatus(db: Db, id: number, from: 'sending' | 'paused', to: 'sending' | 'paused'): Promise<boolean> {
  const rows = await db
    .update(announcements)
    .set({ status: to, updatedAt: new Date() })
    .where(and(eq(announcements.id, id), eq(announcements.status, from)))
    .returning({ id: announcements.id });
  return rows.length > 0;
}

/** Cancels a sending or paused announcement: the recipients still queued are skipped, for good. */
export async function cancelSending(db: Db, id: number): Promise<boolean> {
  return runTransaction(db, async (tx) => {
    const rows = await tx
      .update(announcements)
      .set({ status: 'cancelled', finishedAt: new Date(), updatedAt: new Date() })
      .where(and(eq(announcements.id, id), inArray(announcements.status, ['sending', 'paused'])))
      .returning({ id: announcements.id });
    if (rows.length === 0) return false;
    await tx
      .update(announcementRecipients)
      .set({ state: 'skipped', detail: 'cancelled', finishedAt: new Date() })
      .where(and(eq(announcementRecipients.announcementId, id), eq(announcementRecipients.state, 'queued')));
    return true;
  });
}

/** The announcements with recipients waiting, oldest first. */
export async function announcementsSending(db: Db): Promise<AnnouncementRow[]> {
  return db.select().from(announcements).where(eq(announcements.status, 'sending')).orderBy(announcements.id);
}

export interface Claimed {
  email: string;
  name: string;
}

/**
 * Claims up to `limit` queued recipients of a sending announcement for the session `me`,
 * committed before anything is handed to SMTP. Rows another sender holds are skipped (SKIP
 * LOCKED), so two instances never claim one row. A recipient whose consent was withdrawn
 * since the start is `skipped` here instead. `touched`: the rows taken from the queue either way.
 */
export async function claimRecipients(db: Db, id: number, me: string, limit: number): Promise<{ claimed: Claimed[]; touched: number }> {
  const result = await db.execute<{ email: string; name: string; state: RecipientState }>(sql`
    WITH picked AS (
      SELECT r.email FROM ${announcementRecipients} r
      WHERE r.announcement_id = ${id} AND r.state = 'queued'
        AND EXISTS (SELECT 1 FROM ${announcements} a WHERE a.id = ${id} AND a.status = 'sending')
      ORDER BY r.seq
      LIMIT ${limit}
      FOR UPDATE OF r SKIP LOCKED
    ), consenting AS (
      SELECT p.email, EXISTS (SELECT 1 FROM ${marketingConsents} c WHERE c.email = p.email AND c.status = 'given') AS yes FROM picked p
    )
    UPDATE ${announcementRecipients} r
    SET state = CASE WHEN consenting.yes THEN 'sending' ELSE 'skipped' END,
        claimed_by = ${me}, claimed_at = now(),
        finished_at = CASE WHEN consenting.yes THEN NULL ELSE now() END,
        detail = CASE WHEN consenting.yes THEN '' ELSE 'consent withdrawn' END
    FROM consenting
    WHERE r.announcement_id = ${id} AND r.email = consenting.email AND r.state = 'queued'
    RETURNING r.email, r.name, r.state`);
  return { claimed: result.rows.filter((row) => row.state === 'sending').map(({ email, name }) => ({ email, name })), touched: result.rows.length };
}

export interface Outcome {
  email: string;
  state: 'sent' | 'failed' | 'bounced' | 'unknown' | 'skipped' | 'queued';
  detail: string;
}

/**
 * Records what became of this session's claims: a claim swept to `unknown` meanwhile (the
 * session looked gone) still takes its real outcome; `queued` gives a claim back (nothing
 * reached the SMTP server).
 */
export async function recordOutcomes(db: Db, id: number, me: string, outcomes: Outcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  await db.execute(sql`
    UPDATE ${announcementRecipients} r
    SET state = v.state, detail = v.detail,
        finished_at = CASE WHEN v.state = 'queued' THEN NULL ELSE now() END,
        claimed_by = CASE WHEN v.state = 'queued' THEN NULL ELSE r.claimed_by END
    FROM unnest(${sql`ARRAY[${sql.join(
      outcomes.map((o) => sql`${o.email}`),
      sql`, `,
    )}]::text[]`}, ${sql`ARRAY[${sql.join(
      outcomes.map((o) => sql`${o.state}`),
      sql`, `,
    )}]::text[]`}, ${sql`ARRAY[${sql.join(
      outcomes.map((o) => sql`${o.detail.slice(0, 500)}`),
      sql`, `,
    )}]::text[]`}) AS v(email, state, detail)
    WHERE r.announcement_id = ${id} AND r.email = v.email AND r.claimed_by = ${me}
      AND (r.state = 'sending' OR (r.state = 'unknown' AND v.state <> 'queued'))`);
}

/**
 * Claims whose sender is gone become `unknown` (decision 079): a sender holds an advisory lock
 * under its key on a session of its own for as long as it lives; a claim naming a key no session
 * holds was made by an instance that died (or lost its database session) with the mail in
 * flight. They are listed in the report and never sent again. Answers how many.
 */
export async function sweepOrphanedClaims(db: Db): Promise<number> {
  const result = await db.execute(sql`
    UPDATE ${announcementRecipients} r
    SET state = 'unknown', finished_at = now(),
        detail = 'The instance sending it stopped while handing it to SMTP: it may or may not have arrived.'
    WHERE r.state = 'sending'
      AND (r.claimed_at < now() - ${STUCK_CLAIM}::interval
        OR NOT EXISTS (
          SELECT 1 FROM pg_locks l
          WHERE l.locktype = 'advisory' AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
            AND l.classid = ${SENDER_LOCK_CLASS}::oid AND l.objid::text = r.claimed_by AND l.objsubid = 2 AND l.granted))`);
  return result.rowCount ?? 0;
}

/** A sending announcement with nobody queued or in flight is sent. */
export async function finishIfDone(db: Db, id: number): Promise<boolean> {
  const rows = await db
    .update(announcements)
    .set({ status: 'sent', finishedAt: new Date(), updatedAt: new Date() })
    .where(
      and(
        eq(announcements.id, id),
        eq(announcements.status, 'sending'),
        sql`NOT EXISTS (SELECT 1 FROM ${announcementRecipients} r WHERE r.announcement_id = ${id} AND r.state IN ('queued', 'sending'))`,
      ),
    )
    .returning({ id: announcements.id });
  return rows.length > 0;
}

export type Counts = Record<RecipientState, number> & { total: number; unsubscribedSince: number };

/** Each announcement's recipients by state, and those who withdrew their consent after it started. */
export async function countsOf(db: Db, rows: AnnouncementRow[]): Promise<Map<number, Counts>> {
  const empty = (): Counts => ({ total: 0, queued: 0, sending: 0, sent: 0, failed: 0, bounced: 0, unknown: 0, skipped: 0, unsubscribedSince: 0 });
  const counts = new Map(rows.map((row) => [row.id, empty()]));
  const ids = rows.filter((row) => row.status !== 'draft').map((row) => row.id);
  if (ids.length === 0) return counts;
  const byState = await db
    .select({ id: announcementRecipients.announcementId, state: announcementRecipients.state, n: sql<number>`count(*)::int` })
    .from(announcementRecipients)
    .where(inArray(announcementRecipients.announcementId, ids))
    .groupBy(announcementRecipients.announcementId, announcementRecipients.state);
  for (const { id, state, n } of byState) {
    const count = counts.get(id)!;
    count[state] = n;
    count.total += n;
  }
  const left = await db.execute<{ id: number; n: number }>(sql`
    SELECT r.announcement_id::int AS id, count(*)::int AS n
    FROM ${announcementRecipients} r
    JOIN ${announcements} a ON a.id = r.announcement_id
    JOIN ${marketingConsents} c ON c.email = r.email
    WHERE r.announcement_id IN (${sql.join(
      ids.map((id) => sql`${id}`),
      sql`, `,
    )}) AND c.status = 'withdrawn' AND c.withdrawn_at >= a.started_at
    GROUP BY r.announcement_id`);
  for (const { id, n } of left.rows) counts.get(Number(id))!.unsubscribedSince = n;
  return counts;
}

/** The recipients a report lists by name: unknown, failed and bounced (at most 1,000 each). */
export async function listedRecipients(db: Db, id: number) {
  return db
    .select({ email: announcementRecipients.email, state: announcementRecipients.state, detail: announcementRecipients.detail })
    .from(announcementRecipients)
    .where(and(eq(announcementRecipients.announcementId, id), inArray(announcementRecipients.state, ['unknown', 'failed', 'bounced'])))
    .orderBy(announcementRecipients.seq)
    .limit(3000);
}
