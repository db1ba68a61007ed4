import { addressProblem } from '@storefront/domain/address-rules.ts';
import { CHECKOUT_MESSAGES, quote, sameQuote, type PricedLine, type Quote, type QuoteDiscount } from '@storefront/domain/pricing.ts';
import { PricingRefusal, SHIPPING_TAX_MESSAGES, shippingFor, type Destination, type ShippingTaxConfig } from '@storefront/domain/shipping-tax.ts';
import type { Db } from '../db/client.ts';
import type { Tx } from '../db/transaction.ts';
import { AppError } from '../http/errors.ts';
import { shippingTaxConfig } from '../shipping/shipping.service.ts';

/**
 * Step "price" (issue 26, decision 051): the cart at database prices, shipped to the buyer's
 * address with their method, taxed where it goes, by domain/pricing.ts's `quote`, the one place
 * a total is computed. A destination the shop cannot ship to is refused here, before any payment.
 */

export interface Where {
  /** The shipping address (or, for a quote, what is typed of it so far). */
  destination?: Destination;
  shippingMethodId?: string;
}

export type ShippingPricing = ShippingTaxConfig;

/** The stored zones, rates and tax table (the spec's default when none are saved). */
export async function loadPricing(db: Db | Tx): Promise<ShippingPricing> {
  return (await shippingTaxConfig(db)).config;
}

/** The quote, or the refusal as the buyer reads it (failed-precondition: nothing was taken). */
export function priceOrRefuse(lines: PricedLine[], balanceCents: number, useWallet: boolean, where: Where, config: ShippingPricing, discount?: QuoteDiscount): Quote {
  try {
    return quote(lines, balanceCents, useWallet, { destination: where.destination, shippingMethodId: where.shippingMethodId, shippingTax: config, discount });
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
