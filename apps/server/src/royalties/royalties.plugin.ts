import { defineArea } from '../http/area.ts';
import { royaltyFunctions } from './royalties.functions.ts';

/**
 * Royalties (issue 36 parts 2 and 3, decisions 070 and 075): split rules, parties, recoupable
 * costs and the ledger the order and refund flows post to in their own transactions.
 */
export const royaltiesArea = defineArea('royalties', async () => ({ functions: royaltyFunctions() }));
