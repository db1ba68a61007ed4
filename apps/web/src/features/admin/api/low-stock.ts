import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { functionsClient } from '../../../lib/api-client.ts';

/** A variant with few left (issue 15), for the /release low-stock list. */
export interface LowStockRow {
  productId: string;
  productName: string;
  variantId: string;
  options: string[];
  sku: string;
  stock: number;
}

// Under 'product': a live stock change (a sale, a restock elsewhere) refetches it.
export const lowStockQueryOptions = () =>
  queryOptions({
    queryKey: ['product', 'low-stock'] as const,
    queryFn: async () => (await functionsClient.call<{ variants: LowStockRow[] }>('listLowStock', {})).variants,
  });

export function useLowStock() {
  return useQuery(lowStockQueryOptions());
}

/** A restock or correction, audited on the server (who, when, from, to). */
export function useSetStock() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { variantId: string; stock: number | null; reason: string }) =>
      functionsClient.call<{ ok: boolean; from: number | null; to: number | null }>('setVariantStock', input),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ['product'] }),
  });
}
