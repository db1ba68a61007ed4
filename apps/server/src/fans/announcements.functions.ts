import { ANNOUNCEMENT_MESSAGES } from '@storefront/domain/contracts/announcements.ts';
import { ownImageUrl } from '@storefront/domain/catalog-schemas.ts';
import { publicUrl } from '../config.ts';
import type { Db } from '../db/client.ts';
import { AppError } from '../errors.ts';
import { defineFunction, type CallableFunction } from '../functions/registry.ts';
import { hitRateLimit } from '../http/rate-limit.ts';
import type { Mail } from '../mail/mailer.ts';
import { listAutomations, setAutomation } from './announcement-automation.service.ts';
import { announcementMail } from './announcement.mail.ts';
import {
  audienceSize,
  cancelSending,
  changeSendingStatus,
  countsOf,
  findAnnouncement,
  listAnnouncementRows,
  listedRecipients,
  saveAnnouncementDraft,
  startSending,
  type AnnouncementRow,
} from './announcements.service.ts';

export type LinkKind = 'release' | 'product' | 'drop';

export interface AnnouncementDeps {
  queueMail: (mail: Mail) => Promise<void>;
  emailOf: (userId: string) => Promise<string>;
  /** The title and shop path of a release, product or drop (their areas own them; app.ts hands this over). */
  resolveLink: (kind: LinkKind, id: string) => Promise<{ title: string; path: string } | undefined>;
  /** Tells this instance's sender to look for work now. */
  wake: () => void;
}

async function view(db: Db, row: AnnouncementRow, known?: Awaited<ReturnType<typeof countsOf>>, withAudience = true) {
  const counts = (known ?? (await countsOf(db, [row]))).get(row.id)!;
  return {
    id: row.id,
    subject: row.subject,
    body: row.body,
    image: row.image,
    link: row.linkKind && row.linkId ? { kind: row.linkKind, id: row.linkId, title: row.linkTitle, path: row.linkPath } : null,
    toLabel: row.toLabel,
    artistIds: row.artistIds,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
    startedAt: row.startedAt?.toISOString() ?? null,
    finishedAt: row.finishedAt?.toISOString() ?? null,
    counts,
    audienceSize: withAudience && row.status === 'draft' ? await audienceSize(db, row.toLabel, row.artistIds) : null,
  };
}

const contentOf = (row: AnnouncementRow) => ({ subject: row.subject, body: row.body, image: row.image, linkTitle: row.linkTitle, linkPath: row.linkPath });

/** The console's announcements (issue 37 part 3, decision 079): admins only. */
export function announcementFunctions(deps: AnnouncementDeps): CallableFunction[] {
  const refused = (message: string) => new AppError('failed-precondition', message);
  return [
    defineFunction('listAnnouncements', async (_input, { db }) => {
      const rows = await listAnnouncementRows(db);
      const counts = await countsOf(db, rows);
      return {
        announcements: await Promise.all(rows.map((row) => view(db, row, counts, false))),
      };
    }),
    defineFunction('saveAnnouncement', async (input, { db, origin, caller }) => {
      const image = input.image ? ownImageUrl(input.image, origin ?? '') : '';
      if (image === undefined) throw new AppError('invalid-argument', ANNOUNCEMENT_MESSAGES.image);
      const resolved = input.link ? await deps.resolveLink(input.link.kind, input.link.id) : undefined;
      if (input.link && !resolved) throw new AppError('invalid-argument', ANNOUNCEMENT_MESSAGES.link);
      const link = input.link && resolved ? { kind: input.link.kind, id: input.link.id, ...resolved } : null;
      const id = await saveAnnouncementDraft(
        db,
        input.id ?? null,
        { subject: input.subject, body: input.body, image, link, toLabel: input.toLabel, artistIds: input.artistIds },
        caller.userId,
      );
      return view(db, await findAnnouncement(db, id));
    }),
    defineFunction('getAnnouncement', async ({ id }, { db }) => {
      const row = await findAnnouncement(db, id);
      const listed = await listedRecipients(db, id);
      return {
        ...(await view(db, row)),
        unknown: listed.filter((r) => r.state === 'unknown').map(({ email, detail }) => ({ email, detail })),
        failed: listed.flatMap((r) => (r.state === 'failed' || r.state === 'bounced' ? [{ email: r.email, state: r.state, detail: r.detail }] : [])),
      };
    }),
    defineFunction('previewAnnouncement', async ({ id }, { db, config, caller }) => {
      const row = await findAnnouncement(db, id);
      const to = await deps.emailOf(caller.userId);
      const mail = announcementMail(contentOf(row), { email: to, name: '' }, publicUrl(config), config.AUTH_SECRET);
      return { subject: mail.subject, html: mail.html, text: mail.text, to };
    }),
    defineFunction('sendAnnouncementTest', async ({ id }, { db, config, caller }) => {
      await hitRateLimit(db, `announcement-test:${caller.userId}`, 20, 600);
      const row = await findAnnouncement(db, id);
      const to = await deps.emailOf(caller.userId);
      const mail = announcementMail(contentOf(row), { email: to, name: '' }, publicUrl(config), config.AUTH_SECRET);
      await deps.queueMail({ ...mail, subject: `[Test] ${mail.subject}` });
      return { to };
    }),
    defineFunction('sendAnnouncement', async ({ id }, { db }) => {
      await startSending(db, id);
      deps.wake();
      return view(db, await findAnnouncement(db, id));
    }),
    defineFunction('pauseAnnouncement', async ({ id }, { db }) => {
      if (!(await changeSendingStatus(db, id, 'sending', 'paused'))) {
        await findAnnouncement(db, id);
        throw refused(ANNOUNCEMENT_MESSAGES.notPausable);
      }
      return view(db, await findAnnouncement(db, id));
    }),
    defineFunction('resumeAnnouncement', async ({ id }, { db }) => {
      if (!(await changeSendingStatus(db, id, 'paused', 'sending'))) {
        await findAnnouncement(db, id);
        throw refused(ANNOUNCEMENT_MESSAGES.notResumable);
      }
      deps.wake();
      return view(db, await findAnnouncement(db, id));
    }),
    defineFunction('cancelAnnouncement', async ({ id }, { db }) => {
      if (!(await cancelSending(db, id))) {
        await findAnnouncement(db, id);
        throw refused(ANNOUNCEMENT_MESSAGES.notCancellable);
      }
      return view(db, await findAnnouncement(db, id));
    }),
    defineFunction('listAnnouncementAutomations', async (_input, { db }) => ({ automations: await listAutomations(db) })),
    defineFunction('setAnnouncementAutomation', async ({ kind, enabled }, { db }) => {
      await setAutomation(db, kind, enabled);
      return { automations: await listAutomations(db) };
    }),
  ];
}
