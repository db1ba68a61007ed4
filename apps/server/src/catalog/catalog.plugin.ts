import { publicUrl } from '../accounts/auth.ts';
import { defineArea } from '../http/area.ts';
import { shopOrigin } from '../web/web-app.ts';
import { createCatalogCache } from './catalog.cache.ts';
import { bundleFunctions } from './bundles.functions.ts';
import { catalogFunctions } from './catalog.functions.ts';
import { addCatalogPages } from './catalog.pages.ts';
import { catalogRoutes } from './catalog.routes.ts';
import { listActiveProducts, listShopPage } from './catalog.service.ts';
import { listCategories } from './categories.service.ts';

/** The shop's products: page data from a cache a 'products' NOTIFY empties, and the admin's edits. */
export const catalogArea = defineArea('catalog', async (app, { db, hub, resolveCaller, pages, config, jobs }) => {
  const cache = createCatalogCache(() => listActiveProducts(db), hub);
  await app.register(catalogRoutes, { db, cache, resolveCaller });
  addCatalogPages(pages, cache, shopOrigin(config), { search: (filter) => listShopPage(db, filter), categories: () => listCategories(db) });
  const preorders = { db, jobs, publicUrl: publicUrl(config), timeZone: config.LABEL_TIME_ZONE };
  return { functions: [...catalogFunctions({ onChange: cache.invalidate, preorders }), ...bundleFunctions({ onChange: cache.invalidate })] };
});
