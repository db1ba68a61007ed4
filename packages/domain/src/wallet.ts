/**
 * The token economy's formulas (spec section 9), pure and tolerant of bad data as the
 * spec's robustness rules require.
 */
export const DEFAULT_UTILITY_PRICE_CENTS = 25_000;
export const FALLBACK_CIRCULATING = 100_000;
export const EDITION_MIN = 1;
export const EDITION_MAX = 20;
/**
 * The largest wallet balance or accumulated figure, in cents ($10,000,000,000,000.00): far
 * below Number.MAX_SAFE_INTEGER, so sums of a few of them stay exact (decision 019).
 */
export const MAX_BALANCE_CENTS = 1_000_000_000_000_000;

/** Non-numbers become 0; strings lose every character that is not part of a number. */
export function toNumber(value: unknown): number {
  if (typeof value === 'number') return Number.isFinite(value) ? value : 0;
  if (typeof value === 'string') {
    const cleaned = value.replace(/[^0-9.]/g, '');
    const parsed = Number.parseFloat(cleaned);
    return Number.isFinite(parsed) ? parsed : 0;
  }
  return 0;
}

/** Utility price tiers by total utility sold (cents); the default before data loads. */
export function utilityPriceCents(totalUtilitySoldCents: unknown): number {
  if (totalUtilitySoldCents === undefined || totalUtilitySoldCents === null) return DEFAULT_UTILITY_PRICE_CENTS;
  const sold = toNumber(totalUtilitySoldCents);
  if (sold < 2_500_000_000) return 25_000;
  if (sold < 5_000_000_000) return 30_000;
  if (sold < 7_500_000_000) return 35_000;
  return 40_000;
}

export function circulatingOrFallback(value: unknown): number {
  const n = toNumber(value);
  return n > 0 ? n : FALLBACK_CIRCULATING;
}

export function poolOrZero(value: unknown): number {
  const n = toNumber(value);
  return n > 0 ? n : 0;
}

/** Spot value of one token in USD: (pool, or 30% of utility sold when the pool is 0) / circulating / 100. */
export function tokenSpotValueUsd(poolCents: unknown, utilitySoldCents: unknown, circulating: unknown): number {
  const pool = poolOrZero(poolCents);
  const basis = pool > 0 ? pool : Math.floor(0.3 * toNumber(utilitySoldCents));
  return basis / circulatingOrFallback(circulating) / 100;
}

/** The value shown: the spot value if above 0, else pool dollars divided by circulating. */
export function tokenValueShownUsd(poolCents: unknown, utilitySoldCents: unknown, circulating: unknown): number {
  const spot = tokenSpotValueUsd(poolCents, utilitySoldCents, circulating);
  if (spot > 0) return spot;
  return poolOrZero(poolCents) / 100 / circulatingOrFallback(circulating);
}

export function claimableTokens(totalSpendCents: unknown, priceCents: number, awarded: unknown): number {
  if (!(priceCents > 0)) return 0;
  return Math.max(0, Math.floor(toNumber(totalSpendCents) / priceCents) - Math.floor(toNumber(awarded)));
}

export function claimableUsd(tokens: number, spotUsd: number): number {
  return tokens * spotUsd;
}

export function countsAsEdition(edition: unknown): boolean {
  const n = toNumber(edition);
  return Number.isInteger(n) && n >= EDITION_MIN && n <= EDITION_MAX;
}

export function creditsTotal(current: unknown, earned: unknown): number {
  return toNumber(current) + toNumber(earned);
}

/** Earnings shown: 5% of stream earnings plus sales. */
export function earningsDisplay(streamEarnings: unknown, sales: unknown): number {
  return 0.05 * toNumber(streamEarnings) + toNumber(sales);
}

/** Credits shown from earned-credit strings: 10% of their total. */
export function earnedCreditShare(earnedCreditStrings: unknown): number {
  return 0.1 * toNumber(earnedCreditStrings);
}

/** A DAT's royalty share: the creator gets 50 more. */
export function royaltyShare(base: unknown, isCreator: boolean): number {
  return toNumber(base) + (isCreator ? 50 : 0);
}

/** Reward fields of a realtime wallet entry, summed into its rewards. */
export const REWARD_FIELDS = ['rewards', 'rebate', 'internalRebate', 'internalRewards', 'rewardsTokens', 'rebates'] as const;

export function entryRewards(entry: Partial<Record<(typeof REWARD_FIELDS)[number], unknown>>): number {
  return REWARD_FIELDS.reduce((sum, field) => sum + toNumber(entry[field]), 0);
}

const count = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

/** A dollar amount as the shop prints money (money.ts). */
export { formatDollars } from './money.ts';

export function formatCount(value: number): string {
  return count.format(Number.isFinite(value) ? value : 0);
}

export const WALLET_MESSAGES = {
  datNotFound: 'This DAT does not exist.',
  stripeFailed: 'Unable to open Stripe – try again.',
  balanceCap: 'This would take the balance over the largest amount it can hold ($10,000,000,000,000.00).',
} as const;

/** The wallet history's note on a redeemed gift card's credit (issue 27, decision 053): the line the recipient sees. */
export const GIFT_CARD_HISTORY_NOTE = 'Gift card redeemed';
