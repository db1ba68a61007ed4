import type { InfiniteData, QueryClient } from '@tanstack/react-query';
import type { ShopPage } from '@storefront/domain/catalog.ts';
import { PAGE_DATA_ELEMENT_ID, type PageData } from '@storefront/domain/page-data.ts';
import { digitalKeys, dropKeys, pageKeys, productKeys, productListKeys, rosterKeys } from './query-keys.ts';

/**
 * Puts the data the server wrote into a public page (decision 058) in the query cache
 * before the first render: the product or the shop's first page shows without asking the
 * server again. Read once, when the app's query client is made (for the first address).
 */
export function seedPageData(queryClient: QueryClient): QueryClient {
  const element = document.getElementById(PAGE_DATA_ELEMENT_ID);
  if (!element?.textContent) return queryClient;
  let data: PageData;
  try {
    data = JSON.parse(element.textContent) as PageData;
  } catch {
    return queryClient; // the page asks for its data as it would without it
  }
  return seedQueryClient(queryClient, data);
}

/**
 * The cache entries a page's data makes. The server's rendering (entry-server.tsx) seeds
 * its query client with the same call, so both first renders read the same data (decision 062).
 */
export function seedQueryClient(queryClient: QueryClient, data: PageData): QueryClient {
  if ('product' in data) queryClient.setQueryData(productKeys.one(data.product.id), data.product);
  if ('shop' in data) {
    const first: InfiniteData<ShopPage, string | null> = { pages: [data.shop.page], pageParams: [null] };
    queryClient.setQueryData(productListKeys.shop(data.shop.q ?? '', data.shop.category, data.shop.artist ?? ''), first);
    // The category links (a page without them sets nothing: setQueryData ignores undefined).
    queryClient.setQueryData(productListKeys.categories, data.shop.categories);
  }
  if ('content' in data) queryClient.setQueryData(pageKeys.one(data.content.slug), data.content.page);
  // getRelease's answer, as the release page's query keeps it.
  if ('release' in data) queryClient.setQueryData(digitalKeys.release(data.release.id), { release: data.release });
  // getDrop's answer, as the drop page and the fairness page keep it (decision 069).
  if ('drop' in data) queryClient.setQueryData(dropKeys.page(data.drop.slug), data.drop);
  // getArtist's and listArtists' answers (decision 070).
  if ('artist' in data) queryClient.setQueryData(rosterKeys.artist(data.artist.slug), { artist: data.artist });
  if ('artists' in data) queryClient.setQueryData(rosterKeys.list, { artists: data.artists });
  return queryClient;
}
