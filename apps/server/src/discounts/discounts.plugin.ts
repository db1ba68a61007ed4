import { defineArea } from '../http/area.ts';
import { discountFunctions } from './discounts.functions.ts';

/** Discount codes (issue 27, decision 052): the label's codes and their uses; checkout takes and releases the uses. */
export const discountsArea = defineArea('discounts', async () => ({ functions: discountFunctions }));
