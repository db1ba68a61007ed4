import { eq, sql } from 'drizzle-orm';
import type { SaveHistoryInput, SaveHomePageInput, SaveTextPageInput } from '@storefront/domain/contracts/content.ts';
import type { ListQuery } from '@storefront/domain/field-path.ts';
import { recordAudit, type Actor } from '../audit/audit.service.ts';
import type { Db } from '../db/client.ts';
import { planListQuery } from '../db/list-query.ts';
import { contentPages, timelineEntries } from '../db/schema/index.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';
import { publishLive } from '../live/live.publish.ts';

export async function getPage(db: Db, slug: string) {
  const page = await findPage(db, slug);
  if (!page) throw new AppError('not-found', `There is no page named ${slug}.`);
  return page;
}

/** The page as GET /api/pages/:slug answers it, or null for a page not written yet. */
export async function findPage(db: Db, slug: string) {
  const [page] = await db.select().from(contentPages).where(eq(contentPages.slug, slug));
  return page ? { slug: page.slug, title: page.title, body: page.body, updatedAt: page.updatedAt.toISOString() } : null;
}

const timelineColumns = {
  releasedOn: timelineEntries.releasedOn,
  year: timelineEntries.year,
  title: timelineEntries.title,
  id: timelineEntries.id,
};

export async function listTimeline(db: Db, query: ListQuery) {
  const plan = planListQuery(query, timelineColumns, {
    orderBy: [
      { field: 'releasedOn', direction: 'asc' },
      { field: 'id', direction: 'asc' },
    ],
    limit: 100,
  });
  const rows = await db
    .select()
    .from(timelineEntries)
    .where(plan.where)
    .orderBy(...plan.orderBy)
    .limit(plan.limit);
  if (plan.reversed) rows.reverse();
  return rows;
}

/** The Contact page's address: the one an admin set in the console, else CONTACT_EMAIL. */
export const CONTACT_SLUG = 'contact';

export async function getContactEmail(db: Db, fallback: string): Promise<string> {
  const [row] = await db.select({ body: contentPages.body }).from(contentPages).where(eq(contentPages.slug, CONTACT_SLUG));
  const email = (row?.body as { email?: unknown } | undefined)?.email;
  return typeof email === 'string' && email.length > 0 ? email : fallback;
}

const PAGE_TITLES: Record<string, string> = { home: 'Home', about: 'About', 'privacy-policy': 'Privacy Policy', contact: 'Contact' };

/**
 * Replaces a page's body (decision 033): the row is locked, the change audited with what it
 * replaced, and the open pages told on commit ('content' topic, the page's slug). A save
 * that changes nothing writes nothing, so a repeated save is one audit row.
 */
async function replacePage(db: Db, slug: string, build: (current: unknown) => Record<string, unknown>, actor: Actor): Promise<void> {
  await runTransaction(db, async (tx) => {
    const [current] = await tx.select().from(contentPages).where(eq(contentPages.slug, slug)).for('update');
    const body = build(current?.body);
    if (current && JSON.stringify(sortKeys(current.body)) === JSON.stringify(sortKeys(body))) return;
    const title = current?.title ?? PAGE_TITLES[slug] ?? slug;
    await tx
      .insert(contentPages)
      .values({ slug, title, body })
      .onConflictDoUpdate({ target: contentPages.slug, set: { body, updatedAt: sql`now()` } });
    await recordAudit(tx, { actor, action: 'content.edit', targetType: 'page', targetId: slug, before: current?.body ?? null, after: body });
    await announce(tx, slug);
  });
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, item]) => [key, sortKeys(item)]),
    );
  }
  return value;
}

async function announce(tx: Tx, slug: string) {
  await publishLive(tx, { topic: 'content', id: slug });
}

/** Home: the introduction, the covers (image and link each) and the footer's copyright line. */
export async function saveHomePage(db: Db, input: SaveHomePageInput, actor: Actor): Promise<void> {
  // Fields the console does not edit (the page's JSON may hold more) are kept.
  const kept = (current: unknown) => (current && typeof current === 'object' && !Array.isArray(current) ? (current as Record<string, unknown>) : {});
  await replacePage(db, 'home', (current) => ({ ...kept(current), title: 'Home', intro: input.intro, covers: input.covers, copyright: input.copyright }), actor);
}

/** About or Privacy policy: headed sections of paragraphs. */
export async function saveTextPage(db: Db, input: SaveTextPageInput, actor: Actor): Promise<void> {
  await replacePage(db, input.slug, () => ({ title: PAGE_TITLES[input.slug], sections: input.sections }), actor);
}

export async function setContactEmail(db: Db, email: string, actor: Actor): Promise<void> {
  await replacePage(db, CONTACT_SLUG, () => ({ email }), actor);
}

/**
 * History: the timeline is replaced whole, in date order, under a lock on the table so two
 * saves never interleave their rows. Audited with the old and new entries.
 */
export async function saveHistory(db: Db, input: SaveHistoryInput, actor: Actor): Promise<void> {
  const entries = [...input.entries].sort((a, b) => a.releasedOn.localeCompare(b.releasedOn));
  await runTransaction(db, async (tx) => {
    await tx.execute(sql`LOCK TABLE ${timelineEntries} IN SHARE ROW EXCLUSIVE MODE`);
    const before = await tx
      .select({ releasedOn: timelineEntries.releasedOn, title: timelineEntries.title, format: timelineEntries.format, note: timelineEntries.note })
      .from(timelineEntries)
      .orderBy(timelineEntries.releasedOn, timelineEntries.id);
    if (JSON.stringify(before) === JSON.stringify(entries.map(({ releasedOn, title, format, note }) => ({ releasedOn, title, format, note })))) return;
    await tx.delete(timelineEntries);
    if (entries.length > 0) {
      await tx.insert(timelineEntries).values(entries.map((entry) => ({ ...entry, year: Number(entry.releasedOn.slice(0, 4)) })));
    }
    await recordAudit(tx, { actor, action: 'content.history', targetType: 'page', targetId: 'history', before: { entries: before }, after: { entries } });
    await announce(tx, 'history');
  });
}
