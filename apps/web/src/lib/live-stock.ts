import type { QueryClient } from '@tanstack/react-query';
import { productKeys, productListKeys } from './query-keys.ts';

/** A stock event's units left per variant of one product (decision 067); null: unlimited. */
export type StockLeft = Readonly<Record<string, number | null>>;

interface WithVariants {
  id: string;
  variants: readonly { id: string; stock: number | null }[];
}

const isProductLike = (value: object): value is WithVariants => 'id' in value && typeof value.id === 'string' && 'variants' in value && Array.isArray(value.variants);

/** Why an event cannot be applied to what a cache holds: the page refetches it. */
class NotApplicable extends Error {}

/**
 * `data` with the product `productId`'s variants given the units left, wherever it appears
 * (one product, a shop page, the console's list); the same object when nothing changed, so
 * a query showing other products does not render again. A cached product whose variants are
 * not the event's (added or removed since) throws NotApplicable.
 */
export function withStock<T>(data: T, productId: string, stock: StockLeft): T {
  if (data === null || typeof data !== 'object') return data;
  if (Array.isArray(data)) {
    let changed = false;
    const next = data.map((item: unknown) => {
      const updated = withStock(item, productId, stock);
      if (updated !== item) changed = true;
      return updated;
    });
    return (changed ? next : data) as T;
  }
  if (isProductLike(data) && data.id === productId) {
    const ids = Object.keys(stock);
    if (ids.length !== data.variants.length || data.variants.some((variant) => !(variant.id in stock))) throw new NotApplicable();
    if (data.variants.every((variant) => variant.stock === stock[variant.id])) return data;
    return { ...data, variants: data.variants.map((variant) => ({ ...variant, stock: stock[variant.id] ?? null })) };
  }
  let changed = false;
  const next: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    const updated = withStock(value, productId, stock);
    if (updated !== value) changed = true;
    next[key] = updated;
  }
  return (changed ? next : data) as T;
}

/**
 * Applies a stock event to every cached product list and product (decision 067): the shop,
 * a product page and the cart show the units left without a request. The admins' low-stock
 * list is refetched if shown (a variant may cross its threshold); so is any query the event
 * cannot be applied to. The checkout's quote is left alone: the order checks the stock.
 */
export function applyStock(queryClient: QueryClient, productId: string, stock: StockLeft): void {
  for (const queryKey of [productListKeys.all, productKeys.all]) {
    for (const query of queryClient.getQueryCache().findAll({ queryKey })) {
      const key = query.queryKey;
      if (key[1] === productKeys.lowStock[1] || key[1] === 'checkout-quote') continue;
      // A fetch on its way may have read before the sale and would overwrite the units applied: it starts again.
      if (query.state.fetchStatus === 'fetching') {
        void queryClient.cancelQueries({ queryKey: key, exact: true }).then(() => queryClient.invalidateQueries({ queryKey: key, exact: true }));
        continue;
      }
      if (query.state.data === undefined) continue;
      try {
        const next = withStock(query.state.data, productId, stock);
        if (next !== query.state.data) queryClient.setQueryData(key, next);
      } catch (error) {
        if (!(error instanceof NotApplicable)) throw error;
        void queryClient.invalidateQueries({ queryKey: key, exact: true });
      }
    }
  }
  void queryClient.invalidateQueries({ queryKey: productKeys.lowStock });
}
