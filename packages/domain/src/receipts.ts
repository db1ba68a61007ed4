import { taxLineLabel } from './shipping-tax.ts';

/** An order's or a checkout's money, as it was priced (integer cents). */
export interface ReceiptTotals {
  subtotalCents: number;
  discountCents?: number | undefined;
  shippingCents: number;
  /** Tax added on top of the prices (0 where prices include VAT). */
  taxCents: number;
  walletAppliedCents: number;
  /** What the card was charged, its fee included; 0 for a wallet-only order. */
  chargedCents: number;
}

export interface ReceiptTax {
  jurisdiction: string;
  /** VAT already inside the prices: shown, not added. */
  includedCents: number;
  shippingMethod: string | null;
}

export interface ReceiptLine {
  label: string;
  /** Negative for what is taken off (a discount, the wallet's part). */
  cents: number;
  /** The two figures a reader adds up to: the order's total and what the card paid. */
  total?: boolean;
}

/**
 * The money lines of a receipt, a payment page or an order view, in the order they add up
 * (issue 39): subtotal, discount, shipping and tax make the total; the total less the wallet's
 * part plus the card fee is what the card is charged. VAT inside the prices is a line that is
 * not added. One list, so the receipt mail and the test payment page cannot disagree.
 */
export function receiptLines(totals: ReceiptTotals, tax?: ReceiptTax | null, discountCode?: string | null): ReceiptLine[] {
  const discount = totals.discountCents ?? 0;
  const total = totals.subtotalCents - discount + totals.shippingCents + totals.taxCents;
  const cardFee = totals.chargedCents > 0 ? totals.chargedCents - (total - totals.walletAppliedCents) : 0;
  const included = tax && tax.includedCents > 0;
  return [
    { label: 'Subtotal', cents: totals.subtotalCents },
    ...(discount > 0 ? [{ label: discountCode ? `Discount (${discountCode})` : 'Discount', cents: -discount }] : []),
    { label: tax?.shippingMethod ? `Shipping (${tax.shippingMethod})` : 'Shipping', cents: totals.shippingCents },
    included ? { label: taxLineLabel(tax.jurisdiction, true), cents: tax.includedCents } : { label: taxLineLabel(tax?.jurisdiction), cents: totals.taxCents },
    { label: 'Total', cents: total, total: true },
    ...(totals.walletAppliedCents > 0 ? [{ label: 'Wallet credit applied', cents: -totals.walletAppliedCents }] : []),
    ...(cardFee > 0 ? [{ label: 'Card processing fee', cents: cardFee }] : []),
    ...(totals.chargedCents > 0 ? [{ label: 'Charged to card', cents: totals.chargedCents, total: true }] : []),
  ];
}
