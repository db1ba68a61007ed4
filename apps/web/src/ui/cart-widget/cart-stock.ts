import { useQueries } from '@tanstack/react-query';
import type { CartLine } from '@storefront/domain/cart.ts';
import type { ReadOutput } from '@storefront/domain/contracts/rest.ts';
import { resolveVariant } from '@storefront/domain/variants.ts';
import { getJson, HttpError } from '../../lib/api-client.ts';
import { productKeys } from '../../lib/query-keys.ts';

/** What is left of a line's variant: null when unlimited or not known (the checkout checks again). */
export interface LineStock {
  /** How many of this line the cart may hold, with the other lines on the same variant. */
  max: number | null;
  /** The line's product once loaded: its other variants are the line's choices (issue 29 item 4). */
  product?: ReadOutput<'readProduct'>['product'] | undefined;
}

const productIdOf = (line: CartLine) => line.productId ?? line.lineId;

/**
 * The stock of each cart line (issue 15), read from the same cached product entries as the
 * product page (the live 'products' topic refetches them), so the cart says at once which
 * line ran out. Lines of one cart on one variant share its stock.
 */
export function useCartStock(lines: CartLine[]): Map<string, LineStock> {
  const ids = [...new Set(lines.map(productIdOf))];
  const products = useQueries({
    queries: ids.map((id) => ({
      queryKey: productKeys.one(id),
      queryFn: async ({ signal }: { signal: AbortSignal }) => (await getJson<ReadOutput<'readProduct'>>(`/api/products/${encodeURIComponent(id)}`, { signal })).product,
      retry: (failureCount: number, error: Error) => !(error instanceof HttpError) && failureCount < 1,
    })),
  });
  const byId = new Map(ids.map((id, index) => [id, products[index]?.data]));
  const result = new Map<string, LineStock>();
  for (const line of lines) {
    const product = byId.get(productIdOf(line));
    const variant = product ? resolveVariant(product.variants, product.id, line.variantId) : undefined;
    if (!variant || variant.stock === null) {
      result.set(line.lineId, { max: null, product });
      continue;
    }
    const others = lines
      .filter((other) => other !== line && productIdOf(other) === product!.id && (other.variantId ?? other.lineId) === (line.variantId ?? line.lineId))
      .reduce((sum, other) => sum + other.qty, 0);
    result.set(line.lineId, { max: Math.max(0, variant.stock - others), product });
  }
  return result;
}
