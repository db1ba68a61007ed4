import type { z } from 'zod';
import type { salesOverviewOutput } from './contracts/console.ts';
import { csvCell } from './order-desk.ts';
import { centsToDecimal } from './money.ts';
import { jurisdictionLabel } from './sales-figures.ts';

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

// The input's schema (salesOverviewInput) is in contracts/console.ts: without zod here, the
// console's Sales tab loads 24 KB less (gzipped) of code (issue 39 item 18).

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
 * The figures of a period, each defined once (issue 39, decision 045 amended in session 12):
 * [key, label, money, what it means]. Orders count on the day they were placed, refunds on the
 * day they were given. The console shows each label with its meaning; the CSV has a
 * definitions section with the same text.
 */
export const SALES_FIGURES = [
  ['orders', 'Orders', false, 'Orders placed in the period.'],
  ['grossSalesCents', 'Gross sales', true, 'Goods sold at their list price, without gift cards and without the VAT included in prices.'],
  ['discountsCents', 'Discounts', true, 'Taken off the goods by discount codes.'],
  ['returnsCents', 'Returns', true, "Goods given back by refunds in the period, without their tax (a refund by amount is shared over its order's goods, tax and card fee)."],
  ['netSalesCents', 'Net sales', true, "Gross sales - discounts - returns: the goods' revenue, the figure the artists' splits are shares of."],
  ['shippingCents', 'Shipping', true, 'Shipping charged, without the VAT included in it.'],
  ['taxCollectedCents', 'Tax collected', true, 'Tax added at checkout plus VAT included in prices, on goods and shipping.'],
  ['taxIncludedCents', 'of which VAT included', true, 'The part of tax collected that was inside prices (VAT-inclusive zones).'],
  ['cardFeesCents', 'Card fees', true, 'What buyers paying by card paid to cover the card fee.'],
  ['giftCardsSoldCents', 'Gift cards sold', true, 'Gift cards paid for: credit owed to their holders (a liability), not revenue.'],
  [
    'totalCollectedCents',
    'Total collected',
    true,
    "What buyers paid for the period's orders, by wallet and card: gross sales - discounts + shipping + tax collected + card fees + gift cards sold.",
  ],
  ['paidWalletCents', 'Paid by wallet', true, 'Of total collected, paid with wallet credit (gift-card credit, refunds, grants).'],
  ['paidCardCents', 'Paid by card', true, 'Of total collected, charged to cards.'],
  ['refundsCents', 'Refunds', true, 'Given back in the period, whatever day the order was placed: returns + shipping, tax, card fees and gift cards refunded.'],
  ['refundedWalletCents', 'Refunded to wallet', true, 'Of refunds, given back as wallet credit.'],
  ['refundedCardCents', 'Refunded to card', true, 'Of refunds, given back to cards.'],
  ['refundedShippingCents', 'Shipping refunded', true, 'Of refunds, shipping given back, without its tax.'],
  ['refundedTaxCents', 'Tax refunded', true, 'Of refunds, tax and VAT given back.'],
  ['refundedCardFeesCents', 'Card fees refunded', true, 'Of refunds, card fees given back.'],
  ['refundedGiftCardsCents', 'Gift cards refunded', true, 'Of refunds, gift cards given back (their cards voided).'],
  ['netReceiptsCents', 'Net receipts', true, 'Total collected - refunds: what the shop kept of what buyers paid.'],
] as const satisfies readonly (readonly [keyof SalesFigures, string, boolean, string])[];

/** The gift-card figures, each defined once: [key, label, money, what it means]. */
export const GIFT_CARD_FIGURES = [
  ['soldCount', 'Gift cards sold (count)', false, 'Gift cards paid for in the period.'],
  ['soldCents', 'Gift cards sold', true, 'Their amounts.'],
  ['redeemedCents', 'Redeemed', true, 'Cards redeemed into wallets in the period (credit moved to a wallet, not yet spent).'],
  ['voidedCents', 'Voided', true, 'Cards refunded in the period.'],
  [
    'spentCents',
    'Gift-card credit spent',
    true,
    'Gift-card credit that paid for orders in the period, less what refunds gave back to it; a wallet payment spends gift-card credit first.',
  ],
  ['outstandingCents', 'Cards not redeemed', true, "At the period's end: cards sold, neither redeemed nor voided."],
  ['walletCreditCents', 'Gift-card credit in wallets', true, "At the period's end: redeemed gift-card credit not yet spent."],
  ['liabilityCents', 'Gift-card liability', true, "At the period's end: cards not redeemed + gift-card credit in wallets, owed to their holders."],
] as const satisfies readonly (readonly [keyof NonNullable<SalesOverview['giftCards']>, string, boolean, string])[];

/** A figure's CSV column: grossSalesCents -> gross_sales_usd. */
export function figureColumn(key: string, money: boolean): string {
  return money ? key.replace(/Cents$/, '').replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) + '_usd' : key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** The sales overview as CSV: the totals, then one table by day, by product and by variant; text cells through the one escaper (csvCell). */
export function salesCsv(overview: SalesOverview): string {
  const cents = centsToDecimal;
  const quote = (text: string) => csvCell(text);
  const figureHeader = SALES_FIGURES.map(([key, , money]) => figureColumn(key, money)).join(',');
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
    for (const row of overview.byTaxJurisdiction) lines.push(`${quote(jurisdictionLabel(row.jurisdiction))},${row.orders},${cents(row.taxCents)},${cents(row.taxIncludedCents)}`);
  }
  lines.push('', 'discount_code,orders,discounts_usd');
  for (const row of overview.byCode) lines.push(`${quote(row.code)},${row.orders},${cents(row.discountsCents)}`);
  if (overview.byKind) {
    lines.push('', `kind,${goodsHeader}`);
    for (const row of overview.byKind) lines.push(`${row.kind},${goodsCells(row)}`);
  }
  if (overview.giftCards) {
    const cards = overview.giftCards;
    lines.push('', GIFT_CARD_FIGURES.map(([key, , money]) => `gift_cards_${figureColumn(key, money)}`).join(','));
    lines.push(GIFT_CARD_FIGURES.map(([key, , money]) => (money ? cents(cards[key]) : String(cards[key]))).join(','));
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
  // What each column means (issue 39): the same sentences as the console's.
  lines.push('', 'column,figure,definition');
  for (const [key, label, money, meaning] of SALES_FIGURES) lines.push(`${figureColumn(key, money)},${quote(label)},${quote(meaning)}`);
  for (const [key, label, money, meaning] of GIFT_CARD_FIGURES) lines.push(`gift_cards_${figureColumn(key, money)},${quote(label)},${quote(meaning)}`);
  return `${lines.join('\r\n')}\r\n`;
}
