import { defineArea } from '../http/area.ts';
import { serviceRoutes } from './service.routes.ts';
import type { Db } from '../db/client.ts';

/** What app.ts hands the service area. */
export interface ServiceOptions {
  db: Db;
}

/** The sister products' server-to-server API. */
export const serviceArea = defineArea('service', async (app, { db }: ServiceOptions) => {
  await app.register(serviceRoutes, { db });
});
