import { z } from 'zod';
import { RELEASE_KINDS } from '../digital.ts';
import { ARTIST_BIO_MAX, ARTIST_LINKS_MAX, ARTIST_SLUG, ARTIST_SLUG_MAX, ROSTER_MESSAGES } from '../roster.ts';
import { defineContract, noInput, okOutput, optionalNullable } from './define.ts';

// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const text = (max: number) =>
  z
    .string()
    .trim()
    .max(max, `At most ${max} characters.`)
    .refine((value) => !CONTROL.test(value), 'Control characters are not allowed.');
const id = z.number().int().positive().max(2_147_483_647);

export const artistSlugInput = z.string({ error: ROSTER_MESSAGES.slug }).trim().max(ARTIST_SLUG_MAX, ROSTER_MESSAGES.slug).regex(ARTIST_SLUG, ROSTER_MESSAGES.slug);

export const artistLink = z
  .object({
    label: text(60).pipe(z.string().min(1, ROSTER_MESSAGES.link)),
    url: z
      .string({ error: ROSTER_MESSAGES.link })
      .trim()
      .max(500, ROSTER_MESSAGES.link)
      .regex(/^https?:\/\/[^\s<>"]+$/, ROSTER_MESSAGES.link)
      .refine((value) => URL.canParse(value), ROSTER_MESSAGES.link),
  })
  .strict();

export const saveArtistInput = z
  .object({
    /** Absent: a new artist. */
    id: optionalNullable(id),
    name: text(120).pipe(z.string().min(1, ROSTER_MESSAGES.name)),
    /** Absent: made from the name (a new artist) or kept (an edit). A new one keeps the old one redirecting. */
    slug: optionalNullable(artistSlugInput),
    bio: optionalNullable(text(ARTIST_BIO_MAX)),
    /** One of the shop's own uploaded images (a path or same-origin URL), or empty. */
    image: optionalNullable(text(1000)),
    links: z.array(artistLink).max(ARTIST_LINKS_MAX, ROSTER_MESSAGES.links).default([]),
  })
  .strict();

/** What a credit names: a release or track by number, a product by id. */
export const creditSubject = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('release'), id }).strict(),
  z.object({ kind: z.literal('track'), id }).strict(),
  z.object({ kind: z.literal('product'), id: z.string().min(1).max(64) }).strict(),
]);

export const linkArtistInput = z
  .object({
    artistId: id,
    subject: creditSubject,
    /** True credits the artist; false takes the credit away. */
    linked: z.boolean(),
  })
  .strict();

const linkOutput = z.object({ label: z.string(), url: z.string() });

/** An artist as the console edits it, with what names it and the addresses it had before. */
export const adminArtistOutput = z.object({
  id: z.number(),
  name: z.string(),
  slug: z.string(),
  bio: z.string(),
  image: z.string(),
  links: z.array(linkOutput),
  oldSlugs: z.array(z.string()),
  releases: z.array(z.object({ id: z.number(), title: z.string() })),
  tracks: z.array(z.object({ id: z.number() })),
  products: z.array(z.object({ id: z.string(), name: z.string() })),
});

/** One release whose credit no roster artist took over (the migration's report, decision 070). */
export const unlinkedReleaseOutput = z.object({ id: z.number(), title: z.string(), artist: z.string() });

export const artistCardOutput = z.object({ name: z.string(), slug: z.string(), image: z.string() });

/** An artist's public page (/artist/:slug): the record, its published releases and its merch on sale. */
export const publicArtistOutput = z.object({
  id: z.number(),
  name: z.string(),
  slug: z.string(),
  bio: z.string(),
  image: z.string(),
  links: z.array(linkOutput),
  releases: z.array(z.object({ id: z.number(), kind: z.enum(RELEASE_KINDS), title: z.string(), releaseDate: z.string(), artwork: z.string() })),
  products: z.array(z.object({ id: z.string(), name: z.string(), priceCents: z.number(), image: z.string() })),
});

export const rosterContracts = {
  /** The roster for its public list (/artists): name order. */
  listArtists: defineContract({ access: 'public', input: noInput, output: z.object({ artists: z.array(artistCardOutput) }) }),
  /** One artist's page by its address or an old one (the answer's slug is the current one); null: none. */
  getArtist: defineContract({ access: 'public', input: z.object({ slug: z.string().min(1).max(200) }).strict(), output: z.object({ artist: publicArtistOutput.nullable() }) }),
  /** The console's Roster tab: every artist with what names it, and the releases no artist is credited on. */
  listRoster: defineContract({
    access: 'admin',
    input: noInput,
    output: z.object({ artists: z.array(adminArtistOutput), unlinked: z.array(unlinkedReleaseOutput) }),
  }),
  saveArtist: defineContract({ access: 'admin', input: saveArtistInput, output: z.object({ id: z.number(), slug: z.string() }) }),
  /** Credits (or uncredits) an artist on a release (with the products that sell or carry it), a track or a product. */
  linkArtist: defineContract({ access: 'admin', input: linkArtistInput, output: okOutput }),
  /** Moves every credit and address of `from` to `into`, then removes `from`: its page redirects to `into`'s. */
  mergeArtist: defineContract({ access: 'admin', input: z.object({ from: id, into: id }).strict(), output: okOutput }),
  /** Removes an artist nothing names; one that is named can only be merged. */
  deleteArtist: defineContract({ access: 'admin', input: z.object({ id }).strict(), output: okOutput }),
};
