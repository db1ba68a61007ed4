/**
 * The label's roster (issue 36 part 1, decision 070): artists as the label's own records, not
 * accounts. Their slugs, the messages the console and the pages read, and which release credits
 * the migration could not turn into one artist. Pure: no I/O.
 */

/** The longest slug an artist may have; an address stays readable. */
export const ARTIST_SLUG_MAX = 60;

/** One or more lowercase letters or digits, single hyphens between them. */
export const ARTIST_SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export const ARTIST_BIO_MAX = 5000;
export const ARTIST_LINKS_MAX = 10;

export const ROSTER_MESSAGES = {
  name: 'Enter the artist’s name.',
  slug: `An address is 1 to ${ARTIST_SLUG_MAX} lowercase letters, digits and single hyphens (e.g. the-night-owls).`,
  slugTaken: 'Another artist already has that address.',
  notFound: 'This artist is not on the roster.',
  mergeIntoSelf: 'Choose another artist to merge into.',
  inUse: 'This artist is named by releases, tracks or products: merge it into another artist instead of deleting it.',
  image: 'The image must be an image uploaded to the shop.',
  link: 'A link needs a label and an address starting with https://.',
  links: `An artist has at most ${ARTIST_LINKS_MAX} links.`,
  releaseNotFound: 'This release does not exist.',
  productNotFound: 'This product does not exist.',
  trackNotFound: 'This track does not exist.',
  shopArtist: 'That artist address is not valid.',
} as const;

/** An address made from a name: accents dropped, lowercase, words joined by hyphens; '' when nothing is left. */
export function artistSlug(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, ARTIST_SLUG_MAX)
    .replace(/-+$/, '');
}

/**
 * A credit that names more than one act ("A feat. B", "A & B", "A x B", "A, B", "A vs. B"): the
 * migration does not guess whether it is one group or several artists, so it links nothing
 * and the Roster tab lists the release for the label to link by hand (decision 070). The same
 * pattern is written in SQL in migration 0046.
 */
export const SEVERAL_ARTISTS = /\s(?:feat\.?|ft\.?|featuring|&|x|vs\.?|with|and)\s|,|\//i;

export function namesSeveralArtists(credit: string): boolean {
  return SEVERAL_ARTISTS.test(credit);
}

/** What a release, track or product names: the kinds of credit the roster keeps. */
export const CREDIT_KINDS = ['release', 'track', 'product'] as const;
export type CreditKind = (typeof CREDIT_KINDS)[number];
