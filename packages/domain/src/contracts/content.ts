import { z } from 'zod';
import { CONTENT_MESSAGES, safeLinkHref, TEXT_PAGE_SLUGS } from '../content.ts';
import { listQuerySchema } from '../field-path.ts';
import { defineContract, nullableDefault, okOutput } from './define.ts';

/** One entry of the label's history (spec section 2). */
export const timelineEntryOutput = z.object({
  id: z.number(),
  releasedOn: z.string(),
  year: z.number(),
  title: z.string(),
  format: z.string(),
  note: z.string(),
});

// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** Text as the pages show it (never as HTML): trimmed, at most `max` characters, no control characters but line breaks. */
const plainText = (what: string, max: number) =>
  z
    .string()
    .trim()
    .max(max, CONTENT_MESSAGES.tooLong(what, max))
    .refine((value) => !CONTROL.test(value), `${what} must not contain control characters.`);

const link = z
  .string()
  .trim()
  .max(500, CONTENT_MESSAGES.tooLong('A link', 500))
  .refine((value) => safeLinkHref(value) !== undefined, CONTENT_MESSAGES.link);

/** A same-origin path or the shop's own absolute download URL; the server keeps only its own images. */
const image = z.string().trim().min(1, CONTENT_MESSAGES.coverImage).max(1000, CONTENT_MESSAGES.image);

export const homeCoverInput = z
  .object({
    title: plainText('A cover title', 120).pipe(z.string().min(1, CONTENT_MESSAGES.coverTitle)),
    artist: nullableDefault(plainText('An artist name', 120), ''),
    year: z
      .number({ error: CONTENT_MESSAGES.coverYear })
      .int(CONTENT_MESSAGES.coverYear)
      .min(1900, CONTENT_MESSAGES.coverYear)
      .max(2100, CONTENT_MESSAGES.coverYear)
      .nullish()
      .transform((value) => value ?? null),
    image,
    url: link,
  })
  .strict();

export const saveHomePageInput = z
  .object({
    intro: nullableDefault(plainText('The introduction', 1000), ''),
    covers: z.array(homeCoverInput).max(24, CONTENT_MESSAGES.tooManyCovers),
    copyright: nullableDefault(plainText('The copyright line', 200), ''),
  })
  .strict();

export const contentSectionInput = z
  .object({
    heading: nullableDefault(plainText('A heading', 200), ''),
    paragraphs: z.array(plainText('A paragraph', 5000).pipe(z.string().min(1, 'Remove empty paragraphs.'))).max(50, 'A section holds at most 50 paragraphs.'),
  })
  .strict();

export const saveTextPageInput = z
  .object({
    slug: z.enum(TEXT_PAGE_SLUGS),
    sections: z.array(contentSectionInput).max(30, 'A page holds at most 30 sections.'),
  })
  .strict();

export const historyEntryInput = z
  .object({
    releasedOn: z.iso.date(CONTENT_MESSAGES.entryDate).refine((value) => Number(value.slice(0, 4)) >= 1900 && Number(value.slice(0, 4)) <= 2100, CONTENT_MESSAGES.entryDate),
    title: plainText('An entry title', 200).pipe(z.string().min(1, CONTENT_MESSAGES.entryTitle)),
    format: plainText('A format', 40).pipe(z.string().min(1, CONTENT_MESSAGES.entryFormat)),
    note: nullableDefault(plainText('A note', 2000), ''),
  })
  .strict();

export const saveHistoryInput = z.object({ entries: z.array(historyEntryInput).max(100, 'The timeline holds at most 100 entries.') }).strict();

export const setContactEmailInput = z.object({ email: z.string().trim().toLowerCase().email(CONTENT_MESSAGES.contactEmail).max(254, CONTENT_MESSAGES.contactEmail) }).strict();

export const contentContracts = {
  listHistory: defineContract({
    access: 'public',
    // `{"data": null}` (listHistory() in the SDKs) is the default query.
    input: listQuerySchema.nullable().transform((query) => query ?? listQuerySchema.parse({})),
    output: z.object({ entries: z.array(timelineEntryOutput) }),
  }),
  /** The console's content editing (issue 18, decision 033): each replaces its page whole, audited. */
  saveHomePage: defineContract({ access: 'admin', input: saveHomePageInput, output: okOutput }),
  saveTextPage: defineContract({ access: 'admin', input: saveTextPageInput, output: okOutput }),
  saveHistory: defineContract({ access: 'admin', input: saveHistoryInput, output: okOutput }),
  setContactEmail: defineContract({ access: 'admin', input: setContactEmailInput, output: okOutput }),
};

export type SaveHomePageInput = z.output<typeof saveHomePageInput>;
export type SaveTextPageInput = z.output<typeof saveTextPageInput>;
export type SaveHistoryInput = z.output<typeof saveHistoryInput>;
