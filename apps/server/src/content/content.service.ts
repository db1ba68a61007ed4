import { eq } from 'drizzle-orm';
import type { ListQuery } from '@storefront/domain/field-path.ts';
import type { Db } from '../db/client.ts';
import { planListQuery } from '../db/list-query.ts';
import { contentPages, timelineEntries } from '../db/schema/index.ts';
import { AppError } from '../http/errors.ts';

export async function getPage(db: Db, slug: string) {
  const [page] = await db.select().from(contentPages).where(eq(contentPages.slug, slug));
  if (!page) throw new AppError('not-found', `There is no page named ${slug}.`);
  return { slug: page.slug, title: page.title, body: page.body, updatedAt: page.updatedAt.toISOString() };
}

const timelineColumns = {
  releasedOn: timelineEntries.releasedOn,
  year: timelineEntries.year,
  title: timelineEntries.title,
  id: timelineEntries.id,
};

export async function listTimeline(db: Db, query: ListQuery) {
  const plan = planListQuery(query, timelineColumns, {
    orderBy: [{ field: 'releasedOn', direction: 'asc' }, { field: 'id', direction: 'asc' }],
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
