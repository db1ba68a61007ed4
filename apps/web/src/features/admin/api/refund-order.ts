import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { FunctionInput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { deskOrderKeys, orderListKeys } from '../../../lib/query-keys.ts';

/** The order, the lines (absent: all that is left) and one idempotency key per opening of the dialog. */
export type RefundRequest = FunctionInput<'refundOrder'>;

export function refundOrder(request: RefundRequest) {
  return functionsClient.call('refundOrder', request);
}

/** A call that changes an order's refunds; afterwards this browser's order lists and desk fetch again. */
export function useRefundMutation<Input, Output>(mutationFn: (input: Input) => Promise<Output>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: orderListKeys.all });
      void queryClient.invalidateQueries({ queryKey: deskOrderKeys.all });
    },
  });
}

export function useRefundOrder() {
  return useRefundMutation(refundOrder);
}
