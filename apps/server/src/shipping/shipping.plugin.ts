import { defineArea } from '../http/area.ts';
import { shippingFunctions } from './shipping.functions.ts';

/** Shipping zones, rates and the tax table (issue 26, decision 051); checkout prices with them. */
export const shippingArea = defineArea('shipping', async () => ({ functions: shippingFunctions }));
