import { useInfiniteQuery } from '@tanstack/react-query';
import { functionsClient } from '../../../lib/api-client.ts';
import { pagedQueryOptions, type PageRequest } from '../../../lib/paged-query.ts';
import type { OrdersPage } from '../../../ui/order-details/order-types.ts';
import { openOrdersKeys } from '../../../lib/query-keys.ts';

export const OPEN_ORDERS_PAGE_SIZE = 20;

/** Admins' View Orders: orders not yet fulfilled, newest first, one page at a time. */
export function listOpenOrders(page: PageRequest, signal?: AbortSignal): Promise<OrdersPage> {
  return functionsClient.call('listOpenOrders', page, { signal });
}

// The live 'all-orders' topic refetches every loaded page.
export const openOrdersQueryOptions = () => pagedQueryOptions(openOrdersKeys.all, OPEN_ORDERS_PAGE_SIZE, listOpenOrders);

export function useOpenOrders() {
  return useInfiniteQuery(openOrdersQueryOptions());
}
