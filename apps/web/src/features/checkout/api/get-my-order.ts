import { queryOptions, useQuery } from '@tanstack/react-query';
import { functionsClient } from '../../../lib/api-client.ts';
import { myOrderKeys } from '../../../lib/query-keys.ts';
import type { Order } from '../../../ui/order-details/order-types.ts';

/** The caller's order made by this payment, or null while the payment is still being confirmed. */
export async function getMyOrder(paymentIntentId: string, signal?: AbortSignal): Promise<Order | null> {
  const { order } = await functionsClient.call('getMyOrder', { paymentIntentId }, { signal });
  return order;
}

const CONFIRMING_POLL_MS = 5000;

// The live 'orders' topic refetches it the moment the order is written.
export const myOrderQueryOptions = (paymentIntentId: string) =>
  queryOptions({
    queryKey: myOrderKeys.one(paymentIntentId),
    queryFn: ({ signal }) => getMyOrder(paymentIntentId, signal),
    staleTime: 0,
    // A fallback for a live stream that is down: look again while the order is not there.
    refetchInterval: (query) => (query.state.data ? false : CONFIRMING_POLL_MS),
  });

export function useMyOrder(paymentIntentId: string, enabled: boolean) {
  return useQuery({ ...myOrderQueryOptions(paymentIntentId), enabled });
}
