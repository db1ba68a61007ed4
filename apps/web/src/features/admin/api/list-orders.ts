import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import type { OrderFilter } from '@storefront/domain/order-desk.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import type { Order } from '../../../ui/order-details/order-types.ts';

export const DESK_PAGE_SIZE = 20;

export type DeskOrder = Order & { lines: { lineId: number; productId: string; name: string; qty: number; unitCents: number }[] };
export interface DeskPage {
  items: DeskOrder[];
  next: string | null;
}

/** The order desk (issue 16): orders by status and search, newest first, a page at a time. */
export function listOrders(query: { status: OrderFilter; q?: string; limit: number; after?: string }, signal?: AbortSignal): Promise<DeskPage> {
  return functionsClient.call<DeskPage>('listOrders', query, { signal });
}

// ['orders', 'desk', ...]: the live 'all-orders' topic refetches every loaded page.
export const deskOrdersQueryOptions = (status: OrderFilter, q: string) =>
  infiniteQueryOptions({
    queryKey: ['orders', 'desk', status, q],
    queryFn: ({ pageParam, signal }) => listOrders({ status, limit: DESK_PAGE_SIZE, ...(q ? { q } : {}), ...(pageParam ? { after: pageParam } : {}) }, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next,
    staleTime: 0,
  });

export function useDeskOrders(status: OrderFilter, q: string) {
  return useInfiniteQuery(deskOrdersQueryOptions(status, q));
}
