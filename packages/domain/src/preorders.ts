/**
 * Preorders (issue 27, decision 054): a product or a variant with a street date in the future
 * is sold now and ships on that date. Pure rules and the exact sentences both sides show.
 */

/** A street date as the shop keeps it: YYYY-MM-DD (the label's calendar day). */
export const RELEASE_DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

export const PREORDER_MESSAGES = {
  releaseDate: 'Enter the release date as YYYY-MM-DD, or leave it empty.',
  releaseDateFuture: 'The release date must be after today. Leave it empty for an item that is out.',
  notYetOut: (dates: string) => `This order has preorder items that are not out yet (ships ${dates}). Confirm to ship them before their release date.`,
  noLinesToShip: 'Choose at least one line of this order that has not shipped yet.',
  lineNotInOrder: 'One of the chosen lines is not in this order or has shipped already.',
} as const;

/** Whether a YYYY-MM-DD text is a real calendar day (not 2027-02-30). */
export function isCalendarDate(value: string): boolean {
  if (!RELEASE_DATE_PATTERN.test(value)) return false;
  const parsed = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value;
}

/** "Mar 5, 2027": a street date as people read it (a calendar day, so never shifted by a time zone). */
export function formatShipDate(date: string): string {
  if (!isCalendarDate(date)) return date;
  return new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${date}T00:00:00Z`));
}

/** The badge on the shop card, the product page, the cart, the quote, the receipt and My Orders. */
export function preorderLabel(date: string): string {
  return `Preorder - ships ${formatShipDate(date)}`;
}

/** The date a variant ships on: its own street date, else its product's; null when it is out. */
export function effectiveReleaseDate(product: { releaseDate?: string | null }, variant?: { releaseDate?: string | null }): string | null {
  return variant?.releaseDate ?? product.releaseDate ?? null;
}

/**
 * What checkout says about when the order ships: one order, one package unless the label ships
 * it in parts. Undefined for an order with no preorder line (today's checkout, unchanged).
 */
export function shipsWhen(lines: readonly { shipsOn?: string | null | undefined }[]): string | undefined {
  const dates = [...new Set(lines.map((line) => line.shipsOn).filter((date): date is string => Boolean(date)))].sort();
  if (dates.length === 0) return undefined;
  const last = formatShipDate(dates.at(-1)!);
  const inStock = lines.some((line) => !line.shipsOn);
  if (inStock)
    return `This order mixes items in stock and preorders. It is one order, paid now; it ships on ${last}, when its last preorder is out, unless we send the items in stock ahead of it.`;
  return dates.length === 1
    ? `This is a preorder, paid now. It ships on ${last}, the release date.`
    : `This order holds preorders, paid now. It ships on ${last}, when its last preorder is out.`;
}

/** The street dates of a desk's lines not yet out on `today`, as "Mar 5, 2027" joined, or undefined when none. */
export function notYetOut(lines: readonly { shipsOn?: string | null | undefined }[], today: string): string | undefined {
  const dates = [...new Set(lines.map((line) => line.shipsOn).filter((date): date is string => Boolean(date) && date! > today))].sort();
  return dates.length === 0 ? undefined : dates.map(formatShipDate).join(', ');
}
