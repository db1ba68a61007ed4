import { z } from 'zod';
import { defineContract, noInput } from './define.ts';

/** The console's announcements (issue 37 part 3, decision 079). */
export const ANNOUNCEMENT_MESSAGES = {
  subject: 'Give the announcement a subject (up to 150 characters).',
  body: 'Write the announcement (up to 10,000 characters).',
  audience: 'Choose the label or at least one artist to send to.',
  image: 'Images must be uploaded to the shop first.',
  link: 'That release, product or drop does not exist.',
  notFound: 'That announcement does not exist.',
  notDraft: 'This announcement has been sent; it can no longer be changed.',
  notSendable: 'Only a draft can be sent.',
  notPausable: 'Only an announcement that is sending can be paused.',
  notResumable: 'Only a paused announcement can be resumed.',
  notCancellable: 'Only an announcement that is sending or paused can be cancelled.',
  noRecipients: 'Nobody would get this announcement: no consenting follower.',
} as const;

const artistId = z.number().int().positive().max(2_147_483_647);
const announcementId = z.object({ id: z.number().int().positive().max(Number.MAX_SAFE_INTEGER) }).strict();

export const announcementLink = z
  .object({
    kind: z.enum(['release', 'product', 'drop']),
    id: z.string().trim().min(1, ANNOUNCEMENT_MESSAGES.link).max(64, ANNOUNCEMENT_MESSAGES.link),
  })
  .strict();

export const saveAnnouncementInput = z
  .object({
    /** Absent: a new draft. */
    id: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).nullish(),
    subject: z.string().trim().min(1, ANNOUNCEMENT_MESSAGES.subject).max(150, ANNOUNCEMENT_MESSAGES.subject),
    body: z.string().trim().min(1, ANNOUNCEMENT_MESSAGES.body).max(10_000, ANNOUNCEMENT_MESSAGES.body),
    /** An image uploaded to the shop (its download URL or path), or '' for none. */
    image: z.string().trim().max(1000, ANNOUNCEMENT_MESSAGES.image).default(''),
    link: announcementLink.nullish(),
    toLabel: z.boolean(),
    artistIds: z.array(artistId).max(200).default([]),
  })
  .strict()
  .refine((input) => input.toLabel || input.artistIds.length > 0, { message: ANNOUNCEMENT_MESSAGES.audience, path: ['artistIds'] });

const counts = z.object({
  total: z.number(),
  queued: z.number(),
  sending: z.number(),
  sent: z.number(),
  failed: z.number(),
  bounced: z.number(),
  unknown: z.number(),
  skipped: z.number(),
  /** Recipients whose consent was withdrawn after the sending started. */
  unsubscribedSince: z.number(),
});

export const announcementOutput = z.object({
  id: z.number(),
  subject: z.string(),
  body: z.string(),
  image: z.string(),
  link: z.object({ kind: z.enum(['release', 'product', 'drop']), id: z.string(), title: z.string(), path: z.string() }).nullable(),
  toLabel: z.boolean(),
  artistIds: z.array(z.number()),
  status: z.enum(['draft', 'sending', 'paused', 'cancelled', 'sent']),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  counts,
  /** For a draft: how many consenting followers it would go to now. */
  audienceSize: z.number().nullable(),
});

export const announcementReportOutput = announcementOutput.extend({
  /** The recipients whose fate a crash or a lost connection left unknown (never re-sent), and the failed and bounced ones. */
  unknown: z.array(z.object({ email: z.string(), detail: z.string() })),
  failed: z.array(z.object({ email: z.string(), state: z.enum(['failed', 'bounced']), detail: z.string() })),
});

/** The automatic announcements (decision 079): a release going live, a preorder opening, a drop scheduled. */
export const AUTOMATIC_KINDS = ['release-live', 'preorder-open', 'drop-scheduled'] as const;
const automationsOutput = z.object({ automations: z.array(z.object({ kind: z.enum(AUTOMATIC_KINDS), enabled: z.boolean() })) });

export const announcementContracts = {
  /** Every announcement, newest first, with its counts. */
  listAnnouncements: defineContract({ access: 'admin', input: noInput, output: z.object({ announcements: z.array(announcementOutput) }) }),
  /** Writes a new draft or changes a draft. */
  saveAnnouncement: defineContract({ access: 'admin', input: saveAnnouncementInput, output: announcementOutput }),
  /** One announcement with its progress and report (the unknown, failed and bounced recipients). */
  getAnnouncement: defineContract({ access: 'admin', input: announcementId, output: announcementReportOutput }),
  /** The mail as a fan would get it (for the caller's own address). */
  previewAnnouncement: defineContract({ access: 'admin', input: announcementId, output: z.object({ subject: z.string(), html: z.string(), text: z.string(), to: z.string() }) }),
  /** Sends the mail to the caller's own address (a test; it counts for nothing). */
  sendAnnouncementTest: defineContract({ access: 'admin', input: announcementId, output: z.object({ to: z.string() }) }),
  /** Sends a draft to the consenting followers it names, now. */
  sendAnnouncement: defineContract({ access: 'admin', input: announcementId, output: announcementOutput }),
  pauseAnnouncement: defineContract({ access: 'admin', input: announcementId, output: announcementOutput }),
  resumeAnnouncement: defineContract({ access: 'admin', input: announcementId, output: announcementOutput }),
  /** Stops for good: the recipients not yet sent to are skipped. */
  cancelAnnouncement: defineContract({ access: 'admin', input: announcementId, output: announcementOutput }),
  /** Which automatic announcements are on (all off at first). */
  listAnnouncementAutomations: defineContract({ access: 'admin', input: noInput, output: automationsOutput }),
  /** Turns one kind of automatic announcement on or off; answers them all after. */
  setAnnouncementAutomation: defineContract({
    access: 'admin',
    input: z.object({ kind: z.enum(AUTOMATIC_KINDS), enabled: z.boolean() }).strict(),
    output: automationsOutput,
  }),
};
