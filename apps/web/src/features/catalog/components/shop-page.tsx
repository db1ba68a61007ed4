import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from '../../../lib/router.tsx';
import { paths } from '../../../lib/paths.ts';
import { RELEASE_MESSAGES, SHOP_SEARCH_MAX, type ProductCategory } from '@storefront/domain/catalog.ts';
import { useCategories } from '../../../lib/categories.ts';
import { useHydrated } from '../../../lib/hydration.ts';
import { LoadingRegion, Skeleton, SkeletonCards } from '../../../ui/skeleton.tsx';
import { productsQueryOptions, shopFilterFromSearch, type ShopFilter } from '../api/list-products.ts';
import { ProductCard } from './product-card.tsx';
import { ShopDropLinks } from './drop-links.tsx';
import './catalog.css';

const PLACEHOLDER_CARDS = 8;
/** Cards on the first screen of a desktop: their images load first. */
const PRIORITY_CARDS = 4;
/** Typing pauses this long before the search runs (and the URL changes). */
const SEARCH_DELAY_MS = 300;
/** The next page is asked for when the end of the grid comes this close to the screen. */
const NEAR_END = '800px';
export const MORE_FAILED = 'More products could not be loaded.';

/** The URL query of a filter: only what is set, so /shop stays /shop. */
function searchOf(filter: ShopFilter): string {
  const params = new URLSearchParams();
  if (filter.q) params.set('q', filter.q);
  if (filter.category) params.set('category', filter.category);
  if (filter.artist) params.set('artist', filter.artist);
  const query = params.toString();
  return query ? `?${query}` : '';
}

/**
 * The shop (spec section 2): active products as cards, live, a page at a time as the
 * visitor scrolls; a search and a category in the URL (?q=&category=), so a link shares them.
 */
export function ShopPage() {
  const ready = useHydrated();
  const [searchParams, setSearchParams] = useSearchParams();
  const filter = shopFilterFromSearch(searchParams);
  // While a new search loads, the last results stay (dimmed) instead of flashing placeholders.
  const products = useInfiniteQuery({ ...productsQueryOptions(filter), placeholderData: keepPreviousData });
  const shown = products.data?.pages.flatMap((page) => page.products);
  const failed = products.isError && !products.isFetchNextPageError;
  const error = products.error;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = products;
  const moreFailed = products.isFetchNextPageError;

  useEffect(() => {
    // Spec section 8: a failed products fetch shows the empty state; the cause is logged.
    if (error) console.warn('Could not load the products:', error);
  }, [error]);

  // The end of the grid: when it nears the screen, the next page is asked for.
  const end = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = end.current;
    if (!element || !hasNextPage || isFetchingNextPage || moreFailed || typeof IntersectionObserver === 'undefined') return undefined;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) void fetchNextPage();
      },
      { rootMargin: `${NEAR_END} 0px` },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [hasNextPage, isFetchingNextPage, moreFailed, fetchNextPage, shown?.length]);

  const setFilter = (next: ShopFilter) => {
    void setSearchParams(new URLSearchParams(searchOf(next)), { replace: true, preventScrollReset: true });
  };

  const categories = useCategories();
  const emptyText = filter.q ? RELEASE_MESSAGES.noMatch : filter.category ? RELEASE_MESSAGES.emptyCategory : RELEASE_MESSAGES.empty;

  return (
    <section className="page shop-page">
      <h1>Shop</h1>
      <ShopDropLinks />
      {filter.artist ? (
        <p className="shop-artist">
          Showing one artist’s products (<Link to={paths.artist(filter.artist)}>the artist’s page</Link>).{' '}
          <Link to={{ search: searchOf({ ...filter, artist: '' }) }}>Show all products</Link>
        </p>
      ) : null}
      <div className="shop-filters">
        <ShopSearch q={filter.q} onSearch={(q) => setFilter({ ...filter, q })} />
        <nav className="shop-categories" aria-label="Categories">
          <CategoryLink filter={filter} category="" label="All" />
          {(categories.data ?? []).map((category) => (
            <CategoryLink key={category.id} filter={filter} category={category.id} label={category.name} />
          ))}
        </nav>
      </div>
      {products.isPending ? (
        <ShopLoading />
      ) : !shown || shown.length === 0 ? (
        <div className="shop-empty">
          <p>{failed ? RELEASE_MESSAGES.empty : emptyText}</p>
          {failed ? (
            <button type="button" className="button button--secondary" disabled={products.isFetching} onClick={() => void products.refetch()}>
              {products.isFetching ? 'Retrying…' : 'Retry'}
            </button>
          ) : null}
        </div>
      ) : (
        <>
          <ul className={products.isPlaceholderData ? 'tile-grid shop-grid shop-grid--stale' : 'tile-grid shop-grid'} aria-label="Products" aria-busy={products.isPlaceholderData}>
            {shown.map((product, index) => (
              <li key={product.id}>
                <ProductCard product={product} priority={index < PRIORITY_CARDS} />
              </li>
            ))}
          </ul>
          <div ref={end} className="shop-more">
            {isFetchingNextPage ? (
              <LoadingRegion label="Loading more products…">
                <span aria-hidden="true">Loading more products…</span>
              </LoadingRegion>
            ) : moreFailed ? (
              <>
                <p role="alert">{MORE_FAILED}</p>
                <button type="button" className="button button--secondary" onClick={() => void fetchNextPage()}>
                  Retry
                </button>
              </>
            ) : hasNextPage ? (
              // Scrolling loads the next page by itself; the button is for keyboards and for a
              // browser without IntersectionObserver.
              <button type="button" className="button button--secondary" disabled={!ready} onClick={() => void fetchNextPage()}>
                Show more products
              </button>
            ) : null}
          </div>
        </>
      )}
    </section>
  );
}

function CategoryLink({ filter, category, label }: { filter: ShopFilter; category: ProductCategory | ''; label: string }) {
  const current = filter.category === category;
  return (
    <Link
      to={{ search: searchOf({ ...filter, category }) }}
      replace
      preventScrollReset
      className={current ? 'shop-category shop-category--current' : 'shop-category'}
      aria-current={current ? 'page' : undefined}
    >
      {label}
    </Link>
  );
}

/** The search box: runs as the visitor types (after a pause), or at once on Enter. */
function ShopSearch({ q, onSearch }: { q: string; onSearch: (q: string) => void }) {
  const [text, setText] = useState(q);
  const [shownQ, setShownQ] = useState(q);
  const id = useId();
  const latest = useRef(onSearch);
  const box = useRef<HTMLInputElement>(null);
  useEffect(() => {
    latest.current = onSearch;
  });
  // Server-rendered (decision 062): what was typed before this page's code hydrated is in the
  // box but not in React's state (the keystrokes reached no handler). Taken over once, it is
  // searched like any other text.
  useEffect(() => {
    const typed = box.current?.value ?? '';
    if (typed !== q) setText(typed);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, at hydration
  }, []);

  // The URL changed by itself (back button, a category link): the box follows it.
  if (shownQ !== q) {
    setShownQ(q);
    if (text.trim() !== q) setText(q);
  }

  useEffect(() => {
    const wanted = text.trim();
    if (wanted === q) return undefined;
    const timer = setTimeout(() => latest.current(wanted), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text, q]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (text.trim() !== q) onSearch(text.trim());
  };

  return (
    <form role="search" className="shop-search" onSubmit={submit}>
      <label htmlFor={id} className="visually-hidden">
        Search the shop
      </label>
      {/* A plain search input; the login form's email field has the same list of attributes by design (other values). */}
      <input
        ref={box}
        id={id}
        className="field-box"
        type="search"
        name="q"
        placeholder="Search the shop"
        autoComplete="off"
        maxLength={SHOP_SEARCH_MAX}
        value={text}
        onChange={(event) => setText(event.target.value)}
      />
    </form>
  );
}

function ShopLoading() {
  return (
    <LoadingRegion label="Loading products…">
      <div className="tile-grid shop-grid">
        <SkeletonCards count={PLACEHOLDER_CARDS} className="tile product-card product-card--placeholder">
          <Skeleton aspectRatio="1 / 1" width="100%" />
          <Skeleton width="75%" height="1.2rem" />
          <Skeleton width="35%" height="1rem" />
        </SkeletonCards>
      </div>
    </LoadingRegion>
  );
}
