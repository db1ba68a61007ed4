import { addressProblem } from '@storefront/domain/address-rules.ts';
import { CHECKOUT_MESSAGES, discountCents, discountedLines, quote, sameQuote, type PricedLine, type Quote, type QuoteDiscount } from '@storefront/domain/pricing.ts';
import { PricingRefusal, SHIPPING_TAX_MESSAGES, shippingFor, taxRuleFor, type Destination, type ShippingTaxConfig, type TaxResult } from '@storefront/domain/shipping-tax.ts';
import type { Db } from '../db/client.ts';
import type { Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';
import { shippingTaxConfig } from '../shipping/shipping.service.ts';
import type { TaxCalculator } from '../shipping/stripe-tax.ts';

/**
 * Step "price" (issue 26, decision 051): the cart at database prices, shipped to the buyer's
 * address with their method, taxed where it goes, by domain/pricing.ts's `quote`, the one place
 * a total is computed. A destination the shop cannot ship to is refused here, before any payment.
 */

export interface Where {
  /** The shipping address (or, for a quote, what is typed of it so far). */
  destination?: Destination & { postal_code?: string; line1?: string; city?: string };
  shippingMethodId?: string;
}

export type ShippingPricing = ShippingTaxConfig;

/** The stored zones, rates and tax table (the spec's default when none are saved). */
export async function loadPricing(db: Db | Tx): Promise<ShippingPricing> {
  return (await shippingTaxConfig(db)).config;
}

/** Tax an outside provider calculated, with the calculation to record once the order exists. */
export type ExternalTax = TaxResult & { calculationId: string };

export const TAX_UNAVAILABLE = 'Tax could not be calculated right now. Please try again in a moment.';

/**
 * With Stripe Tax chosen (decision 051): its calculation for these lines, shipping and address,
 * made before any transaction (a call to Stripe never holds a row lock). Undefined with the table.
 */
export async function externalTaxFor(
  tax: TaxCalculator | null | undefined,
  config: ShippingPricing,
  lines: PricedLine[],
  where: Where,
  discount?: QuoteDiscount,
): Promise<ExternalTax | undefined> {
  if (config.taxProvider !== 'stripe') return undefined;
  if (!where.destination) throw new AppError('failed-precondition', SHIPPING_TAX_MESSAGES.addressNeeded);
  // A discount (issue 27) lowers the goods Stripe taxes and the free-shipping threshold sees, as in `quote`.
  const off = discountCents(lines, discount);
  const goodsCents = lines.reduce((sum, line) => sum + line.unitCents * line.qty, 0) - off;
  let shippingCents: number;
  try {
    shippingCents = shippingFor(config, lines, where.destination, where.shippingMethodId, goodsCents).shippingCents;
  } catch (error) {
    if (error instanceof PricingRefusal) throw new AppError('failed-precondition', error.message);
    throw error;
  }
  if (!tax) throw new AppError('unavailable', TAX_UNAVAILABLE);
  const inclusive = taxRuleFor(config, where.destination)?.pricesIncludeTax ?? false;
  try {
    // Gift cards are not taxed when sold (decision 053), as in `quote`.
    return await tax.calculate({ lines: discountedLines(lines, discount, off).filter((line) => !line.giftCard), shippingCents, address: where.destination, inclusive });
  } catch (error) {
    // The provider's own error stays attached for the log; the buyer reads the sentence.
    throw Object.assign(new AppError('unavailable', TAX_UNAVAILABLE), { cause: error });
  }
}

/** The quote, or the refusal as the buyer reads it (failed-precondition: nothing was taken). */
export function priceOrRefuse(
  lines: PricedLine[],
  balanceCents: number,
  useWallet: boolean,
  where: Where,
  config: ShippingPricing,
  externalTax?: ExternalTax,
  discount?: QuoteDiscount,
): Quote {
  try {
    return quote(lines, balanceCents, useWallet, { destination: where.destination, shippingMethodId: where.shippingMethodId, shippingTax: config, externalTax, discount });
  } catch (error) {
    if (error instanceof PricingRefusal) throw new AppError('failed-precondition', error.message);
    throw error;
  }
}

/** The zone's methods with what each would cost this cart, for the checkout's method picker. */
export function methodsFor(lines: PricedLine[], where: Where, config: ShippingPricing): { id: string; name: string; shippingCents: number }[] {
  try {
    const chosen = shippingFor(config, lines, where.destination);
    return (chosen.zone?.methods ?? []).map((method) => ({
      id: method.id,
      name: method.name,
      shippingCents: shippingFor(config, lines, where.destination, method.id).shippingCents,
    }));
  } catch (error) {
    if (error instanceof PricingRefusal) return [];
    throw error;
  }
}

/** A full shipping address's first problem (postal code and state rules per country), refused as invalid-argument. */
export function checkAddress(address: { country: string; state?: string | null; postal_code: string }): void {
  const problem = addressProblem(address);
  if (problem) throw new AppError('invalid-argument', problem);
}

/**
 * The totals the buyer reviewed against the server's: a different price (or wallet) is the
 * spec's quoteChanged; the same goods with different shipping or tax means the rates or the
 * address changed since the quote.
 */
export function refuseStale(fresh: Quote, reviewed: Partial<Quote>): void {
  if (sameQuote(fresh, reviewed)) return;
  const goodsSame = fresh.subtotalCents === reviewed.subtotalCents;
  const shippingOrTax = fresh.shippingCents !== reviewed.shippingCents || fresh.taxCents !== reviewed.taxCents;
  throw new AppError('failed-precondition', goodsSame && shippingOrTax ? SHIPPING_TAX_MESSAGES.shippingChanged : CHECKOUT_MESSAGES.quoteChanged);
}

/** The receipt's tax line from what an order keeps. */
export function taxOfReceipt(record: { taxJurisdiction: string; taxIncludedCents: number; shippingMethod: string | null }) {
  return { jurisdiction: record.taxJurisdiction, includedCents: record.taxIncludedCents, shippingMethod: record.shippingMethod };
}
