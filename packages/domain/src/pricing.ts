/**
 * Checkout pricing (spec section 9), in integer cents only. The server re-prices every
 * checkout from database prices with these functions; a client quote is only compared.
 * The request schemas (zod) live in pricing-schemas.ts, so the cart and the shop need not load zod.
 */
export const SHIPPING_CENTS = 999;
/** 9.25% as a fraction of 10,000. */
export const TAX_BASIS_POINTS = 925;
/** The card provider's fee: 2.9% + 30 cents, passed on by grossing the charge up. */
export const CARD_FIXED_FEE_CENTS = 30;
export const CARD_KEEP_PER_MILLE = 971;

import {
  DEFAULT_SHIPPING_TAX_CONFIG,
  roundHalfUp,
  sharedTaxParts,
  shippingFor,
  tableTax,
  tableTaxParts,
  taxRuleFor,
  type Destination,
  type ShippingTaxConfig,
  type TaxParts,
  type TaxResult,
} from './shipping-tax.ts';
import { formatUsd } from './money.ts';

export const MAX_LINE_QTY = 99;
/** The most a fan may name for one item ("name your price", issue 28): $10,000.00. */
export const MAX_NAMED_PRICE_CENTS = 1_000_000;

/** "$8.00": cents as these messages have always shown them (no grouping: "$10000.00"). */
const dollars = (cents: number) => formatUsd(cents, { grouping: false });

/**
 * The unit price of a cart line (issue 28, decision 061): the catalogue's price, or, for a
 * "name your price" item, the buyer's amount when it is at least that price (the minimum). A
 * message when the amount cannot be taken; the server re-prices every cart through this.
 */
export function namedUnitCents(
  item: { amountCents?: number | undefined },
  product: { name: string; priceCents: number; nameYourPrice?: boolean | undefined },
): { unitCents: number } | { refused: string } {
  if (item.amountCents === undefined) return { unitCents: product.priceCents };
  if (!product.nameYourPrice) return { refused: CHECKOUT_MESSAGES.fixedPrice(product.name) };
  if (!Number.isSafeInteger(item.amountCents) || item.amountCents < 0) return { refused: CHECKOUT_MESSAGES.namedPriceCents };
  if (item.amountCents > MAX_NAMED_PRICE_CENTS) return { refused: CHECKOUT_MESSAGES.namedPriceTooHigh };
  if (item.amountCents < product.priceCents) return { refused: CHECKOUT_MESSAGES.belowMinimum(product.name, product.priceCents) };
  return { unitCents: item.amountCents };
}
export const MAX_CART_LINES = 50;
/**
 * The largest order total: $100,000,000.00 (decision 019). Money columns are bigint, and with
 * this cap no total, charge or sum of a few orders comes near Number.MAX_SAFE_INTEGER.
 */
export const MAX_ORDER_TOTAL_CENTS = 10_000_000_000;

export interface PricedLine {
  unitCents: number;
  qty: number;
  /** Digital lines never add shipping and may be taxed at the digital rate (issue 26). */
  digital?: boolean;
  /** Weight of one unit, for weight-based rates; 0 or absent when unknown. */
  weightGrams?: number;
  /**
   * A gift card (issue 27, decision 053): stored value, not a sale of goods, so never taxed; it
   * is also `digital` (ships nothing). The server refuses wallet credit and codes for it.
   */
  giftCard?: boolean;
}

/**
 * What a quote needs besides the lines and the wallet (issue 26, decision 051); every part is
 * optional and the defaults are the spec's (flat 999 cents, 9.25% on subtotal + shipping). Other
 * adjustments (a discount, ...) belong here as further sub-objects, so `quote` stays the one place
 * a total is computed.
 */
export interface PricingInput {
  /** Where the order ships (and is taxed); absent: only a "*" zone and rule match. */
  destination?: Destination;
  /** The shipping method the buyer chose; absent: the zone's first. */
  shippingMethodId?: string;
  /** Zones, rates and the tax table; DEFAULT_SHIPPING_TAX_CONFIG when absent. */
  shippingTax?: ShippingTaxConfig;
  /**
   * Tax calculated by an outside provider (Stripe Tax) for exactly these lines and shipping:
   * used instead of the table when given.
   */
  externalTax?: TaxResult;
  /** A discount code's effect (issue 27); absent: none. */
  discount?: QuoteDiscount;
}

/**
 * A discount code's effect as the pricing function takes it (issue 27, decision 052): a
 * percentage (1-100) or a fixed amount in cents, of the lines it applies to (`appliesTo`, in
 * the order of the lines; absent: every line). The server has already judged whether the code
 * applies at all (dates, uses, minimum subtotal).
 */
export interface QuoteDiscount {
  kind: 'percent' | 'fixed';
  value: number;
  appliesTo?: readonly boolean[];
}

/** What a discount takes off the goods: never more than the lines it applies to. */
export function discountCents(lines: readonly PricedLine[], discount: QuoteDiscount | undefined): number {
  if (!discount) return 0;
  if (!Number.isSafeInteger(discount.value) || discount.value < 0) throw new RangeError('A discount must be a non-negative whole number.');
  const eligible = lines.reduce((sum, line, index) => (discount.appliesTo && !discount.appliesTo[index] ? sum : sum + line.unitCents * line.qty), 0);
  if (discount.kind === 'percent') return Math.min(eligible, roundHalfUp(eligible * Math.min(discount.value, 100), 100));
  return Math.min(eligible, discount.value);
}

/**
 * The lines as tax sees them once a discount is taken off: each eligible line's share of the
 * discount in proportion to its amount (largest remainder, so the shares sum to the discount
 * exactly), one line per cart line with its amount as a single unit.
 */
export function discountedLines(lines: readonly PricedLine[], discount: QuoteDiscount | undefined, totalDiscountCents: number): PricedLine[] {
  if (!discount || totalDiscountCents === 0) return [...lines];
  const amounts = lines.map((line) => line.unitCents * line.qty);
  const eligible = amounts.map((amount, index) => (discount.appliesTo && !discount.appliesTo[index] ? 0 : amount));
  const base = eligible.reduce((sum, amount) => sum + amount, 0);
  const shares = eligible.map((amount) => Math.floor((amount * totalDiscountCents) / base));
  let left = totalDiscountCents - shares.reduce((sum, share) => sum + share, 0);
  const byRemainder = eligible.map((amount, index) => ({ index, remainder: (amount * totalDiscountCents) % base })).sort((a, b) => b.remainder - a.remainder || a.index - b.index);
  for (const { index } of byRemainder) {
    if (left === 0) break;
    if (eligible[index]! > shares[index]!) {
      shares[index] = shares[index]! + 1;
      left -= 1;
    }
  }
  return lines.map((line, index) => ({ ...line, unitCents: amounts[index]! - shares[index]!, qty: 1 }));
}

/**
 * The totals a wallet-only order sends back (walletOrderInputSchema's `quote`): the server prices
 * the order again and refuses it if these differ from what the buyer was shown.
 */
export function quotedTotals(quote: Pick<Quote, 'subtotalCents' | 'shippingCents' | 'taxCents' | 'walletAppliedCents' | 'totalCents'> & { discountCents?: number }) {
  const { subtotalCents, shippingCents, taxCents, walletAppliedCents, totalCents } = quote;
  // Sent only with a discount: a quote without one reads as it always did.
  return { subtotalCents, shippingCents, taxCents, walletAppliedCents, totalCents, ...(quote.discountCents ? { discountCents: quote.discountCents } : {}) };
}

export interface Quote {
  /** The goods at their prices, before any discount. */
  subtotalCents: number;
  /** Taken off the subtotal by a discount code (issue 27): 0 without one. Shipping and tax follow it. */
  discountCents: number;
  shippingCents: number;
  taxCents: number;
  totalCents: number;
  walletAppliedCents: number;
  /** What is left after the wallet: 0 means a wallet-only order. */
  amountDueCents: number;
  cardFeeCents: number;
  /** What the card is charged: amount due plus the fee, or 0. */
  chargeCents: number;
  /** Tax already inside prices (VAT-inclusive regions): shown, never added (issue 26). */
  taxIncludedCents: number;
  /** The tax line's jurisdiction ("California"); empty for the spec's default. */
  taxJurisdiction: string;
  /** The chosen shipping method and its zone; null when nothing ships (an empty or digital cart). */
  shippingMethodId: string | null;
  shippingMethodName: string | null;
  shippingZoneId: string | null;
  /** The tax basis per line and of the shipping (decision 060), kept with the order for refunds. */
  taxParts: TaxParts;
}

export function taxCents(taxableCents: number): number {
  return roundHalfUp(taxableCents * TAX_BASIS_POINTS, 10_000);
}

/** The smallest whole-cent charge that leaves `amount` after the fee: >= (amount + 30) / 0.971. */
export function grossUpCents(amountCents: number): number {
  if (amountCents <= 0) return 0;
  const numerator = (amountCents + CARD_FIXED_FEE_CENTS) * 1000;
  return Math.floor((numerator + CARD_KEEP_PER_MILLE - 1) / CARD_KEEP_PER_MILLE);
}

/**
 * The quote: subtotal - discount + shipping + tax = total; the wallet is applied first, the rest
 * is grossed up for the card. A discount lowers the goods before shipping's free threshold, tax
 * and the card's gross-up (decisions 051, 052). Throws RangeError for a malformed line and
 * PricingRefusal (shipping-tax.ts) when the destination cannot be shipped to.
 */
export function quote(lines: PricedLine[], walletBalanceCents: number, useWallet: boolean, input: PricingInput = {}): Quote {
  for (const line of lines) {
    if (!Number.isSafeInteger(line.unitCents) || line.unitCents < 0 || !Number.isSafeInteger(line.qty) || line.qty < 1) {
      throw new RangeError('Prices and quantities must be non-negative whole numbers.');
    }
  }
  const config = input.shippingTax ?? DEFAULT_SHIPPING_TAX_CONFIG;
  const subtotalCents = lines.reduce((sum, line) => sum + line.unitCents * line.qty, 0);
  const discount = discountCents(lines, input.discount);
  const goods = discountedLines(lines, input.discount, discount);
  const shipping = shippingFor(config, lines, input.destination, input.shippingMethodId, subtotalCents - discount);
  const shippingCents = shipping.shippingCents;
  const rule = taxRuleFor(config, input.destination);
  // Gift cards are taxed when they are spent, not when they are sold (decision 053): their lines carry no tax.
  const taxed = goods.map((line) => (line.giftCard ? { ...line, unitCents: 0 } : line));
  const tax = input.externalTax ?? tableTax(rule, taxed, shippingCents);
  const parts = input.externalTax ? (input.externalTax.parts ?? sharedTaxParts(input.externalTax.taxCents, taxed, shippingCents)) : tableTaxParts(rule, taxed, shippingCents);
  const taxParts = { ...parts, lines: parts.lines.map((part, index) => (goods[index]!.giftCard ? { paidCents: goods[index]!.unitCents * goods[index]!.qty, taxCents: 0 } : part)) };
  const totalCents = subtotalCents - discount + shippingCents + tax.taxCents;
  const balance = Math.max(0, Math.floor(walletBalanceCents));
  const walletAppliedCents = useWallet ? Math.min(balance, totalCents) : 0;
  const amountDueCents = totalCents - walletAppliedCents;
  const chargeCents = grossUpCents(amountDueCents);
  return {
    subtotalCents,
    discountCents: discount,
    shippingCents,
    taxCents: tax.taxCents,
    totalCents,
    walletAppliedCents,
    amountDueCents,
    cardFeeCents: chargeCents - amountDueCents,
    chargeCents,
    taxIncludedCents: tax.taxIncludedCents,
    taxJurisdiction: tax.jurisdiction,
    shippingMethodId: shipping.method?.id ?? null,
    shippingMethodName: shipping.method?.name ?? null,
    shippingZoneId: shipping.zone?.id ?? null,
    taxParts,
  };
}

/** Whether a cart's lines need a shipping address: any line that is not digital (issue 28). */
export function needsShipping(lines: readonly { digital?: boolean }[]): boolean {
  return lines.some((line) => !line.digital);
}

export function sameQuote(a: Quote, b: Partial<Quote>): boolean {
  return (
    a.subtotalCents === b.subtotalCents &&
    a.discountCents === (b.discountCents ?? 0) &&
    a.shippingCents === b.shippingCents &&
    a.taxCents === b.taxCents &&
    a.walletAppliedCents === b.walletAppliedCents &&
    a.totalCents === b.totalCents
  );
}

export const CHECKOUT_MESSAGES = {
  emptyCart: 'Your cart is empty.',
  fullName: 'Please enter your full name.',
  email: 'Please enter a valid email address.',
  placeFailed: 'Could not place order.',
  startFailed: 'Could not start checkout.',
  startFailedToast: 'Checkout failed to start.',
  placedWithWallet: 'Order placed with wallet!',
  quoteChanged: 'Prices or your wallet balance changed since you reviewed this order. Please review the new total and try again.',
  insufficientWallet: 'Your wallet balance is not enough for this order any more. Please review the order and try again.',
  cardDeclined: 'Your card was declined.',
  walletPrompt: 'Checkout with my wallet?',
  orderNotFound: 'Order not found in document.',
  fulfilFailed: 'Could not mark as fulfilled.',
  noOrders: 'No orders yet.',
  checkoutClosed: 'This checkout is already closed. Please start again from your cart.',
  openPayment: 'You have a payment in progress.',
  openPaymentCancelled: 'Your payment was cancelled and your wallet credit is available again.',
  /** "Name your price" (issue 28). */
  belowMinimum: (name: string, minimumCents: number) => `Please pay at least ${dollars(minimumCents)} for ${name}.`,
  fixedPrice: (name: string) => `${name} has a fixed price: remove it and add it to your cart again.`,
  namedPriceCents: 'Prices are whole cents.',
  namedPriceTooHigh: `You can name a price of at most ${dollars(MAX_NAMED_PRICE_CENTS)}.`,
  /** A cart with something that ships, sent without an address (issue 28: only an all-digital cart needs none). */
  shippingAddressNeeded: 'Please enter the shipping address: some items in your cart ship.',
  orderTooLarge: 'This order is too large: an order may total at most $100,000,000.00. Please split it into smaller orders.',
} as const;
