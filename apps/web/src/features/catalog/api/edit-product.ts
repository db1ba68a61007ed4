import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { EditProductInput } from '@storefront/domain/catalog-schemas.ts';
import type { Product } from '@storefront/domain/catalog.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { productListKeys } from '../../../lib/query-keys.ts';
import { productQueryOptions } from './get-product.ts';

// Same shape as release-product.ts by design: a call and its mutation; what each refetches afterwards differs.
/** Admins only; the server refuses everyone else (spec section 7, editBizarreProduct). */
export function editProduct(input: EditProductInput) {
  return functionsClient.call('editBizarreProduct', input);
}

/**
 * Saves a product. On success the product page shows the saved values at once and both
 * the product and the shop are fetched again (other browsers hear it through live updates).
 */
export function useEditProduct() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: editProduct,
    onSuccess: (result, input) => {
      if (result.ok !== true) return;
      const productKey = productQueryOptions(input.id).queryKey;
      queryClient.setQueryData(productKey, (old: Product | undefined) =>
        old ? { ...old, name: input.name, description: input.description, priceCents: input.priceCents, images: input.images } : old,
      );
      void queryClient.invalidateQueries({ queryKey: productKey });
      // Every shop list (each search and category) may show it.
      void queryClient.invalidateQueries({ queryKey: productListKeys.all });
    },
  });
}
