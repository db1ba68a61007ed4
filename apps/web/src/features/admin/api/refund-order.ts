import { useMutation, useQueryClient } from '@tanstack/react-query';
import { functionsClient } from '../../../lib/api-client.ts';
import type { RefundView } from './get-order.ts';

export interface RefundRequest {
  orderId: string;
  lines?: { lineId: number; quantity: number }[];
  /** One per opening of the refund dialog: a double click or a retry refunds once. */
  idempotencyKey: string;
}

export function refundOrder(request: RefundRequest): Promise<{ refund: RefundView }> {
  return functionsClient.call<{ refund: RefundView }>('refundOrder', request);
}

export function useRefundOrder() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: refundOrder,
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: ['orders'] });
      void queryClient.invalidateQueries({ queryKey: ['order-desk'] });
    },
  });
}
