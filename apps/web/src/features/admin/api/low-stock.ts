import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { productKeys } from '../../../lib/query-keys.ts';

/** A variant with few left (issue 15), for the /release low-stock list. */
export type LowStockRow = FunctionOutput<'listLowStock'>['variants'][number];

// Under 'product': a live stock change (a sale, a restock elsewhere) refetches it.
export const lowStockQueryOptions = () =>
  queryOptions({
    queryKey: productKeys.lowStock,
    queryFn: async () => (await functionsClient.call('listLowStock', null)).variants,
  });

export function useLowStock() {
  return useQuery(lowStockQueryOptions());
}

/** A restock or correction, audited on the server (who, when, from, to). */
export function useSetStock() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { variantId: string; stock: number | null; reason: string }) => functionsClient.call('setVariantStock', input),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: productKeys.all }),
  });
}
