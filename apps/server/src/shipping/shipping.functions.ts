import { defineFunction } from '../functions/registry.ts';
import { saveShippingTaxConfig, shippingTaxConfig } from './shipping.service.ts';

/** The console's Shipping & tax tab (issue 26, decision 051). */
export const shippingFunctions = [
  defineFunction('getShippingTaxConfig', async (_input, { db }) => shippingTaxConfig(db)),
  defineFunction('saveShippingTaxConfig', async (input, { db, caller }) => saveShippingTaxConfig(db, input, { userId: caller.userId })),
];
