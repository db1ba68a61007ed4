import type { InfiniteData, Query, QueryClient, QueryKey } from '@tanstack/react-query';
import type { ShopPage } from '@storefront/domain/catalog.ts';
import { PAGE_DATA_ELEMENT_ID, type PageData } from '@storefront/domain/page-data.ts';
import { pageKeys, productKeys, productListKeys } from './query-keys.ts';

/** The queries whose data came with the page (the live stream's first open does not refetch them). */
const fromPage = new WeakSet<Query>();
export const cameWithPage = (query: Query): boolean => fromPage.has(query);

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
  const seed = (queryKey: QueryKey, value: unknown) => {
    queryClient.setQueryData(queryKey, value);
    const query = queryClient.getQueryCache().find({ queryKey, exact: true });
    if (query) fromPage.add(query);
  };
  if ('product' in data) seed(productKeys.one(data.product.id), data.product);
  if ('shop' in data) {
    const first: InfiniteData<ShopPage, string | null> = { pages: [data.shop.page], pageParams: [null] };
    seed(productListKeys.shop('', data.shop.category), first);
  }
  if ('content' in data) seed(pageKeys.one(data.content.slug), data.content.page);
  return queryClient;
}
