import { SHOP_PAGE_SIZE, type Product, type ProductCategory } from '@storefront/domain/catalog.ts';
import { representation, type Representation } from '../http/representation.ts';
import type { LiveHub } from '../live/live.hub.ts';
import { shopCursor } from './catalog.service.ts';

/**
 * The shop's catalogue as it is sent: the product list and each active product,
 * serialised once with an ETag, and compressed once per encoding, until the catalogue
 * changes. A change made by this process drops the copy at once (`invalidate`); a
 * change made by any other process arrives as the 'products' NOTIFY that also drives
 * live updates. While the LISTEN connection is down nothing is kept, since a change
 * could go unheard.
 */
export interface CatalogSnapshot {
  /** `{ products, next }`: the shop's first page, what GET /api/products answers without a query. */
  list: Representation;
  /** The first page of one category (GET /api/products?category=...). */
  categoryPage(category: ProductCategory): Representation;
  /** `{ product }` of an active product; undefined for an inactive or unknown id. */
  product(id: string): Representation | undefined;
  /** Every active product, in shop order (the pages' heads and sitemap.xml, decision 058). */
  active: readonly Product[];
  activeProduct(id: string): Product | undefined;
}

export interface CatalogCache {
  snapshot(): Promise<CatalogSnapshot>;
  /** The snapshot if one is loaded and current, without waiting: the hot reads' path. */
  loaded(): CatalogSnapshot | undefined;
  /** The catalogue changed in this process (after the commit). */
  invalidate(): void;
}

/** The first page of a list in shop order, as listShopPage answers it. */
function firstPage(products: Product[], cursor: (product: Product) => string): Representation {
  const page = products.slice(0, SHOP_PAGE_SIZE);
  return representation({ products: page, next: products.length > SHOP_PAGE_SIZE ? cursor(page.at(-1)!) : null });
}

function buildSnapshot(products: Product[], cursor: (product: Product) => string): CatalogSnapshot {
  const byId = new Map(products.map((product) => [product.id, product]));
  // A release's track sold alone is bought and addressed, but not a card (issue 39 item 6).
  const cards = products.filter((product) => product.listed !== false);
  const singles = new Map<string, Representation>();
  const categories = new Map<ProductCategory, Representation>();
  return {
    active: products,
    activeProduct: (id) => byId.get(id),
    list: firstPage(cards, cursor),
    categoryPage(category) {
      let page = categories.get(category);
      if (!page) {
        const inCategory = cards.filter((product) => product.category === category);
        page = firstPage(inCategory, cursor);
        // Only categories with products are kept: any well-formed id may be asked for (decision 046).
        if (inCategory.length > 0) categories.set(category, page);
      }
      return page;
    },
    product(id) {
      let single = singles.get(id);
      if (!single) {
        const product = byId.get(id);
        if (!product) return undefined;
        single = representation({ product });
        singles.set(id, single);
      }
      return single;
    },
  };
}

/**
 * `loadActiveProducts` gives every active product in shop order (the same ORDER BY as a
 * shop page's query, so the first page here and the next one from the database meet);
 * `cursor` is the shop pages' cursor of a product.
 */
export function createCatalogCache(loadActiveProducts: () => Promise<Product[]>, hub: LiveHub, cursor: (product: Product) => string = shopCursor): CatalogCache {
  // A load started before a change must not be kept after it: a change clears `current`,
  // and a load is only ever stored when it starts.
  let current: Promise<CatalogSnapshot> | undefined;
  let loaded: CatalogSnapshot | undefined;
  const invalidate = () => {
    current = undefined;
    loaded = undefined;
  };
  hub.subscribe((event) => {
    if (event.topic === 'products') invalidate();
  });
  hub.onMissedEvents(invalidate);

  return {
    invalidate,
    snapshot() {
      if (current) return current;
      const loading = loadActiveProducts().then((products) => buildSnapshot(products, cursor));
      if (hub.isListening()) {
        // Requests arriving meanwhile share this one load.
        current = loading;
        loading.then(
          (snapshot) => {
            if (current === loading) loaded = snapshot;
          },
          () => {
            if (current === loading) current = undefined;
          },
        );
      }
      return loading;
    },
    loaded: () => loaded,
  };
}
