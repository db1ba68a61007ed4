import { useMutation, useQueryClient } from '@tanstack/react-query';
import { functionsClient } from '../../../lib/api-client.ts';

export interface BulkResult {
  orderId: string;
  ok: boolean;
  changed: boolean;
  message?: string;
}

/** Bulk Mark Fulfilled: each order once, each buyer one email (issue 16.2). */
export function markOrdersFulfilled(orderIds: string[]): Promise<{ results: BulkResult[] }> {
  return functionsClient.call<{ results: BulkResult[] }>('markOrdersFulfilled', { orders: orderIds.map((orderId) => ({ orderId })) });
}

export function useMarkOrdersFulfilled() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: markOrdersFulfilled,
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ['orders'] }),
  });
}
