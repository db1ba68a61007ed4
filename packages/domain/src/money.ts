/**
 * How the shop prints money (issue 34: one formatter, where there were six). Amounts are
 * integer cents; the texts are the ones the shop has always shown, so no page, mail or message
 * changed when the copies were replaced by these.
 *
 * - formatUsd: "$1,234.50", for reading (pages, mails, messages, the payment page).
 * - centsToDecimal: "1234.50", for typing and files (an input's value, a CSV cell, a meta price).
 */

/** "1234.50": whole cents as a plain decimal (no currency sign, no grouping); a negative amount keeps its "-". */
export function centsToDecimal(cents: number): string {
  const whole = Math.abs(cents);
  const text = `${Math.floor(whole / 100)}.${String(whole % 100).padStart(2, '0')}`;
  return cents < 0 ? `-${text}` : text;
}

/**
 * "$1,234.50"; a dash when the value is not a number (spec section 5). The same text as
 * Intl.NumberFormat('en-US', USD) (the tests compare them), written out because a phone's
 * first currency formatter takes tens of milliseconds to build, in the shop's first render.
 * `grouping: false` ("$1234.50") is how a few messages have always read.
 */
export function formatUsd(cents: unknown, options: { grouping?: boolean } = {}): string {
  const value = typeof cents === 'string' && cents.trim() !== '' ? Number(cents) : cents;
  if (typeof value !== 'number' || !Number.isFinite(value)) return '—';
  // Half a cent rounds away from zero, as Intl's default (halfExpand) does.
  const [dollars, fraction] = centsToDecimal(Math.round(Math.abs(value))).split('.') as [string, string];
  const text = `$${options.grouping === false ? dollars : dollars.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${fraction}`;
  return value < 0 || Object.is(value, -0) ? `-${text}` : text;
}

/**
 * A dollar amount that may have fractions of a cent (a token's value) as formatUsd writes it:
 * rounded to the cent as Intl.NumberFormat rounds, half away from zero on the number's
 * shortest decimal text (1.005 is "$1.01"); not a number counts as $0.00.
 */
export function formatDollars(value: number): string {
  if (!Number.isFinite(value)) return formatUsd(0);
  const cents = centsOfDollars(Math.abs(value));
  // Intl writes minus zero (and what rounds to it) with its sign: so does formatUsd.
  return formatUsd(value < 0 || Object.is(value, -0) ? -cents || -0 : cents);
}

/** Whole cents of a non-negative dollar amount, rounded half up on its shortest decimal text ("1.005" -> 101). */
function centsOfDollars(dollars: number): number {
  const [mantissa = '0', exponent = '0'] = String(dollars).split('e');
  const [whole = '0', fraction = ''] = mantissa.split('.');
  const digits = whole + fraction;
  // Where the cents' decimal point falls in `digits`.
  const point = whole.length + Number(exponent) + 2;
  if (point >= digits.length) return Number(digits.padEnd(point, '0'));
  const kept = point > 0 ? Number(digits.slice(0, point)) : 0;
  const next = point >= 0 ? Number(digits[point]) : 0;
  return next >= 5 ? kept + 1 : kept;
}
