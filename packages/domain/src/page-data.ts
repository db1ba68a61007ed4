import type { Category, Product, ShopPage } from './catalog.ts';
import type { z } from 'zod';
import type { publicReleaseOutput } from './contracts/digital.ts';
import type { publicDropOutput } from './drops-schemas.ts';
import type { artistCardOutput, publicArtistOutput } from './contracts/roster.ts';
import type { ReadOutput } from './contracts/rest.ts';

/**
 * The data a server-written public page carries for the web app (decision 058): what the
 * page's first render would otherwise ask the server for, in a non-executable
 * `<script type="application/json" id="page-data">` (escaped against `</script>`). The web
 * app puts it in its query cache before the first render, so the page shows without a
 * second request.
 */
export const PAGE_DATA_ELEMENT_ID = 'page-data';

export type PageData =
  /** /product/:id of an active product: GET /api/products/:id's answer. */
  | { product: Product }
  /**
   * /shop: the first page of the shop, of one category or of a search (GET
   * /api/products[?q=][&category=]); `q` as the web app trims and cuts it, absent for none;
   * `categories`, listCategories' answer, for the category links (decision 062); `artist`, an
   * artist's address whose products the page shows (decision 070).
   */
  | { shop: { category: string; q?: string; artist?: string; page: ShopPage; categories?: Category[] } }
  /** /home, /about, /privacy-policy: GET /api/pages/:slug's answer, null for a page not written yet. */
  | { content: { slug: string; page: ReadOutput<'readPage'> | null } }
  /** /music/:id of a published release: getRelease's `release` (decision 062). */
  | { release: z.input<typeof publicReleaseOutput> }
  /** /drops/:slug and /drops/:slug/fairness: getDrop's answer (issue 35, decision 069). */
  | { drop: z.input<typeof publicDropOutput> }
  /** /artist/:slug: getArtist's `artist` (issue 36, decision 070). */
  | { artist: z.input<typeof publicArtistOutput> }
  /** /artists: listArtists' `artists`. */
  | { artists: z.input<typeof artistCardOutput>[] };

/** On the page's root element when the server rendered the page's body (decision 062): the web app hydrates it. */
export const SERVER_RENDERED_ATTRIBUTE = 'data-server-rendered';

/** Beside it: the live stream's last event id when the page's data was read (decision 062). */
export const LIVE_POSITION_ATTRIBUTE = 'data-live-position';
