import { queryOptions, useQuery } from '@tanstack/react-query';
import type { FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { deskOrderKeys } from '../../../lib/query-keys.ts';

/** One order on the desk with its history and refunds: the getOrder contract's answer. */
export type OrderDetail = FunctionOutput<'getOrder'>;
export type OrderHistoryEntry = OrderDetail['history'][number];
export type RefundView = OrderDetail['refunds'][number];

// The live 'all-orders' topic refetches the open order.
export const orderDetailQueryOptions = (orderId: string) =>
  queryOptions({
    queryKey: deskOrderKeys.one(orderId),
    queryFn: ({ signal }) => functionsClient.call('getOrder', { orderId }, { signal }),
    staleTime: 0,
  });

export function useOrderDetail(orderId: string | null) {
  return useQuery({ ...orderDetailQueryOptions(orderId ?? ''), enabled: orderId !== null });
}
