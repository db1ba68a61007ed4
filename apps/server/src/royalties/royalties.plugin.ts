import { defineArea } from '../http/area.ts';
import type { PayoutProvider } from '../payments/provider.ts';
import { royaltyFunctions } from './royalties.functions.ts';

/** What app.ts hands the royalties area: the payout provider the creators' cash-outs use (Stripe Connect, or the local stand-in). */
export interface RoyaltiesOptions {
  payouts: PayoutProvider;
}

/**
 * Royalties (issue 36 parts 2-5, decisions 070, 075 and 077): split rules, parties, recoupable
 * costs, the ledger the order and refund flows post to in their own transactions, statements
 * and payout runs.
 */
export const royaltiesArea = defineArea('royalties', async (_app, { payouts }: RoyaltiesOptions) => ({ functions: royaltyFunctions(payouts) }));
