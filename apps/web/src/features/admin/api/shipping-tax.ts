import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FunctionInput, FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { checkoutQuoteKeys, shippingTaxKeys } from '../../../lib/query-keys.ts';
import { activityQueryOptions } from './admin-activity.ts';

export type ShippingTaxSettings = FunctionOutput<'getShippingTaxConfig'>;
export type ShippingTaxDocument = ShippingTaxSettings['config'];

/** Zones, rates and the tax table, with the version a save must name (issue 26, decision 051). */
export const shippingTaxQueryOptions = () =>
  queryOptions({ queryKey: shippingTaxKeys.all, queryFn: ({ signal }) => functionsClient.call('getShippingTaxConfig', null, { signal }), staleTime: 0 });

export function useShippingTax() {
  return useQuery(shippingTaxQueryOptions());
}

/** Saves the whole document; this browser's open checkout re-quotes at once. */
export function useSaveShippingTax() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: FunctionInput<'saveShippingTaxConfig'>) => functionsClient.call('saveShippingTaxConfig', input),
    onSuccess: (saved) => queryClient.setQueryData(shippingTaxKeys.all, saved),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: checkoutQuoteKeys.all });
      void queryClient.invalidateQueries({ queryKey: activityQueryOptions().queryKey });
    },
  });
}
