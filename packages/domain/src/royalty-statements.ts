import { centsToDecimal } from './money.ts';
import { csvCell, csvRow } from './order-desk.ts';

/**
 * Royalty statements and payouts (issue 36 parts 4 and 5, decision 077): periods of the label's
 * days, the statement's figures and their CSV. Pure: the server fills them from the ledger.
 */

export const STATEMENT_PERIOD_KINDS = ['month', 'quarter'] as const;
export type StatementPeriodKind = (typeof STATEMENT_PERIOD_KINDS)[number];

/** A month ("2026-11") or a quarter ("2026-Q4"). */
export const STATEMENT_PERIOD_PATTERN = /^\d{4}-(?:0[1-9]|1[0-2]|Q[1-4])$/;

export const STATEMENT_MESSAGES = {
  period: 'A period is a month (2026-11) or a quarter (2026-Q4).',
  notBegun: 'That period has not begun yet.',
  alreadyIssued: 'A statement for that period, or a later one, was issued already: corrections go on the next statement.',
  statementNotFound: 'That statement does not exist.',
  partyNotFound: 'That party does not exist.',
  accountId: 'A connected account id starts with acct_.',
} as const;

/** A period's kind and its label days: `from` its first, `to` the day after its last. */
export function statementPeriod(period: string): { kind: StatementPeriodKind; from: string; to: string } {
  if (!STATEMENT_PERIOD_PATTERN.test(period)) throw new RangeError(STATEMENT_MESSAGES.period);
  const year = Number(period.slice(0, 4));
  const quarter = period.includes('Q') ? Number(period.slice(6)) : null;
  const firstMonth = quarter === null ? Number(period.slice(5, 7)) : (quarter - 1) * 3 + 1;
  const months = quarter === null ? 1 : 3;
  const day = (y: number, m: number) => `${String(y + Math.floor((m - 1) / 12)).padStart(4, '0')}-${String(((m - 1) % 12) + 1).padStart(2, '0')}-01`;
  return { kind: quarter === null ? 'month' : 'quarter', from: day(year, firstMonth), to: day(year, firstMonth + months) };
}

/** The last day of a period whose next day is `to` (YYYY-MM-DD). */
export function lastDayBefore(to: string): string {
  return new Date(Date.parse(`${to}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
}

export interface StatementEarning {
  releaseId: number | null;
  release: string;
  format: 'digital' | 'physical';
  soldCents: number;
  returnedCents: number;
}

/** A statement: closing = opening + earnings - recouped - reserve held + reserve released - payouts. */
export interface RoyaltyStatement {
  id: number | null;
  party: { id: number; name: string; kind: string };
  period: string;
  periodKind: StatementPeriodKind;
  from: string;
  /** The period's last day. */
  through: string;
  timeZone: string;
  cutoffAt: string;
  issuedAt: string | null;
  openingCents: number;
  earningsCents: number;
  recoupedCents: number;
  reserveHeldCents: number;
  reserveReleasedCents: number;
  payoutsCents: number;
  closingCents: number;
  /** Of the above, what is dated before the period: entries posted after the statement that covered their day. */
  earlierCents: number;
  earnings: StatementEarning[];
  payouts: { id: string; amountCents: number; at: string }[];
}

/** The statement's figures from its entries' sums by kind (each as the ledger signs it). */
export function statementFigures(openingCents: number, sums: { earnings: number; recoup: number; reserve: number; release: number; payout: number }) {
  const figures = {
    openingCents,
    earningsCents: sums.earnings,
    recoupedCents: -sums.recoup,
    reserveHeldCents: -sums.reserve,
    reserveReleasedCents: sums.release,
    payoutsCents: -sums.payout,
  };
  const closingCents = figures.openingCents + figures.earningsCents - figures.recoupedCents - figures.reserveHeldCents + figures.reserveReleasedCents - figures.payoutsCents;
  return { ...figures, closingCents };
}

/** The statement as CSV (the packing list's cells: text through csvCell, so no cell runs as a formula). */
export function statementCsv(statement: RoyaltyStatement): string {
  const usd = centsToDecimal;
  let csv = csvRow(['statement', statement.party.name, statement.period, statement.from, statement.through, statement.timeZone, statement.issuedAt ? 'issued' : 'draft']);
  csv += csvRow(['issued_at', statement.issuedAt ?? '']);
  csv += '\r\n';
  csv += csvRow(['figure', 'usd']);
  const figures: [string, number][] = [
    ['opening_balance', statement.openingCents],
    ['earnings', statement.earningsCents],
    ['recouped', statement.recoupedCents],
    ['reserve_held', statement.reserveHeldCents],
    ['reserve_released', statement.reserveReleasedCents],
    ['payouts', statement.payoutsCents],
    ['closing_balance', statement.closingCents],
    ['of_which_dated_before_the_period', statement.earlierCents],
  ];
  for (const [name, cents] of figures) csv += `${name},${usd(cents)}\r\n`;
  csv += '\r\n';
  csv += csvRow(['release', 'format', 'sold_usd', 'returned_usd', 'net_usd']);
  for (const row of statement.earnings)
    csv += `${csvCell(row.release)},${row.format},${usd(row.soldCents)},${usd(row.returnedCents)},${usd(row.soldCents + row.returnedCents)}\r\n`;
  if (statement.payouts.length > 0) {
    csv += '\r\n';
    csv += csvRow(['payout', 'at', 'usd']);
    for (const payout of statement.payouts) csv += `${csvCell(payout.id)},${csvCell(payout.at)},${usd(payout.amountCents)}\r\n`;
  }
  return csv;
}
