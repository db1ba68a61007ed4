import { z } from 'zod';
import { DIGITAL_MESSAGES, DOWNLOAD_FORMATS, isIsrc, MAX_LYRICS_LENGTH, normalizeCode, RELEASE_KINDS } from '../digital.ts';
import { defineContract, noInput, okOutput, optionalNullable } from './define.ts';

// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const text = (max: number, message?: string) =>
  z
    .string()
    .trim()
    .max(max, `At most ${max} characters.`)
    .refine((value) => !CONTROL.test(value), 'Control characters are not allowed.')
    .pipe(message ? z.string().min(1, message) : z.string());
const cents = z.number({ error: DIGITAL_MESSAGES.price }).int(DIGITAL_MESSAGES.price).min(0, DIGITAL_MESSAGES.price).max(100_000_000, DIGITAL_MESSAGES.price);
const id = z.number().int().positive();

export const trackInput = z
  .object({
    id: optionalNullable(id),
    title: text(200, DIGITAL_MESSAGES.title),
    isrc: optionalNullable(
      z
        .string()
        .trim()
        .refine(isIsrc, DIGITAL_MESSAGES.isrc)
        .transform((value) => value.replace(/-/g, '').toUpperCase()),
    ),
    lyrics: optionalNullable(text(MAX_LYRICS_LENGTH)),
    /** The duration the release page shows; absent: the encoded master's. */
    shownDurationSeconds: optionalNullable(
      z.number({ error: DIGITAL_MESSAGES.duration }).int(DIGITAL_MESSAGES.duration).min(1, DIGITAL_MESSAGES.duration).max(86_400, DIGITAL_MESSAGES.duration),
    ),
    /** Sold alone at this price; absent: album only. */
    priceCents: optionalNullable(cents),
    /** The track sold alone is "name your price": priceCents is the minimum. */
    nameYourPrice: z.boolean().default(false),
  })
  .strict();

export const saveReleaseInput = z
  .object({
    id: optionalNullable(id),
    kind: z.enum(RELEASE_KINDS),
    title: text(200, DIGITAL_MESSAGES.title),
    artist: text(200, DIGITAL_MESSAGES.artist),
    releaseDate: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, DIGITAL_MESSAGES.releaseDate)
      .refine((value) => !Number.isNaN(Date.parse(value)), DIGITAL_MESSAGES.releaseDate),
    /** One of the shop's own uploaded images (a path or same-origin URL), or empty. */
    artwork: optionalNullable(text(1000)),
    credits: optionalNullable(text(5000)),
    upc: optionalNullable(
      z
        .string()
        .trim()
        .regex(/^\d{12,13}$/, DIGITAL_MESSAGES.upc),
    ),
    priceCents: cents,
    nameYourPrice: z.boolean().default(false),
    /** null: previews play the full track. */
    previewSeconds: z.number().int().min(5, DIGITAL_MESSAGES.previewSeconds).max(120, DIGITAL_MESSAGES.previewSeconds).nullable().default(30),
    published: z.boolean().default(false),
    tracks: z.array(trackInput).min(1, DIGITAL_MESSAGES.tracks).max(100, DIGITAL_MESSAGES.tracks),
  })
  .strict();

export const encodeStatusOutput = z.enum(['none', 'queued', 'encoding', 'ready', 'failed']);

export const adminTrackOutput = z.object({
  id: z.number(),
  position: z.number(),
  title: z.string(),
  isrc: z.string().nullable(),
  lyrics: z.string(),
  shownDurationSeconds: z.number().nullable(),
  priceCents: z.number().nullable(),
  nameYourPrice: z.boolean(),
  masterPath: z.string().nullable(),
  durationSeconds: z.number().nullable(),
  encodeStatus: encodeStatusOutput,
  /** Formats made so far of `encodeTotal`. */
  encodeDone: z.number(),
  encodeTotal: z.number(),
  encodeAttempts: z.number(),
  encodeError: z.string().nullable(),
});

export const adminReleaseOutput = z.object({
  id: z.number(),
  kind: z.enum(RELEASE_KINDS),
  title: z.string(),
  artist: z.string(),
  releaseDate: z.string(),
  artwork: z.string(),
  credits: z.string(),
  upc: z.string().nullable(),
  priceCents: z.number(),
  nameYourPrice: z.boolean(),
  previewSeconds: z.number().nullable(),
  published: z.boolean(),
  tracks: z.array(adminTrackOutput),
  codes: z.object({ total: z.number(), redeemed: z.number() }),
});

export const publicTrackOutput = z.object({
  id: z.number(),
  position: z.number(),
  title: z.string(),
  /** The label's shown duration, else the encoded master's; null until either is known. */
  durationSeconds: z.number().nullable(),
  priceCents: z.number().nullable(),
  nameYourPrice: z.boolean(),
  /** Empty: no lyrics. */
  lyrics: z.string(),
  /** Where the player streams the preview from (HTTP ranges); null until it is encoded. */
  previewUrl: z.string().nullable(),
  /** The catalogue product that sells this track alone (add it to the cart); null: album only. */
  productId: z.string().nullable(),
});

export const publicReleaseOutput = z.object({
  id: z.number(),
  kind: z.enum(RELEASE_KINDS),
  title: z.string(),
  artist: z.string(),
  releaseDate: z.string(),
  artwork: z.string(),
  credits: z.string(),
  priceCents: z.number(),
  nameYourPrice: z.boolean(),
  /** A future date: a preorder. */
  preorder: z.boolean(),
  /** The catalogue product that sells the whole release (add it to the cart); null: not for sale. */
  productId: z.string().nullable(),
  tracks: z.array(publicTrackOutput),
  /** The roster artists the release credits (issue 36, decision 070), each with their page's address; [] for none yet. */
  artists: z.array(z.object({ id: z.number(), name: z.string(), slug: z.string() })),
});

export const libraryReleaseOutput = z.object({
  id: z.number(),
  title: z.string(),
  artist: z.string(),
  artwork: z.string(),
  /** The whole release is owned (bought, redeemed or bundled), not only some tracks. */
  whole: z.boolean(),
  sources: z.array(z.enum(['purchase', 'code', 'bundle'])),
  /** A preorder not out yet: its release date (YYYY-MM-DD), before which downloads are refused; null once out. */
  availableOn: z.string().nullable(),
  tracks: z.array(z.object({ id: z.number(), position: z.number(), title: z.string(), owned: z.boolean(), ready: z.boolean() })),
});

export const downloadCodeOutput = z.object({
  code: z.string(),
  batch: z.string(),
  createdAt: z.string(),
  redeemedAt: z.string().nullable(),
  redeemedBy: z.string().nullable(),
});

const codeText = z
  .string()
  .max(64, DIGITAL_MESSAGES.codeNotFound)
  .transform(normalizeCode)
  .pipe(z.string().regex(/^[A-Z0-9]{4,32}$/, DIGITAL_MESSAGES.codeNotFound));

export const digitalContracts = {
  saveRelease: defineContract({ access: 'admin', input: saveReleaseInput, output: z.object({ id: z.number(), trackIds: z.array(z.number()) }) }),
  listReleases: defineContract({ access: 'admin', input: noInput, output: z.object({ releases: z.array(adminReleaseOutput) }) }),
  /** Attaches an uploaded master (under masters/) to a track and queues its encoding. */
  setTrackMaster: defineContract({ access: 'admin', input: z.object({ trackId: id, path: z.string().min(1).max(1024) }).strict(), output: okOutput }),
  retryTrackEncoding: defineContract({ access: 'admin', input: z.object({ trackId: id }).strict(), output: okOutput }),
  createDownloadCodes: defineContract({
    access: 'admin',
    input: z.object({ releaseId: id, count: z.number().int().min(1, DIGITAL_MESSAGES.codeCount).max(5000, DIGITAL_MESSAGES.codeCount) }).strict(),
    output: z.object({ batch: z.string(), codes: z.array(z.string()) }),
  }),
  listDownloadCodes: defineContract({ access: 'admin', input: z.object({ releaseId: id }).strict(), output: z.object({ codes: z.array(downloadCodeOutput) }) }),
  /** A physical product that carries a release ("LP + instant download"): buying it grants the release; null unlinks. */
  setProductRelease: defineContract({
    access: 'admin',
    input: z.object({ productId: z.string().min(1).max(64), releaseId: id.nullable() }).strict(),
    output: okOutput,
  }),
  getRelease: defineContract({ access: 'public', input: z.object({ id }).strict(), output: z.object({ release: publicReleaseOutput.nullable() }) }),
  redeemDownloadCode: defineContract({ access: 'signed-in', input: z.object({ code: codeText }).strict(), output: z.object({ releaseId: z.number(), title: z.string() }) }),
  getLibrary: defineContract({ access: 'signed-in', input: noInput, output: z.object({ releases: z.array(libraryReleaseOutput) }) }),
  /** A signed, short-lived link to one owned track, or the whole owned release as a zip, in `format`. */
  createDownloadLink: defineContract({
    access: 'signed-in',
    input: z.object({ releaseId: id, trackId: optionalNullable(id), format: z.enum(DOWNLOAD_FORMATS) }).strict(),
    output: z.object({ url: z.string(), expiresAt: z.string() }),
  }),
};
