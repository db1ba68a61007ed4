import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ReleaseProductInput } from '@storefront/domain/catalog-schemas.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { LIVE_QUERY_KEYS } from '../../../lib/live.ts';

/** Admins only; the server refuses everyone else (spec section 7, releaseBizarreProduct). */
export function releaseProduct(input: ReleaseProductInput) {
  return functionsClient.call('releaseBizarreProduct', input);
}

/** Releases a product; this browser's shop and product pages fetch again at once. */
export function useReleaseProduct() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: releaseProduct,
    onSuccess: (result) => {
      if (result.ok !== true) return;
      // The catalog feature's keys, as the live 'products' topic names them (other browsers refetch through it).
      for (const queryKey of LIVE_QUERY_KEYS.products) void queryClient.invalidateQueries({ queryKey });
    },
  });
}
