import { useInfiniteQuery } from '@tanstack/react-query';
import { functionsClient } from '../../../lib/api-client.ts';
import { pagedQueryOptions, type PageRequest } from '../../../lib/paged-query.ts';
import type { OrdersPage } from '../../../ui/order-details/order-types.ts';
import { myOrdersKeys } from '../../../lib/query-keys.ts';

export const MY_ORDERS_PAGE_SIZE = 10;

/** The caller's own orders, newest first, one page at a time. */
export function listMyOrders(page: PageRequest, signal?: AbortSignal): Promise<OrdersPage> {
  return functionsClient.call('listMyOrders', page, { signal });
}

// Same shape as list-open-orders.ts by design: the paging is shared (pagedQueryOptions), the call, key and page size are each list's own.
// The live 'orders' topic refetches every loaded page.
export const myOrdersQueryOptions = () => pagedQueryOptions(myOrdersKeys.all, MY_ORDERS_PAGE_SIZE, listMyOrders);

export function useMyOrders() {
  return useInfiniteQuery(myOrdersQueryOptions());
}
