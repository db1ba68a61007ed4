import { type Config, publicUrl, shopOrigin } from '../config.ts';
import { defineArea } from '../http/area.ts';
import { createCatalogCache } from './catalog.cache.ts';
import { bundleFunctions } from './bundles.functions.ts';
import { catalogFunctions, type OnPreorderOpened } from './catalog.functions.ts';
import { addCatalogPages } from './catalog.pages.ts';
import { catalogRoutes } from './catalog.routes.ts';
import { listActiveProducts, listShopPage } from './catalog.service.ts';
import type { ProductsOfArtist } from './product-cards.service.ts';
import { listCategories } from './categories.service.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { Db } from '../db/client.ts';
import type { LiveHub } from '../live/live.hub.ts';
import type { PublicPages } from '../web/public-pages.ts';
import type { CallerResolver } from '../accounts/auth.routes.ts';

/** What app.ts hands the catalog area. */
export interface CatalogOptions {
  config: Config;
  db: Db;
  jobs: JobQueue;
  hub: LiveHub;
  pages: PublicPages;
  resolveCaller: CallerResolver;
  /** The products that credit the artist at this address (the shop's ?artist= filter, decision 070); undefined: no such artist. */
  productsOfArtist: ProductsOfArtist;
  /** A product released with a street date ahead may send an automatic announcement (the fans area's, decision 079). */
  onPreorderOpened?: OnPreorderOpened;
}

/** The shop's products: page data from a cache a 'products' NOTIFY empties, and the admin's edits. */
export const catalogArea = defineArea('catalog', async (app, { db, hub, resolveCaller, pages, config, jobs, productsOfArtist, onPreorderOpened }: CatalogOptions) => {
  const cache = createCatalogCache(() => listActiveProducts(db), hub);
  await app.register(catalogRoutes, { db, cache, resolveCaller, productsOfArtist });
  addCatalogPages(pages, cache, shopOrigin(config), { search: (filter) => listShopPage(db, filter, productsOfArtist), categories: () => listCategories(db) });
  const preorders = { db, jobs, publicUrl: publicUrl(config), timeZone: config.LABEL_TIME_ZONE };
  return { functions: [...catalogFunctions({ onChange: cache.invalidate, preorders, onPreorderOpened }), ...bundleFunctions({ onChange: cache.invalidate })] };
});
