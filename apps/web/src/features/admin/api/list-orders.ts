import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import type { FunctionInput, FunctionOutput } from '@storefront/domain/contracts/index.ts';
import type { OrderFilter } from '@storefront/domain/order-desk.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { deskOrdersKeys } from '../../../lib/query-keys.ts';

export const DESK_PAGE_SIZE = 20;

/** A page of the desk: orders with their lines (the listOrders contract's answer). */
export type DeskPage = FunctionOutput<'listOrders'>;
export type DeskOrder = DeskPage['items'][number];

/** The order desk (issue 16): orders by status and search, newest first, a page at a time. */
export function listOrders(query: FunctionInput<'listOrders'>, signal?: AbortSignal) {
  return functionsClient.call('listOrders', query, { signal });
}

// The live 'all-orders' topic refetches every loaded page.
export const deskOrdersQueryOptions = (status: OrderFilter, q: string) =>
  infiniteQueryOptions({
    queryKey: deskOrdersKeys.list(status, q),
    queryFn: ({ pageParam, signal }) => listOrders({ status, limit: DESK_PAGE_SIZE, ...(q ? { q } : {}), ...(pageParam ? { after: pageParam } : {}) }, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next,
    staleTime: 0,
  });

export function useDeskOrders(status: OrderFilter, q: string) {
  return useInfiniteQuery(deskOrdersQueryOptions(status, q));
}
