import { CATEGORY_ID, SHOP_SEARCH_MAX, type Category, type Product, type ShopPage } from '@storefront/domain/catalog.ts';
import { responsiveImage } from '@storefront/domain/storage-images.ts';
import type { Variant } from '@storefront/domain/variants.ts';
import { ARTIST_SLUG, ARTIST_SLUG_MAX } from '@storefront/domain/roster.ts';
import { absoluteUrl, decimalPrice, shortDescription, SITE_NAME, SITE_PREVIEW_IMAGE, type Availability, type PageHead } from '../web/page-head.ts';
import type { PageAnswer, PublicPages } from '../web/public-pages.ts';
import type { CatalogCache, CatalogSnapshot } from './catalog.cache.ts';

/** The shop's prices are US dollars (domain catalog.ts: formatUsd). */
export const CURRENCY = 'USD';

const SHOP_DESCRIPTION = `Records, merchandise and more from ${SITE_NAME}.`;

const SCHEMA = 'https://schema.org/';

/** Sold out only when every variant is: a product with one size left is in stock. */
function variantAvailability(variant: Variant, product?: Pick<Product, 'releaseDate'>): Availability {
  if (variant.stock !== null && variant.stock <= 0) return 'OutOfStock';
  // A street date still to come (decision 054): sold now as a preorder.
  return (variant.releaseDate ?? product?.releaseDate) ? 'PreOrder' : 'InStock';
}

export function productAvailability(product: Product): Availability {
  const available = product.variants.map((variant) => variantAvailability(variant, product)).filter((availability) => availability !== 'OutOfStock');
  return available.length === 0 ? 'OutOfStock' : available.includes('InStock') ? 'InStock' : 'PreOrder';
}

/** The address of a product's page, as the web app's paths.product writes it. */
export function productPath(id: string): string {
  return `/product/${encodeURIComponent(id)}`;
}

/** The preview image: the first image's default-width variant (1200px previews are not made). */
function previewImage(product: Product): string | undefined {
  const first = product.images[0];
  return first ? responsiveImage(first).src : undefined;
}

/**
 * schema.org Product with its Offer: one Offer for a product without options, an
 * AggregateOffer with an Offer per variant (its own price, sku and availability) otherwise.
 */
export function productStructuredData(product: Product, origin: string): object {
  const url = absoluteUrl(origin, productPath(product.id));
  const offer = (variant: Variant, name?: string) => ({
    '@type': 'Offer',
    ...(name ? { name } : {}),
    sku: variant.sku || variant.id,
    price: decimalPrice(variant.priceCents),
    priceCurrency: CURRENCY,
    availability: `${SCHEMA}${variantAvailability(variant, product)}`,
    itemCondition: `${SCHEMA}NewCondition`,
    url,
  });
  const prices = product.variants.map((variant) => variant.priceCents);
  const single = product.variants.length === 1 ? product.variants[0] : undefined;
  const offers = single
    ? offer(single)
    : {
        '@type': 'AggregateOffer',
        priceCurrency: CURRENCY,
        lowPrice: decimalPrice(Math.min(...prices, product.priceCents)),
        highPrice: decimalPrice(Math.max(...prices, product.priceCents)),
        offerCount: product.variants.length,
        availability: `${SCHEMA}${productAvailability(product)}`,
        offers: product.variants.map((variant) => offer(variant, [product.name, ...variant.options].join(' – '))),
      };
  return {
    '@context': 'https://schema.org',
    '@type': 'Product',
    '@id': url,
    name: product.name,
    description: product.description,
    ...(single?.sku ? { sku: single.sku } : {}),
    image: product.images.map((image) => absoluteUrl(origin, responsiveImage(image).src)),
    url,
    brand: { '@type': 'Brand', name: SITE_NAME },
    offers,
  };
}

export function productHead(product: Product, origin: string): PageHead {
  return {
    title: product.name,
    description: shortDescription(product.description) || `${product.name} from ${SITE_NAME}.`,
    path: productPath(product.id),
    type: 'product',
    image: previewImage(product),
    offer: { priceCents: product.priceCents, currency: CURRENCY, availability: productAvailability(product) },
    structuredData: [productStructuredData(product, origin)],
  };
}

function shopHead(category: string, search: boolean): PageHead {
  return {
    title: 'Shop',
    description: SHOP_DESCRIPTION,
    path: category ? `/shop?category=${encodeURIComponent(category)}` : '/shop',
    image: SITE_PREVIEW_IMAGE,
    noindex: search,
  };
}

const NOT_FOUND: PageAnswer = {
  status: 404,
  shared: true,
  head: { title: 'Product not found', description: 'This product is not in the shop.', path: '/shop', noindex: true },
};

/**
 * The shop's and the products' pages (decision 058). A product's page is made once per
 * catalogue snapshot, so it costs what the cached JSON read costs; a withdrawn or unknown
 * product answers 404 (the web app still runs: an admin sees a withdrawn product there).
 */
export function addCatalogPages(
  pages: PublicPages,
  cache: CatalogCache,
  origin: string,
  read: { search: (filter: { q?: string; category?: string; artist?: string }) => Promise<ShopPage>; categories: () => Promise<Category[]> },
) {
  const productPages = new WeakMap<CatalogSnapshot, Map<string, PageAnswer>>();
  const productPage = (snapshot: CatalogSnapshot, id: string): PageAnswer => {
    let answers = productPages.get(snapshot);
    if (!answers) productPages.set(snapshot, (answers = new Map()));
    let answer = answers.get(id);
    if (!answer) {
      const product = snapshot.activeProduct(id);
      if (!product) return NOT_FOUND;
      // A digital release's product lives at the release's page (issue 39 item 6): its old address moved there.
      answer =
        product.releaseId === undefined
          ? { status: 200, shared: true, head: productHead(product, origin), data: { product } }
          : { status: 301, location: `/music/${product.releaseId}`, shared: true, head: productHead(product, origin) };
      answers.set(id, answer);
    }
    return answer;
  };

  pages.add('/product/:id', (params) => {
    const id = params.id ?? '';
    const loaded = cache.loaded();
    if (loaded) return productPage(loaded, id);
    return cache.snapshot().then((snapshot) => productPage(snapshot, id));
  });

  // The category links (decision 062): read once per snapshot, since a change to the categories
  // publishes on the 'products' topic, which replaces the snapshot (decision 046).
  const categoryLists = new WeakMap<CatalogSnapshot, Promise<Category[]>>();
  const categoriesOf = (snapshot: CatalogSnapshot): Promise<Category[]> => {
    let list = categoryLists.get(snapshot);
    if (!list) {
      list = read.categories();
      categoryLists.set(snapshot, list);
      // A failed read is not kept: the next page asks again.
      list.catch(() => categoryLists.delete(snapshot));
    }
    return list;
  };

  // The shop without a search: one answer per category and snapshot, with the first page
  // the JSON read would send (the same cached list) and the categories as its data.
  const shopPages = new WeakMap<CatalogSnapshot, Map<string, Promise<PageAnswer>>>();
  const shopPage = (snapshot: CatalogSnapshot, category: string): Promise<PageAnswer> => {
    let answers = shopPages.get(snapshot);
    if (!answers) shopPages.set(snapshot, (answers = new Map()));
    let answer = answers.get(category);
    if (!answer) {
      const page = JSON.parse((category ? snapshot.categoryPage(category) : snapshot.list).body.toString()) as ShopPage;
      answer = categoriesOf(snapshot).then(
        (categories): PageAnswer => ({ status: 200, shared: true, head: shopHead(category, false), data: { shop: { category, page, categories } } }),
        // Without its categories the page still shows its products (the web app reads the links),
        // and is not kept: the next request reads them again.
        (): PageAnswer => {
          answers.delete(category);
          return { status: 200, head: shopHead(category, false), data: { shop: { category, page } } };
        },
      );
      // Only categories with products are kept (any well-formed id may be asked for).
      if (!category || snapshot.active.some((product) => product.category === category)) answers.set(category, answer);
    }
    return answer;
  };

  pages.add('/shop', (_params, query) => {
    const category = query.get('category') ?? '';
    const validCategory = CATEGORY_ID.test(category) ? category : '';
    // A search's results are the shop's products again: only the shop and its categories are
    // kept. Its first page is read as GET /api/products?q= reads it, for the server's
    // rendering and the web app's first render (decision 062); `q` as the web app cuts it.
    const q = (query.get('q') ?? '').trim().slice(0, SHOP_SEARCH_MAX);
    // An artist's products (decision 070) are read per request too, like a search.
    const wantedArtist = query.get('artist') ?? '';
    const artist = wantedArtist.length <= ARTIST_SLUG_MAX && ARTIST_SLUG.test(wantedArtist) ? wantedArtist : '';
    if (q || artist) {
      const loaded = cache.loaded();
      const categories = (loaded ? categoriesOf(loaded) : read.categories()).catch(() => undefined);
      return Promise.all([read.search({ q: q || undefined, category: validCategory || undefined, artist: artist || undefined }), categories]).then(
        ([page, list]): PageAnswer => ({
          status: 200,
          head: shopHead(validCategory, true),
          data: { shop: { category: validCategory, q, ...(artist ? { artist } : {}), page, ...(list ? { categories: list } : {}) } },
        }),
        // The page goes out without its data; the web app's own read then shows the error.
        (): PageAnswer => ({ status: 200, head: shopHead(validCategory, true) }),
      );
    }
    const loaded = cache.loaded();
    if (loaded) return shopPage(loaded, validCategory);
    return cache.snapshot().then((snapshot) => shopPage(snapshot, validCategory));
  });

  pages.addToSitemap(async () => {
    const snapshot = cache.loaded() ?? (await cache.snapshot());
    // A release's products are not pages of their own (issue 39 item 6): its page is listed by digital/.
    const pagesOfTheirOwn = snapshot.active.filter((product) => product.releaseId === undefined);
    return [{ path: '/shop' }, ...pagesOfTheirOwn.map((product) => ({ path: productPath(product.id), lastModified: product.updatedAt }))];
  });
}
