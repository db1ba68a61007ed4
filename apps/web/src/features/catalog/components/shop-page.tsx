import { useDeferredValue, useEffect } from 'react';
import { RELEASE_MESSAGES } from '@storefront/domain/catalog.ts';
import { LoadingRegion, Skeleton } from '../../../ui/skeleton.tsx';
import { useProducts } from '../api/list-products.ts';
import { ProductCard } from './product-card.tsx';
import './catalog.css';

const PLACEHOLDER_CARDS = 8;
/** Cards on the first screen of a desktop: their images load first. */
const PRIORITY_CARDS = 4;
/** Cards on the first screen of a large desktop: drawn before the rest. */
const FIRST_SCREEN_CARDS = 12;

/** The shop (spec section 2): active products as cards, live. */
export function ShopPage() {
  const products = useProducts();
  // When the products first arrive, a screenful of cards renders at once and the rest in
  // the background, in slices the browser can interrupt (sixty cards at once block a phone
  // for a moment). A later change (live update) shows the current list until the new one is ready.
  const deferred = useDeferredValue(products.data);
  const shown = deferred ?? products.data?.slice(0, FIRST_SCREEN_CARDS);
  const failed = products.isError;
  const error = products.error;

  useEffect(() => {
    // Spec section 8: a failed products fetch shows the empty state; the cause is logged.
    if (failed) console.warn('Could not load the products:', error);
  }, [failed, error]);

  return (
    <section className="page shop-page">
      <h1>Shop</h1>
      {products.isPending ? (
        <ShopLoading />
      ) : !shown || shown.length === 0 ? (
        <div className="shop-empty">
          <p>{RELEASE_MESSAGES.empty}</p>
          {failed ? (
            <button type="button" className="button button--secondary" disabled={products.isFetching} onClick={() => void products.refetch()}>
              {products.isFetching ? 'Retrying…' : 'Retry'}
            </button>
          ) : null}
        </div>
      ) : (
        <ul className="shop-grid" aria-label="Products">
          {shown.map((product, index) => (
            <li key={product.id}>
              <ProductCard product={product} priority={index < PRIORITY_CARDS} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function ShopLoading() {
  return (
    <LoadingRegion label="Loading products…">
      <div className="shop-grid">
        {Array.from({ length: PLACEHOLDER_CARDS }, (_, index) => (
          <div key={index} className="product-card product-card--placeholder">
            <Skeleton aspectRatio="1 / 1" width="100%" />
            <Skeleton width="75%" height="1.2rem" />
            <Skeleton width="35%" height="1rem" />
          </div>
        ))}
      </div>
    </LoadingRegion>
  );
}
