import { formatCount, formatDollars, WALLET_MESSAGES } from '@storefront/domain/wallet.ts';
import { formatUsd } from '@storefront/domain/money.ts';

export const WALLET_TEXTS = {
  noDats: 'No DATs yet.',
  datNotFound: WALLET_MESSAGES.datNotFound,
  loadFailed: 'Your wallet could not be loaded.',
  datLoadFailed: 'This DAT could not be loaded.',
  tryAgain: 'Check your connection and try again.',
} as const;

/** Whole cents as dollars with cents: 51234 -> "$512.34". */
export const formatCents = (cents: number) => formatUsd(Number.isFinite(cents) ? cents : 0);

const smallUsd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumSignificantDigits: 2 });

/** A token's value: with cents, but a value under one cent keeps two significant digits rather than showing $0.00. */
export function formatTokenUsd(value: number): string {
  return value > 0 && value < 0.01 ? smallUsd.format(value) : formatDollars(value);
}

/** "1 credit", "1,590 credits". */
export const formatCredits = (credits: number) => `${formatCount(credits)} ${credits === 1 ? 'credit' : 'credits'}`;

const releaseDate = new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone: 'UTC' });

/** A release time as a date ("February 1, 2026"); the day of the release, wherever the reader is. */
export function formatReleaseDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : releaseDate.format(date);
}
