import { defineArea } from '../http/area.ts';
import { deskRoutes } from './desk.routes.ts';
import { ordersFunctions } from './orders.functions.ts';

/** A shopper's orders and the order desk. */
export const ordersArea = defineArea('orders', async (app, { checkout, db, resolveCaller }) => {
  await app.register(deskRoutes, { db, resolveCaller });
  return { functions: ordersFunctions(checkout) };
});
