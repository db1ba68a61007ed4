import { queryOptions, useQuery } from '@tanstack/react-query';
import type { Product } from '@storefront/domain/catalog.ts';
import { getJson } from '../../../lib/api-client.ts';
import { productListKeys } from '../../../lib/query-keys.ts';

/** The shop's products: active ones only, `order` highest first, then name (the server sorts). */
export async function listProducts(signal?: AbortSignal): Promise<Product[]> {
  const { products } = await getJson<{ products: Product[] }>('/api/products', { signal });
  return products;
}

// The live 'products' topic refetches it (lib/live.ts).
export const productsQueryOptions = () =>
  queryOptions({
    queryKey: productListKeys.all,
    queryFn: ({ signal }) => listProducts(signal),
  });

export function useProducts() {
  return useQuery(productsQueryOptions());
}
