import { z } from 'zod';
import type { salesOverviewOutput } from './contracts/console.ts';
import { csvCell } from './order-desk.ts';
import { centsToDecimal } from './money.ts';

/**
 * The console's sales overview as an accountant reads it (issue 29 item 1, decision 045):
 * a period of days in the label's time zone, the figures of the orders placed in it and of
 * the refunds given in it, by day, by product and by variant, and a CSV of the same.
 */
export const SALES_MESSAGES = {
  period: 'Choose a period of 1 to 366 days, the first day before the last.',
  date: 'Dates are written YYYY-MM-DD.',
} as const;

/** The longest period one overview covers. */
export const SALES_MAX_DAYS = 366;

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, SALES_MESSAGES.date);

/**
 * `from`/`to` (inclusive days in the label's time zone), or `days`: the last n days up to
 * today. Nothing: the last 30 days.
 */
export const salesOverviewInput = z
  .object({
    days: z.number().int().min(1, SALES_MESSAGES.period).max(SALES_MAX_DAYS, SALES_MESSAGES.period).nullish(),
    from: isoDate.nullish(),
    to: isoDate.nullish(),
  })
  .strict()
  .nullish()
  .transform((value) => ({ days: value?.days ?? undefined, from: value?.from ?? undefined, to: value?.to ?? undefined }))
  .refine((value) => (value.from === undefined) === (value.to === undefined), { message: SALES_MESSAGES.period })
  .refine((value) => value.from === undefined || periodDays(value.from, value.to!) !== null, { message: SALES_MESSAGES.period });

export type SalesOverviewInput = z.input<typeof salesOverviewInput>;

/** Days from `from` to `to` inclusive, or null when the dates are not real or the period is not 1 to 366 days. */
export function periodDays(from: string, to: string): number | null {
  const start = Date.parse(`${from}T00:00:00Z`);
  const end = Date.parse(`${to}T00:00:00Z`);
  if (Number.isNaN(start) || Number.isNaN(end)) return null;
  if (new Date(start).toISOString().slice(0, 10) !== from || new Date(end).toISOString().slice(0, 10) !== to) return null;
  const days = Math.round((end - start) / 86_400_000) + 1;
  return days >= 1 && days <= SALES_MAX_DAYS ? days : null;
}

/** Every day from `from` to `to` inclusive, as YYYY-MM-DD. */
export function daysOf(from: string, to: string): string[] {
  const days: string[] = [];
  for (let at = Date.parse(`${from}T00:00:00Z`); at <= Date.parse(`${to}T00:00:00Z`); at += 86_400_000) days.push(new Date(at).toISOString().slice(0, 10));
  return days;
}

/** A day `offset` days after `day` (YYYY-MM-DD). */
export function addDays(day: string, offset: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);
}

/** Today's date in a time zone, as YYYY-MM-DD. */
export function todayIn(timeZone: string, now = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}

export type SalesOverview = z.output<typeof salesOverviewOutput>;
export type SalesFigures = SalesOverview['totals'];

/**
 * The figures of a set of orders and refunds. `paid` is what the buyers paid (wallet + card) for
 * the orders placed: goods + shipping + tax + card fees. `refunds` is what was given back in the
 * period (wallet + card), whenever its order was placed. `net` = paid - refunds.
 */
export const SALES_FIGURES = [
  ['orders', 'Orders', false],
  ['grossSalesCents', 'Gross sales (goods)', true],
  ['discountsCents', 'Discounts (codes)', true],
  ['shippingCents', 'Shipping', true],
  ['taxCents', 'Tax', true],
  ['cardFeesCents', 'Card fees', true],
  ['paidCents', 'Paid', true],
  ['paidWalletCents', 'Paid by wallet', true],
  ['paidCardCents', 'Paid by card', true],
  ['refundsCents', 'Refunds', true],
  ['refundedWalletCents', 'Refunded to wallet', true],
  ['refundedCardCents', 'Refunded to card', true],
  ['netSalesCents', 'Net sales', true],
] as const satisfies readonly (readonly [keyof SalesFigures, string, boolean])[];

/** The sales overview as CSV: the totals, then one table by day, by product and by variant; text cells through the one escaper (csvCell). */
export function salesCsv(overview: SalesOverview): string {
  const cents = centsToDecimal;
  const quote = (text: string) => csvCell(text);
  const figureHeader = SALES_FIGURES.map(([key, , money]) => (money ? key.replace(/Cents$/, '').replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) + '_usd' : key)).join(',');
  const figureCells = (figures: SalesFigures) => SALES_FIGURES.map(([key, , money]) => (money ? cents(figures[key]) : String(figures[key]))).join(',');
  const lines = [`period,${overview.from},${overview.to},${quote(overview.timeZone)}`, '', `total,${figureHeader}`, `total,${figureCells(overview.totals)}`, ''];
  lines.push(`day,${figureHeader}`);
  for (const day of overview.byDay) lines.push(`${day.day},${figureCells(day)}`);
  const goodsHeader = 'units_sold,gross_sales_usd,units_refunded,refunded_goods_usd,net_units,net_goods_usd';
  const goodsCells = (row: Pick<SalesOverview['byProduct'][number], 'unitsSold' | 'grossSalesCents' | 'unitsRefunded' | 'refundedGoodsCents'>) =>
    [
      row.unitsSold,
      cents(row.grossSalesCents),
      row.unitsRefunded,
      cents(row.refundedGoodsCents),
      row.unitsSold - row.unitsRefunded,
      cents(row.grossSalesCents - row.refundedGoodsCents),
    ].join(',');
  lines.push('', `product_id,product,${goodsHeader}`);
  for (const row of overview.byProduct) lines.push(`${quote(row.productId)},${quote(row.name)},${goodsCells(row)}`);
  lines.push('', `product_id,variant_id,product,variant,${goodsHeader}`);
  for (const row of overview.byVariant) lines.push(`${quote(row.productId)},${quote(row.variantId ?? '')},${quote(row.name)},${quote(row.variant)},${goodsCells(row)}`);
  if (overview.byTaxJurisdiction) {
    lines.push('', 'tax_jurisdiction,orders,tax_usd,tax_included_usd');
    for (const row of overview.byTaxJurisdiction) lines.push(`${quote(row.jurisdiction || 'Tax')},${row.orders},${cents(row.taxCents)},${cents(row.taxIncludedCents)}`);
  }
  lines.push('', 'discount_code,orders,discounts_usd');
  for (const row of overview.byCode) lines.push(`${quote(row.code)},${row.orders},${cents(row.discountsCents)}`);
  if (overview.byKind) {
    lines.push('', `kind,${goodsHeader}`);
    for (const row of overview.byKind) lines.push(`${row.kind},${goodsCells(row)}`);
  }
  if (overview.giftCards) {
    const cards = overview.giftCards;
    lines.push('', 'gift_cards_sold,gift_cards_sold_usd,gift_cards_redeemed_usd,gift_cards_voided_usd,gift_card_liability_usd');
    lines.push(`${cards.soldCount},${cents(cards.soldCents)},${cents(cards.redeemedCents)},${cents(cards.voidedCents)},${cents(cards.outstandingCents)}`);
  }
  if (overview.byPreorder && overview.byPreorder.length > 0) {
    lines.push('', 'preorder_product_id,variant_id,product,ships_on,units_sold,gross_sales_usd,units_not_yet_out');
    for (const row of overview.byPreorder)
      lines.push(`${quote(row.productId)},${quote(row.variantId ?? '')},${quote(row.name)},${row.shipsOn},${row.unitsSold},${cents(row.grossSalesCents)},${row.unitsWaiting}`);
  }
  if (overview.byBundlePart && overview.byBundlePart.length > 0) {
    lines.push('', 'bundle_id,bundle,part_variant_id,part,units');
    for (const row of overview.byBundlePart) lines.push(`${quote(row.bundleId)},${quote(row.bundle)},${quote(row.variantId)},${quote(row.part)},${row.units}`);
  }
  lines.push('', `orders_to_ship,${overview.ordersToShip}`);
  return `${lines.join('\r\n')}\r\n`;
}
