import type { Product, ShopPage } from './catalog.ts';
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
  /** /shop without a search: the first page of the shop or of one category (GET /api/products[?category=]). */
  | { shop: { category: string; page: ShopPage } }
  /** /home, /about, /privacy-policy: GET /api/pages/:slug's answer, null for a page not written yet. */
  | { content: { slug: string; page: ReadOutput<'readPage'> | null } };
