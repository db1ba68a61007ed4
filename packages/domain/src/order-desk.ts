/**
 * The label's order desk (issue 16): status filters, carriers and their tracking links, and
 * the packing list's CSV cells. Pure; shared by the server, the web and tests.
 */
export const ORDER_FILTERS = ['unfulfilled', 'ready', 'shipped', 'refunded', 'all'] as const;
export type OrderFilter = (typeof ORDER_FILTERS)[number];
// 'ready' (decision 054): unfulfilled, not refunded, and no line left waiting for its street date.
export const ORDER_FILTER_LABELS: Record<OrderFilter, string> = { unfulfilled: 'Unfulfilled', ready: 'Ready to ship', shipped: 'Shipped', refunded: 'Refunded', all: 'All' };

export const CARRIERS = ['USPS', 'UPS', 'FedEx', 'DHL', 'Other'] as const;
export type Carrier = (typeof CARRIERS)[number];

/** Letters, digits, spaces and dashes: every carrier's numbers, and nothing that could break a link. */
export const TRACKING_NUMBER_PATTERN = /^[A-Za-z0-9][A-Za-z0-9 -]{2,38}[A-Za-z0-9]$/;

export const DESK_MESSAGES = {
  trackingNumber: 'Please enter a tracking number of 4 to 40 letters, digits, spaces or dashes.',
  trackingNeedsCarrier: 'Please choose the carrier of this tracking number.',
  noOrdersMatch: 'No orders match.',
  bulkFulfilled: (count: number) => `${count} ${count === 1 ? 'order' : 'orders'} marked fulfilled.`,
} as const;

/** The carrier's public tracking page for a number, or null for a carrier we do not know. */
export function trackingUrl(carrier: string, number: string): string | null {
  const id = encodeURIComponent(number.replace(/\s+/g, ''));
  switch (carrier) {
    case 'USPS':
      return `https://tools.usps.com/go/TrackConfirmAction?tLabels=${id}`;
    case 'UPS':
      return `https://www.ups.com/track?tracknum=${id}`;
    case 'FedEx':
      return `https://www.fedex.com/fedextrack/?trknbr=${id}`;
    case 'DHL':
      return `https://www.dhl.com/global-en/home/tracking/tracking-express.html?submit=1&tracking-id=${id}`;
    default:
      return null;
  }
}

/**
 * One CSV cell (RFC 4180): quoted when it holds a comma, semicolon (the separator of
 * spreadsheets set to European conventions), quote, CR or LF, quotes doubled. A
 * cell a spreadsheet would run as a formula (starting with = + - @, or a tab or CR) gets a
 * leading single quote first (OWASP's CSV injection advice).
 */
export function csvCell(value: string | number | null | undefined): string {
  let text = value === null || value === undefined ? '' : String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",;\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvRow(values: (string | number | null | undefined)[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}

export const PACKING_LIST_COLUMNS = [
  'order_id',
  'created_at',
  'status',
  'buyer_name',
  'buyer_email',
  'buyer_phone',
  'ship_to_name',
  'address_line1',
  'address_line2',
  'city',
  'state',
  'postal_code',
  'country',
  'product_id',
  'product',
  'quantity',
  'unit_price_usd',
  /** The order's discount code (issue 27); empty without one. */
  'discount_code',
  /** A bundle line's parts, per bundle (issue 27, decision 055); empty for other lines. */
  'includes',
] as const;
