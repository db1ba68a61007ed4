import { and, asc, count, eq, gt, inArray, isNotNull, sql } from 'drizzle-orm';
import { AUDIENCE_MESSAGES, REFUSALS_LISTED, type AudienceImportReport, type ImportRow } from '@storefront/domain/audience.ts';
import { recordAudit, type Actor } from '../audit/audit.service.ts';
import type { Db } from '../db/client.ts';
import { fanFollows, marketingConsents, users } from '../db/schema/index.ts';
import { runTransaction } from '../db/transaction.ts';
import { artistsByIds } from '../roster/roster.service.ts';

/**
 * The label's list (issue 37 part 6, decision 078): the Audience tab's figures, the export of
 * the consenting fans (a page at a time) and the import of fans who consented elsewhere.
 */

const WEEKS = 12;

/** Followers (of the label, of each artist), consenting fans, unsubscribes, and the last 12 weeks' growth. */
export async function audienceSummary(db: Db) {
  const [followers] = await db
    .select({ fans: sql<number>`count(DISTINCT ${fanFollows.userId})::int`, label: sql<number>`count(*) FILTER (WHERE ${fanFollows.artistId} IS NULL)::int` })
    .from(fanFollows);
  const perArtist = await db.select({ artistId: fanFollows.artistId, followers: count() }).from(fanFollows).where(isNotNull(fanFollows.artistId)).groupBy(fanFollows.artistId);
  const named = await artistsByIds(
    db,
    perArtist.map((row) => row.artistId!),
  );
  const artists = perArtist
    .flatMap((row) => {
      const artist = named.get(row.artistId!);
      return artist ? [{ id: artist.id, name: artist.name, slug: artist.slug, followers: row.followers }] : [];
    })
    .sort((a, b) => b.followers - a.followers || a.name.localeCompare(b.name));
  const [consent] = await db
    .select({
      consenting: sql<number>`count(*) FILTER (WHERE ${marketingConsents.status} = 'given')::int`,
      pending: sql<number>`count(*) FILTER (WHERE ${marketingConsents.status} = 'pending')::int`,
      unsubscribed: sql<number>`count(*) FILTER (WHERE ${marketingConsents.status} = 'withdrawn')::int`,
      imported: sql<number>`count(*) FILTER (WHERE ${marketingConsents.status} = 'given' AND ${marketingConsents.source} = 'import')::int`,
    })
    .from(marketingConsents);
  const weeks = await db.execute<{ week: string; consents: number; unsubscribes: number; follows: number }>(sql`
    WITH weeks AS (
      SELECT generate_series(date_trunc('week', now() AT TIME ZONE 'UTC') - interval '${sql.raw(String(WEEKS - 1))} weeks', date_trunc('week', now() AT TIME ZONE 'UTC'), interval '1 week') AS week
    )
    SELECT to_char(weeks.week, 'YYYY-MM-DD') AS week,
      (SELECT count(*) FROM ${marketingConsents} WHERE given_at AT TIME ZONE 'UTC' >= weeks.week AND given_at AT TIME ZONE 'UTC' < weeks.week + interval '1 week')::int AS consents,
      (SELECT count(*) FROM ${marketingConsents} WHERE withdrawn_at AT TIME ZONE 'UTC' >= weeks.week AND withdrawn_at AT TIME ZONE 'UTC' < weeks.week + interval '1 week')::int AS unsubscribes,
      (SELECT count(*) FROM ${fanFollows} WHERE created_at AT TIME ZONE 'UTC' >= weeks.week AND created_at AT TIME ZONE 'UTC' < weeks.week + interval '1 week')::int AS follows
    FROM weeks ORDER BY weeks.week`);
  return {
    followers: { fans: followers?.fans ?? 0, label: followers?.label ?? 0, artists },
    consenting: consent?.consenting ?? 0,
    pending: consent?.pending ?? 0,
    unsubscribed: consent?.unsubscribed ?? 0,
    imported: consent?.imported ?? 0,
    weeks: weeks.rows.map((row) => ({ week: row.week, consents: Number(row.consents), unsubscribes: Number(row.unsubscribes), follows: Number(row.follows) })),
  };
}

export interface AudienceExportRow {
  email: string;
  name: string;
  country: string;
  consentedAt: string;
  source: string;
  follows: string;
}

/**
 * Exactly the consenting fans (status `given`), a page at a time by id: the address, the name
 * and country (the account's, else the imported file's), when and how they consented, and what
 * they follow ("label; artist:<slug>", an account's only).
 */
export async function* audienceExportRows(db: Db, pageSize = 5000): AsyncGenerator<AudienceExportRow> {
  let after = 0;
  for (;;) {
    const page = await db
      .select({
        id: marketingConsents.id,
        email: marketingConsents.email,
        importedName: marketingConsents.name,
        importedCountry: marketingConsents.country,
        givenAt: marketingConsents.givenAt,
        source: marketingConsents.source,
        userId: users.id,
        accountName: users.name,
        accountCountry: users.country,
      })
      .from(marketingConsents)
      .leftJoin(users, eq(users.email, marketingConsents.email))
      .where(and(eq(marketingConsents.status, 'given'), gt(marketingConsents.id, after)))
      .orderBy(asc(marketingConsents.id))
      .limit(pageSize);
    if (page.length === 0) return;
    const userIds = page.flatMap((row) => (row.userId ? [row.userId] : []));
    const follows =
      userIds.length === 0
        ? []
        : await db.select({ userId: fanFollows.userId, artistId: fanFollows.artistId }).from(fanFollows).where(inArray(fanFollows.userId, userIds)).orderBy(asc(fanFollows.id));
    const named = await artistsByIds(
      db,
      follows.flatMap((row) => (row.artistId === null ? [] : [row.artistId])),
    );
    const followsOf = new Map<string, string[]>();
    for (const row of follows) {
      const target = row.artistId === null ? 'label' : named.get(row.artistId) ? `artist:${named.get(row.artistId)!.slug}` : null;
      if (target) followsOf.set(row.userId, [...(followsOf.get(row.userId) ?? []), target]);
    }
    for (const row of page) {
      yield {
        email: row.email,
        name: row.accountName || row.importedName || '',
        country: row.accountCountry || row.importedCountry || '',
        consentedAt: row.givenAt?.toISOString() ?? '',
        source: row.source,
        follows: (row.userId ? (followsOf.get(row.userId) ?? []) : []).join('; '),
      };
    }
    after = page[page.length - 1]!.id;
  }
}

/**
 * Records the rows a file gave (already read, each address once), in one transaction, a batch at
 * a time: a new address is added with source "import" and the file's consent date; an address
 * that consents already is merged (its consent stands; a missing name or country is filled); a
 * pending request becomes consent from the file (merged); an address that withdrew here is refused.
 */
export async function recordImport(db: Db, rows: (ImportRow & { line: number })[], report: AudienceImportReport, actor: Actor): Promise<void> {
  const counts = await runTransaction(
    db,
    async (tx) => {
      // A retried attempt starts its counts over.
      const counts = { added: 0, merged: 0, refusals: [] as AudienceImportReport['refusals'] };
      for (let start = 0; start < rows.length; start += 5000) {
        const batch = rows.slice(start, start + 5000);
        // Each batch travels as one JSON parameter (not 8 parameters a row): 5,000 rows a statement.
        const emails = JSON.stringify(batch.map((row) => row.email));
        const found = await tx.execute<{ email: string; status: 'pending' | 'given' | 'withdrawn' }>(
          sql`SELECT email, status FROM ${marketingConsents} WHERE email IN (SELECT jsonb_array_elements_text(${emails}::jsonb))`,
        );
        const existing = new Map(found.rows.map((row) => [row.email, row.status]));
        const fresh = batch.filter((row) => !existing.has(row.email));
        if (fresh.length > 0) {
          const values = JSON.stringify(fresh.map((row) => ({ email: row.email, at: row.consentedAt.toISOString(), name: row.name || null, country: row.country })));
          const inserted = await tx.execute<{ email: string }>(sql`
            INSERT INTO ${marketingConsents} (email, status, source, page, requested_at, given_at, name, country)
            SELECT r.email, 'given', 'import', '', r.at, r.at, r.name, r.country
            FROM jsonb_to_recordset(${values}::jsonb) AS r(email text, at timestamptz, name text, country text)
            ON CONFLICT (email) DO NOTHING
            RETURNING email`);
          counts.added += inserted.rows.length;
          // Taken meanwhile by a form or a checkout: that consent stands, the row is merged.
          counts.merged += fresh.length - inserted.rows.length;
        }
        for (const row of batch) {
          const status = existing.get(row.email);
          if (status === undefined) continue;
          if (status === 'withdrawn') {
            counts.refusals.push({ line: row.line, email: row.email, reason: AUDIENCE_MESSAGES.withdrawn });
            continue;
          }
          await tx
            .update(marketingConsents)
            .set({
              name: sql`coalesce(${marketingConsents.name}, ${row.name || null})`,
              country: sql`coalesce(${marketingConsents.country}, ${row.country})`,
              ...(status === 'pending' ? { status: 'given' as const, source: 'import' as const, page: '', givenAt: row.consentedAt } : {}),
            })
            .where(and(eq(marketingConsents.email, row.email), eq(marketingConsents.status, status)));
          counts.merged += 1;
        }
      }
      const refused = report.refused + counts.refusals.length;
      await recordAudit(tx, {
        actor,
        action: 'audience.import',
        targetType: 'audience',
        targetId: 'import',
        after: { rows: report.rows, added: counts.added, merged: counts.merged, refused },
      });
      return counts;
    },
    { isolationLevel: 'read committed' },
  );
  report.added = counts.added;
  report.merged = counts.merged;
  report.refused += counts.refusals.length;
  report.refusals.push(...counts.refusals.slice(0, Math.max(0, REFUSALS_LISTED - report.refusals.length)));
  report.refusals.sort((a, b) => a.line - b.line);
}
