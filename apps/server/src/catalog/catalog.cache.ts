import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { SHOP_PAGE_SIZE, type Product, type ProductCategory } from '@storefront/domain/catalog.ts';
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
export type ContentEncoding = 'br' | 'gzip' | 'identity';

/** A response body ready to send. */
export interface Representation {
  body: Buffer;
  /** Weak: the bytes differ per content-encoding, the JSON does not. */
  etag: string;
  encoded(encoding: 'br' | 'gzip'): Promise<Buffer>;
}

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

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** Below this size compression is not worth its headers (as the compress plugin's threshold). */
export const COMPRESS_THRESHOLD = 1024;

export function representation(value: unknown): Representation {
  return representationOf(Buffer.from(JSON.stringify(value)));
}

/** Any body (a server-written page, decision 058) kept with its ETag and compressed forms. */
export function representationOf(body: Buffer): Representation {
  const etag = `W/"${createHash('sha1').update(body).digest('base64url')}"`;
  const encodings = new Map<'br' | 'gzip', Promise<Buffer>>();
  return {
    body,
    etag,
    encoded(encoding) {
      let bytes = encodings.get(encoding);
      if (!bytes) {
        // Made once per change, so a better ratio than per-request compression can afford.
        bytes = encoding === 'br' ? brotli(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 6 } }) : gzip(body, { level: 6 });
        encodings.set(encoding, bytes);
      }
      return bytes;
    },
  };
}

/** The first page of a list in shop order, as listShopPage answers it. */
function firstPage(products: Product[], cursor: (product: Product) => string): Representation {
  const page = products.slice(0, SHOP_PAGE_SIZE);
  return representation({ products: page, next: products.length > SHOP_PAGE_SIZE ? cursor(page.at(-1)!) : null });
}

function buildSnapshot(products: Product[], cursor: (product: Product) => string): CatalogSnapshot {
  const byId = new Map(products.map((product) => [product.id, product]));
  const singles = new Map<string, Representation>();
  const categories = new Map<ProductCategory, Representation>();
  return {
    active: products,
    activeProduct: (id) => byId.get(id),
    list: firstPage(products, cursor),
    categoryPage(category) {
      let page = categories.get(category);
      if (!page) {
        const inCategory = products.filter((product) => product.category === category);
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

/** Answers for the Accept-Encoding values seen: browsers send a handful, so parsing once each is enough. */
const encodingOf = new Map<string, ContentEncoding>();
const ENCODINGS_KEPT = 64;

/** The encoding to send for an Accept-Encoding header: br, then gzip, else none. */
export function preferredEncoding(acceptEncoding: string | undefined): ContentEncoding {
  if (!acceptEncoding) return 'identity';
  const known = encodingOf.get(acceptEncoding);
  if (known) return known;
  const chosen = parseEncoding(acceptEncoding);
  // Any header may be sent: past this many distinct ones, they are parsed every time.
  if (encodingOf.size < ENCODINGS_KEPT) encodingOf.set(acceptEncoding, chosen);
  return chosen;
}

function parseEncoding(acceptEncoding: string): ContentEncoding {
  const accepted = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((param) => /^\s*q=([\d.]+)\s*$/.exec(param)?.[1]).find(Boolean);
    if (name) accepted.set(name, q === undefined ? 1 : Number(q));
  }
  const allows = (encoding: string) => (accepted.get(encoding) ?? accepted.get('*') ?? 0) > 0;
  if (allows('br')) return 'br';
  if (allows('gzip')) return 'gzip';
  return 'identity';
}

/** Whether an If-None-Match header names this ETag (weak comparison, as for GET). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(etag));
}
