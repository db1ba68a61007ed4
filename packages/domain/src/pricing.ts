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

export const MAX_LINE_QTY = 99;
export const MAX_CART_LINES = 50;
/**
 * The largest order total: $100,000,000.00 (decision 019). Money columns are bigint, and with
 * this cap no total, charge or sum of a few orders comes near Number.MAX_SAFE_INTEGER.
 */
export const MAX_ORDER_TOTAL_CENTS = 10_000_000_000;

export interface PricedLine {
  unitCents: number;
  qty: number;
  /** A digital item (issue 28): nothing to ship, so an all-digital order pays no shipping. */
  digital?: boolean;
}

/**
 * The totals a wallet-only order sends back (walletOrderInputSchema's `quote`): the server prices
 * the order again and refuses it if these differ from what the buyer was shown.
 */
export function quotedTotals(quote: Pick<Quote, 'subtotalCents' | 'shippingCents' | 'taxCents' | 'walletAppliedCents' | 'totalCents'>) {
  const { subtotalCents, shippingCents, taxCents, walletAppliedCents, totalCents } = quote;
  return { subtotalCents, shippingCents, taxCents, walletAppliedCents, totalCents };
}

export interface Quote {
  subtotalCents: number;
  shippingCents: number;
  taxCents: number;
  totalCents: number;
  walletAppliedCents: number;
  /** What is left after the wallet: 0 means a wallet-only order. */
  amountDueCents: number;
  cardFeeCents: number;
  /** What the card is charged: amount due plus the fee, or 0. */
  chargeCents: number;
}

/** Rounds a non-negative ratio n/d to the nearest whole number, halves up. */
function roundHalfUp(numerator: number, denominator: number): number {
  return Math.floor((2 * numerator + denominator) / (2 * denominator));
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

export function quote(lines: PricedLine[], walletBalanceCents: number, useWallet: boolean): Quote {
  for (const line of lines) {
    if (!Number.isSafeInteger(line.unitCents) || line.unitCents < 0 || !Number.isSafeInteger(line.qty) || line.qty < 1) {
      throw new RangeError('Prices and quantities must be non-negative whole numbers.');
    }
  }
  const subtotalCents = lines.reduce((sum, line) => sum + line.unitCents * line.qty, 0);
  const shippingCents = lines.some((line) => !line.digital) ? SHIPPING_CENTS : 0;
  const tax = taxCents(subtotalCents + shippingCents);
  const totalCents = subtotalCents + shippingCents + tax;
  const balance = Math.max(0, Math.floor(walletBalanceCents));
  const walletAppliedCents = useWallet ? Math.min(balance, totalCents) : 0;
  const amountDueCents = totalCents - walletAppliedCents;
  const chargeCents = grossUpCents(amountDueCents);
  return {
    subtotalCents,
    shippingCents,
    taxCents: tax,
    totalCents,
    walletAppliedCents,
    amountDueCents,
    cardFeeCents: chargeCents - amountDueCents,
    chargeCents,
  };
}

export function sameQuote(a: Quote, b: Partial<Quote>): boolean {
  return (
    a.subtotalCents === b.subtotalCents &&
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
  orderTooLarge: 'This order is too large: an order may total at most $100,000,000.00. Please split it into smaller orders.',
} as const;
