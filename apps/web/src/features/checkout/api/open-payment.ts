import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { checkoutQuoteKeys, openPaymentKeys, walletKeys } from '../../../lib/query-keys.ts';

export type OpenPayment = NonNullable<FunctionOutput<'getOpenPayment'>['checkout']>;

/** The buyer's open card payment, if any (decision 044: at most one). */
export const openPaymentQueryOptions = () =>
  queryOptions({
    queryKey: openPaymentKeys.all,
    queryFn: ({ signal }) => functionsClient.call('getOpenPayment', null, { signal }),
    staleTime: 0,
    refetchOnWindowFocus: true,
  });

export function useOpenPayment() {
  return useQuery(openPaymentQueryOptions());
}

/** Cancels it: its held wallet credit and units are free again at once; the quote and wallet refresh. */
export function useCancelOpenPayment() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (checkoutId: string) => functionsClient.call('cancelOpenPayment', { checkoutId }),
    onSettled: async () => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: openPaymentKeys.all }),
        queryClient.invalidateQueries({ queryKey: walletKeys.all }),
        queryClient.invalidateQueries({ queryKey: checkoutQuoteKeys.all }),
      ]);
    },
  });
}
