import { shareOf } from './sales-figures.ts';

/**
 * Royalty allocation (issue 36 parts 2 and 3, decisions 070 and 075). Pure: the ledger posts
 * what these say, and a property test checks the ledger against its own model.
 */

export const ROYALTY_PARTY_KINDS = ['artist', 'producer', 'label', 'other-label'] as const;
export const RECOUP_KINDS = ['pressing', 'advance', 'marketing'] as const;
export const FULL_SHARE_BP = 10_000;

export const ROYALTY_MESSAGES = {
  sharesSum: 'The shares must add up to 100% (10,000 basis points).',
  partyTwice: 'A party can appear only once in a split.',
  partyNotFound: 'That party does not exist.',
  pastDate: 'A split applies from today or a later day: the past is never rewritten.',
  subjectNotFound: 'That release, product or artist does not exist.',
  artistTaken: 'That artist already has a party.',
  artistNeeded: 'An artist party names a roster artist.',
  releaseNotFound: 'That release does not exist.',
} as const;

/**
 * `amount` shared by basis points (summing to 10 000): each share gets floor(amount × bp / 10 000),
 * the cents left go one each to the largest remainders, ties to the share listed first. A
 * negative amount is the negation of the positive one's allocation, so a reversal mirrors a sale.
 */
export function allocate(amountCents: number, sharesBp: readonly number[]): number[] {
  if (amountCents === 0) return sharesBp.map(() => 0);
  if (amountCents < 0) return allocate(-amountCents, sharesBp).map((part) => (part === 0 ? 0 : -part));
  return shareOf(amountCents, [...sharesBp]);
}

/** `total` shared over `weights` by largest remainder (the sales overview's `shareOf`); a negative total as the negation of the positive one. */
export function shareSigned(total: number, weights: readonly number[]): number[] {
  if (total === 0) return weights.map(() => 0);
  if (total < 0) return shareSigned(-total, weights).map((part) => (part === 0 ? 0 : -part));
  return shareOf(total, [...weights]);
}

/** The amount a reserve holds of an earning: floor(earning × bp / 10 000); nothing of a reversal. */
export function reserveOf(amountCents: number, reserveBp: number): number {
  return amountCents > 0 ? Math.floor((amountCents * reserveBp) / FULL_SHARE_BP) : 0;
}

/** Recouped so far after a party's earnings of a release reach `earnedCents`, against `costsCents`. */
export function recoupedAfter(earnedCents: number, costsCents: number): number {
  return Math.min(costsCents, Math.max(0, earnedCents));
}
