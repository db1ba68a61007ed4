import { defineArea } from '../http/area.ts';
import { serviceRoutes } from './service.routes.ts';

/** The sister products' server-to-server API. */
export const serviceArea = defineArea('service', async (app, { db }) => {
  await app.register(serviceRoutes, { db });
});
