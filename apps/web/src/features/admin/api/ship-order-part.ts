import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { FunctionInput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { deskOrderKeys, orderListKeys } from '../../../lib/query-keys.ts';

/** Some lines of an order as one parcel, with its tracking (decision 054). */
export type ShipPartRequest = FunctionInput<'shipOrderPart'>;

export function shipOrderPart(request: ShipPartRequest) {
  return functionsClient.call('shipOrderPart', request);
}

export function useShipOrderPart() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: shipOrderPart,
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: orderListKeys.all });
      void queryClient.invalidateQueries({ queryKey: deskOrderKeys.all });
    },
  });
}
