import { queryOptions, useQuery } from '@tanstack/react-query';
import { functionsClient } from '../../../lib/api-client.ts';
import type { DeskOrder } from './list-orders.ts';

export interface OrderHistoryEntry {
  kind: string;
  at: string;
  by: string | null;
  detail: Record<string, unknown>;
}
export interface RefundView {
  id: string;
  status: 'pending' | 'succeeded' | 'failed';
  walletCents: number;
  cardCents: number;
  lines: { lineId: number; quantity: number }[];
}
export interface OrderDetail {
  order: DeskOrder;
  history: OrderHistoryEntry[];
  refunds: RefundView[];
}

export const orderDetailQueryOptions = (orderId: string) =>
  queryOptions({
    queryKey: ['order-desk', orderId],
    queryFn: ({ signal }) => functionsClient.call<OrderDetail>('getOrder', { orderId }, { signal }),
    staleTime: 0,
  });

export function useOrderDetail(orderId: string | null) {
  return useQuery({ ...orderDetailQueryOptions(orderId ?? ''), enabled: orderId !== null });
}
