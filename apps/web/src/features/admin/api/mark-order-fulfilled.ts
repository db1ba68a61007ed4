import { useMutation, useQueryClient, type InfiniteData } from '@tanstack/react-query';
import type { FunctionInput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { orderListKeys } from '../../../lib/query-keys.ts';
import type { OrdersPage } from '../../../ui/order-details/order-types.ts';
import { openOrdersQueryOptions } from './list-open-orders.ts';

/** The order and, optionally, the parcel's tracking (carrier and number together). */
export type FulfilRequest = FunctionInput<'markOrderFulfilled'>;

/** Mark Fulfilled (spec section 4): the order is fulfilled and the buyer's copy shipped. */
export function markOrderFulfilled(request: FulfilRequest) {
  return functionsClient.call('markOrderFulfilled', request);
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
      void queryClient.invalidateQueries({ queryKey: orderListKeys.all });
    },
    onError: () => void queryClient.invalidateQueries({ queryKey }),
  });
}
