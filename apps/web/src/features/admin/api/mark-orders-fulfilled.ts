import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { orderListKeys } from '../../../lib/query-keys.ts';

export type BulkResult = FunctionOutput<'markOrdersFulfilled'>['results'][number];

/** Bulk Mark Fulfilled: each order once, each buyer one email (issue 16.2). */
export function markOrdersFulfilled(orderIds: string[]) {
  return functionsClient.call('markOrdersFulfilled', { orders: orderIds.map((orderId) => ({ orderId })) });
}

export function useMarkOrdersFulfilled() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: markOrdersFulfilled,
    onSettled: () => void queryClient.invalidateQueries({ queryKey: orderListKeys.all }),
  });
}
