import { infiniteQueryOptions } from '@tanstack/react-query';
import { isProductCategory, SHOP_SEARCH_MAX, type ProductCategory, type ShopPage } from '@storefront/domain/catalog.ts';
import type { ReadOutput } from '@storefront/domain/contracts/rest.ts';
import { getJson } from '../../../lib/api-client.ts';
import { productListKeys } from '../../../lib/query-keys.ts';

/** What the shop shows: a search and a category, both in the page's URL (?q=&category=). */
export interface ShopFilter {
  q: string;
  category: ProductCategory | '';
  /** An artist's address (decision 070): only the products that credit them; '' for all. */
  artist: string;
}

/** The filter a shop URL names; anything unknown in it is ignored, as a shared link may be old. */
export function shopFilterFromSearch(search: URLSearchParams): ShopFilter {
  const category = search.get('category');
  const artist = search.get('artist') ?? '';
  return {
    q: (search.get('q') ?? '').trim().slice(0, SHOP_SEARCH_MAX),
    category: isProductCategory(category) ? category : '',
    // An address's form only (the server says whether it names an artist): the shop's chunk stays small.
    artist: /^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(artist) && artist.length <= 60 ? artist : '',
  };
}

/**
 * One page of the shop: active products only, `order` highest first, then name (the server
 * sorts). The first page without a search comes from the server's catalogue cache.
 */
export function listProducts(filter: ShopFilter, after: string | null, signal?: AbortSignal): Promise<ShopPage> {
  const params = new URLSearchParams();
  if (filter.q) params.set('q', filter.q);
  if (filter.category) params.set('category', filter.category);
  if (filter.artist) params.set('artist', filter.artist);
  if (after) params.set('after', after);
  const query = params.toString();
  return getJson<ReadOutput<'readProducts'>>(query ? `/api/products?${query}` : '/api/products', { signal });
}

// The live 'products' topic refetches every loaded page (lib/live.ts).
export const productsQueryOptions = (filter: ShopFilter = { q: '', category: '', artist: '' }) =>
  infiniteQueryOptions({
    queryKey: productListKeys.shop(filter.q, filter.category, filter.artist),
    queryFn: ({ pageParam, signal }) => listProducts(filter, pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next,
  });
