import { eq } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { announcementAutomations, announcements, AUTOMATIC_KINDS } from '../db/schema/index.ts';

/**
 * Automatic announcements (issue 37 part 3, decision 079): a release going live, a preorder
 * opening, a drop scheduled each write and send one announcement, if the label turned that kind
 * on. `automatic_key` (unique) names the event: one announcement per event, however often it is
 * reported.
 */
export type AutomaticKind = (typeof AUTOMATIC_KINDS)[number];

export async function listAutomations(db: Db): Promise<{ kind: AutomaticKind; enabled: boolean }[]> {
  const rows = await db.select().from(announcementAutomations);
  const on = new Map(rows.map((row) => [row.kind, row.enabled]));
  return AUTOMATIC_KINDS.map((kind) => ({ kind, enabled: on.get(kind) ?? false }));
}

export async function setAutomation(db: Db, kind: AutomaticKind, enabled: boolean): Promise<void> {
  await db
    .insert(announcementAutomations)
    .values({ kind, enabled })
    .onConflictDoUpdate({ target: announcementAutomations.kind, set: { enabled, updatedAt: new Date() } });
}

export async function automationOn(db: Db, kind: AutomaticKind): Promise<boolean> {
  const [row] = await db.select({ enabled: announcementAutomations.enabled }).from(announcementAutomations).where(eq(announcementAutomations.kind, kind));
  return row?.enabled ?? false;
}

export interface AutomaticDraft {
  key: string;
  subject: string;
  body: string;
  link: { kind: 'release' | 'product' | 'drop'; id: string; title: string; path: string };
  artistIds: number[];
}

/** The event's announcement as a draft to the label's followers and the credited artists'; null when the event has one already. */
export async function createAutomaticDraft(db: Db, draft: AutomaticDraft): Promise<number | null> {
  const rows = await db
    .insert(announcements)
    .values({
      subject: draft.subject.slice(0, 150),
      body: draft.body,
      linkKind: draft.link.kind,
      linkId: draft.link.id,
      linkTitle: draft.link.title,
      linkPath: draft.link.path,
      toLabel: true,
      artistIds: [...new Set(draft.artistIds)],
      automaticKey: draft.key,
    })
    .onConflictDoNothing({ target: announcements.automaticKey })
    .returning({ id: announcements.id });
  return rows[0]?.id ?? null;
}
