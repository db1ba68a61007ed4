/**
 * The label's content pages (spec section 2: Home, About, History, Contact, Privacy policy)
 * as the console edits them (issue 18, decision 033). No zod here: the public pages import
 * these checks, so their first load stays small; the requests are in contracts/content.ts.
 */
import { parseDownloadUrl } from './storage-location.ts';

export const CONTENT_MESSAGES = {
  link: 'Links must start with http://, https:// or mailto:.',
  image: 'Images must be uploaded to the shop first.',
  coverTitle: 'Every cover needs a title.',
  coverImage: 'Every cover needs an image.',
  coverYear: 'A cover’s year must be a whole number between 1900 and 2100.',
  tooManyCovers: 'The home page shows at most 24 covers.',
  entryTitle: 'Every history entry needs a title.',
  entryFormat: 'Every history entry needs a format (EP, Single, Album...).',
  entryDate: 'Every history entry needs a release date (YYYY-MM-DD).',
  contactEmail: 'Please enter a valid email address.',
  tooLong: (what: string, max: number) => `${what} must be at most ${max} characters.`,
} as const;

/** The text pages made of headed sections of paragraphs. */
export const TEXT_PAGE_SLUGS = ['about', 'privacy-policy'] as const;
export type TextPageSlug = (typeof TEXT_PAGE_SLUGS)[number];

/** The only schemes a label's link may use: web pages and email. */
const SAFE_LINK = /^(?:https?:\/\/[^\s/?#]+[^\s]*|mailto:[^\s]+)$/i;

/**
 * The href to render for a link the label typed, or undefined (render it as text): only
 * http(s) and mailto, never `javascript:` or `data:`. The server refuses others on save;
 * the pages check again, as rows may be older than the rule.
 */
export function safeLinkHref(url: string): string | undefined {
  const value = url.trim();
  if (!SAFE_LINK.test(value)) return undefined;
  try {
    const parsed = new URL(value);
    return ['http:', 'https:', 'mailto:'].includes(parsed.protocol) ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

/** Same-origin image paths only (our storage and the sample art): no scheme, no `//` host. */
const SAFE_IMAGE_SRC = /^\/(?!\/)[A-Za-z0-9._~\-/%?=&+]{1,500}$/;
/** The sample art the first start serves (`content/covers/`). */
const SAMPLE_ART = /^\/content\/covers\/[A-Za-z0-9._-]{1,100}$/;

/**
 * An image source to render, or undefined: a same-origin path to the sample art or to an
 * object of our storage, as the server stores images (not any path of the shop, which a
 * visitor's browser would then request).
 */
export function safeImageSrc(src: string): string | undefined {
  if (!SAFE_IMAGE_SRC.test(src)) return undefined;
  return SAMPLE_ART.test(src) || parseDownloadUrl(src) !== undefined ? src : undefined;
}
