import { defineArea } from '../http/area.ts';
import { createCatalogCache } from './catalog.cache.ts';
import { catalogFunctions } from './catalog.functions.ts';
import { catalogRoutes } from './catalog.routes.ts';
import { listActiveProducts } from './catalog.service.ts';

/** The shop's products: page data from a cache a 'products' NOTIFY empties, and the admin's edits. */
export const catalogArea = defineArea('catalog', async (app, { db, hub, resolveCaller }) => {
  const cache = createCatalogCache(() => listActiveProducts(db), hub);
  await app.register(catalogRoutes, { db, cache, resolveCaller });
  return { functions: catalogFunctions({ onChange: cache.invalidate }) };
});
