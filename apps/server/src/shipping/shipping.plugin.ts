import type { Db } from '../db/client.ts';
import { defineArea } from '../http/area.ts';
import type { Every } from '../jobs/queue.ts';
import { shippingFunctions } from './shipping.functions.ts';
import { sweepTaxCalculations } from './tax-cache.service.ts';

/** What app.ts hands the shipping area. */
export interface ShippingOptions {
  db: Db;
  every: Every;
}

/** Shipping zones, rates and the tax table (issue 26, decision 051); checkout prices with them. Kept Stripe Tax calculations are swept hourly. */
export const shippingArea = defineArea('shipping', async (_app, { db, every }: ShippingOptions) => {
  await every('tax-calculation-sweep', '23 * * * *', () => sweepTaxCalculations(db).then(() => undefined));
  return { functions: shippingFunctions };
});
