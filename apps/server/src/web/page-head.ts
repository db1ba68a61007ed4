import { PAGE_DATA_ELEMENT_ID, type PageData } from '@storefront/domain/page-data.ts';
import { escapeHtml } from '../http/html.ts';
import { centsToDecimal } from '@storefront/domain/money.ts';

/** The label, as pages name it (the web app's SITE_NAME) and as structured data names the seller. */
export const SITE_NAME = 'Street Flavor Records';
/**
 * The shop's own preview image (1200x630 PNG, apps/web/public): shared links to pages with no
 * picture of their own (/home, /shop) show it instead of a text-only card (issue 40 item 12).
 */
export const SITE_PREVIEW_IMAGE = '/og-image.png';

/** The description a page without one of its own carries (index.html's). */
export const SITE_DESCRIPTION = 'Street Flavor Records: music, history and merchandise from the label.';

/** What a public page says about itself in its <head> (decision 058). */
export interface PageHead {
  /** The page's own title; the document's is "<title> · Street Flavor Records" (the web app's documentTitle). */
  title: string;
  description: string;
  /** The canonical address: a path and query on PUBLIC_URL. */
  path: string;
  /** Open Graph type: 'product' for a product page, 'music.album' for a digital release's page, 'profile' for an artist's. */
  type?: 'website' | 'product' | 'music.album' | 'profile';
  /** The preview image: a path on PUBLIC_URL, or an absolute URL. */
  image?: string;
  /** A product's price, for the Open Graph product tags. */
  offer?: { priceCents: number; currency: string; availability: Availability };
  /** JSON-LD blocks (schema.org), each one object. */
  structuredData?: object[];
  /** A page search engines should not keep (a search result, a missing product). */
  noindex?: boolean;
}

export type Availability = 'InStock' | 'OutOfStock' | 'PreOrder';

/** Open Graph's words for schema.org's availability values. */
const OG_AVAILABILITY: Record<Availability, string> = { InStock: 'in stock', OutOfStock: 'out of stock', PreOrder: 'preorder' };

/** The browser tab's title, as the web app writes it once it runs. */
export function documentTitle(pageTitle: string): string {
  return pageTitle ? `${pageTitle} · ${SITE_NAME}` : SITE_NAME;
}

/** `value` on the shop's origin: an absolute URL is kept, a path is put on `origin`. */
export function absoluteUrl(origin: string, value: string): string {
  return new URL(value, `${origin}/`).href;
}

/** Whole cents as schema.org and Open Graph write a price: "25.00". */
export function decimalPrice(cents: number): string {
  return centsToDecimal(cents);
}

/**
 * A JSON-LD block. JSON is not markup: `</script>` in a product's name would end the block
 * and start the attacker's markup, so `<`, `>` and `&` (and the two line separators some
 * parsers take as line ends) are written as JSON escapes, which parse to the same string.
 * The block's type is not JavaScript, so the CSP's script-src never runs it.
 */
export function jsonLdScript(value: object): string {
  return `<script type="application/ld+json">${safeJson(value)}</script>`;
}

/** JSON that can stand inside a <script> element of any non-executable type. */
export function safeJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function meta(attribute: 'name' | 'property', key: string, content: string): string {
  return `<meta ${attribute}="${key}" content="${escapeHtml(content)}">`;
}

/** The <head> markup of a page: title, description, canonical URL, Open Graph, Twitter card, JSON-LD. */
export function renderHead(head: PageHead, origin: string): string {
  const url = absoluteUrl(origin, head.path);
  const image = head.image ? absoluteUrl(origin, head.image) : undefined;
  const title = documentTitle(head.title);
  const tags = [`<title>${escapeHtml(title)}</title>`, meta('name', 'description', head.description), `<link rel="canonical" href="${escapeHtml(url)}">`];
  if (head.noindex) tags.push(meta('name', 'robots', 'noindex'));
  tags.push(
    meta('property', 'og:site_name', SITE_NAME),
    meta('property', 'og:type', head.type ?? 'website'),
    meta('property', 'og:title', head.title || SITE_NAME),
    meta('property', 'og:description', head.description),
    meta('property', 'og:url', url),
  );
  if (image) tags.push(meta('property', 'og:image', image), meta('property', 'og:image:alt', head.title));
  if (head.offer) {
    tags.push(
      meta('property', 'product:price:amount', decimalPrice(head.offer.priceCents)),
      meta('property', 'product:price:currency', head.offer.currency),
      meta('property', 'product:availability', OG_AVAILABILITY[head.offer.availability]),
      meta('property', 'og:price:amount', decimalPrice(head.offer.priceCents)),
      meta('property', 'og:price:currency', head.offer.currency),
    );
  }
  tags.push(
    meta('name', 'twitter:card', image ? 'summary_large_image' : 'summary'),
    meta('name', 'twitter:title', head.title || SITE_NAME),
    meta('name', 'twitter:description', head.description),
  );
  if (image) tags.push(meta('name', 'twitter:image', image));
  for (const block of head.structuredData ?? []) tags.push(jsonLdScript(block));
  return tags.join('');
}

/** The page's data for the web app, as data: JSON in a script element that never runs. */
export function pageDataScript(data: PageData): string {
  return `<script type="application/json" id="${PAGE_DATA_ELEMENT_ID}">${safeJson(data)}</script>`;
}

/** A description of at most `max` characters from free text: one line, cut at a word. */
export function shortDescription(text: string, max = 160): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= max) return line;
  const cut = line.slice(0, max - 1);
  const atWord = cut.lastIndexOf(' ');
  return `${(atWord > max / 2 ? cut.slice(0, atWord) : cut).trimEnd()}…`;
}
