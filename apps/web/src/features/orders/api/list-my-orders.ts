import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import { functionsClient } from '../../../lib/api-client.ts';
import type { OrdersPage } from '../../../ui/order-details/order-types.ts';
import { myOrdersKeys } from '../../../lib/query-keys.ts';

export const MY_ORDERS_PAGE_SIZE = 10;

/** The caller's own orders, newest first, one page at a time. */
export function listMyOrders(page: { limit: number; after?: string }, signal?: AbortSignal): Promise<OrdersPage> {
  return functionsClient.call('listMyOrders', page, { signal });
}

// The live 'orders' topic refetches every loaded page.
export const myOrdersQueryOptions = () =>
  infiniteQueryOptions({
    queryKey: myOrdersKeys.all,
    queryFn: ({ pageParam, signal }) => listMyOrders(pageParam ? { limit: MY_ORDERS_PAGE_SIZE, after: pageParam } : { limit: MY_ORDERS_PAGE_SIZE }, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next,
    staleTime: 0,
  });

export function useMyOrders() {
  return useInfiniteQuery(myOrdersQueryOptions());
}
