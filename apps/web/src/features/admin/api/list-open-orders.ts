import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import { functionsClient } from '../../../lib/api-client.ts';
import type { OrdersPage } from '../../../ui/order-details/order-types.ts';
import { openOrdersKeys } from '../../../lib/query-keys.ts';

export const OPEN_ORDERS_PAGE_SIZE = 20;

/** Admins' View Orders: orders not yet fulfilled, newest first, one page at a time. */
export function listOpenOrders(page: { limit: number; after?: string }, signal?: AbortSignal): Promise<OrdersPage> {
  return functionsClient.call('listOpenOrders', page, { signal });
}

// The live 'all-orders' topic refetches every loaded page.
export const openOrdersQueryOptions = () =>
  infiniteQueryOptions({
    queryKey: openOrdersKeys.all,
    queryFn: ({ pageParam, signal }) => listOpenOrders(pageParam ? { limit: OPEN_ORDERS_PAGE_SIZE, after: pageParam } : { limit: OPEN_ORDERS_PAGE_SIZE }, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next,
    staleTime: 0,
  });

export function useOpenOrders() {
  return useInfiniteQuery(openOrdersQueryOptions());
}
