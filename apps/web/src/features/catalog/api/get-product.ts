import { queryOptions, useQuery } from '@tanstack/react-query';
import type { Product } from '@storefront/domain/catalog.ts';
import type { ReadOutput } from '@storefront/domain/contracts/rest.ts';
import { getJson, HttpError } from '../../../lib/api-client.ts';
import { productKeys } from '../../../lib/query-keys.ts';

/** One product; inactive ones only for admins (everyone else gets 404, as for unknown ids). */
export async function getProduct(id: string, signal?: AbortSignal): Promise<Product> {
  const { product } = await getJson<ReadOutput<'readProduct'>>(`/api/products/${encodeURIComponent(id)}`, { signal });
  return product;
}

/** The server's answer for an id that is not a product (or not one this visitor may see). */
export function isProductNotFound(error: unknown): boolean {
  // 400: an id the server will not even look up (too long, say) is not a product either.
  return error instanceof HttpError && (error.status === 404 || error.status === 400);
}

// The live 'products' topic refetches it (lib/live.ts).
export const productQueryOptions = (id: string) =>
  queryOptions({
    queryKey: productKeys.one(id),
    queryFn: ({ signal }) => getProduct(id, signal),
    // Asking again will not make an unknown product appear.
    retry: (failureCount, error) => !isProductNotFound(error) && failureCount < 1,
  });

export function useProduct(id: string) {
  return useQuery(productQueryOptions(id));
}
