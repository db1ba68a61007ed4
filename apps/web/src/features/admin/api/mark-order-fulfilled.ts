import { useMutation, useQueryClient, type InfiniteData } from '@tanstack/react-query';
import { functionsClient } from '../../../lib/api-client.ts';
import type { OrdersPage } from '../../../ui/order-details/order-types.ts';
import { openOrdersQueryOptions } from './list-open-orders.ts';

/** Mark Fulfilled (spec section 4): the order is fulfilled and the buyer's copy shipped. */
export interface FulfilRequest {
  orderId: string;
  carrier?: string;
  trackingNumber?: string;
}

export function markOrderFulfilled(request: FulfilRequest): Promise<{ ok: boolean }> {
  return functionsClient.call<{ ok: boolean }>('markOrderFulfilled', request);
}

export function useMarkOrderFulfilled() {
  const queryClient = useQueryClient();
  const { queryKey } = openOrdersQueryOptions();
  return useMutation({
    mutationFn: markOrderFulfilled,
    onSuccess: (_result, { orderId }) => {
      // It leaves the list at once; the refetch then brings the list in line with the server.
      queryClient.setQueryData<InfiniteData<OrdersPage, string | null>>(queryKey, (data) =>
        data ? { ...data, pages: data.pages.map((page) => ({ ...page, items: page.items.filter((order) => order.id !== orderId) })) } : data,
      );
      void queryClient.invalidateQueries({ queryKey: ['orders'] });
    },
    onError: () => void queryClient.invalidateQueries({ queryKey }),
  });
}
