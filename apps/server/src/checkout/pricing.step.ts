import { addressProblem } from '@storefront/domain/address-rules.ts';
import type { GiftInput } from '@storefront/domain/gift-card-schemas.ts';
import type { Shipping } from '@storefront/domain/pricing-schemas.ts';
import { CHECKOUT_MESSAGES, discountCents, discountedLines, needsShipping, quote, sameQuote, type PricedLine, type Quote, type QuoteDiscount } from '@storefront/domain/pricing.ts';
import { PricingRefusal, SHIPPING_TAX_MESSAGES, shippingFor, taxRuleFor, type Destination, type ShippingTaxConfig, type TaxResult } from '@storefront/domain/shipping-tax.ts';
import type { Db } from '../db/client.ts';
import type { Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';
import { shippingTaxConfig } from '../shipping/shipping.service.ts';
import type { TaxCalculator } from '../shipping/stripe-tax.ts';
import type { StockLine } from './cart.ts';
import { codeFor, type AppliedCode } from './discount.step.ts';
import { refuseDigitalConflicts } from './digital.step.ts';
import { giftCardLinesOf, type GiftCardLines } from './gift-cards.step.ts';

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

/** What both entry flows price from, read before their transaction (a call to Stripe Tax never holds a row lock). */
export interface PricedCheckout {
  lines: StockLine[];
  /** A card checkout's gift cards and their recipient (decision 053); none for a wallet-only order. */
  gifts: GiftCardLines | undefined;
  where: Where;
  config: ShippingPricing;
  code: AppliedCode | undefined;
  external: ExternalTax | undefined;
}

/**
 * Step "price" of both entry flows (the wallet-only order and the card checkout, issue 34): the
 * address a cart that ships needs, the gift card rules, the stored rates, the discount code
 * judged for these lines, and Stripe Tax's calculation when it is chosen. The quote itself waits
 * for the balance (quoteOf): read at once for a wallet-only order, under the buyer's lock for a
 * card checkout.
 */
export async function priceCheckout(
  deps: { db: Db; tax?: TaxCalculator | null | undefined },
  userId: string,
  lines: StockLine[],
  input: { useWallet: boolean; shipping?: Shipping | undefined; shippingMethodId?: string | undefined; discountCode?: string | undefined; gift?: GiftInput | undefined },
): Promise<PricedCheckout> {
  refuseWithoutAddress(lines, input.shipping);
  await refuseDigitalConflicts(deps.db, userId, lines);
  const gifts = giftCardLinesOf(lines, input);
  const where = { destination: input.shipping, shippingMethodId: input.shippingMethodId };
  const config = await loadPricing(deps.db);
  const code = await codeFor(deps.db, userId, input.discountCode, lines);
  const external = await externalTaxFor(deps.tax, config, lines, where, code?.discount);
  return { lines, gifts, where, config, code, external };
}

/** The priced checkout's quote with this balance, or its refusal as the buyer reads it. */
export function quoteOf(priced: PricedCheckout, balanceCents: number, useWallet: boolean): Quote {
  return priceOrRefuse(priced.lines, balanceCents, useWallet, priced.where, priced.config, priced.external, priced.code?.discount);
}

/** A cart with anything that ships needs the address; an all-digital one does not (issue 28, decision 061). */
function refuseWithoutAddress(lines: StockLine[], shipping: Shipping | undefined): void {
  if (!shipping && needsShipping(lines)) throw new AppError('invalid-argument', CHECKOUT_MESSAGES.shippingAddressNeeded);
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
