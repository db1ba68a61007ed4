import { defineArea } from '../http/area.ts';
import type { QueueMail } from '../mail/mail.jobs.ts';
import type { PayoutProvider } from '../payments/provider.ts';
import { portalFunctions, type PortalPayouts } from './portal.functions.ts';
import { royaltyFunctions } from './royalties.functions.ts';

/**
 * What app.ts hands the royalties area: the payout provider the creators' cash-outs use (Stripe
 * Connect, or the local stand-in), the mail queue (portal invitations), and the caller's payout
 * account and its onboarding for the parties' portal (royalties imports no payouts).
 */
export interface RoyaltiesOptions {
  payouts: PayoutProvider;
  queueMail: QueueMail;
  portalPayouts: PortalPayouts;
}

/**
 * Royalties (issue 36, decisions 070, 075, 077 and 080): split rules, parties, recoupable
 * costs, the ledger the order and refund flows post to in their own transactions, statements,
 * payout runs, and the parties' portal.
 */
export const royaltiesArea = defineArea('royalties', async (_app, { payouts, queueMail, portalPayouts }: RoyaltiesOptions) => ({
  functions: [...royaltyFunctions(payouts), ...portalFunctions({ queueMail, payouts: portalPayouts })],
}));
