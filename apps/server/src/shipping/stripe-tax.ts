import Stripe from 'stripe';
import type { PricedLine } from '@storefront/domain/pricing.ts';
import type { TaxResult } from '@storefront/domain/shipping-tax.ts';

/**
 * Stripe Tax, the second tax provider (issue 26, decision 051): a Tax Calculation before
 * payment (so the wallet-first split and the card gross-up work on known figures), a tax
 * transaction recorded from that calculation once the order exists, and a reversal of it on a
 * full refund. Requests and answers as documented for POST /v1/tax/calculations,
 * /v1/tax/transactions/create_from_calculation and /v1/tax/transactions/create_reversal.
 */
export interface TaxCalculator {
  calculate(request: TaxRequest): Promise<TaxResult & { calculationId: string }>;
  /** Records the order's tax from its calculation; the transaction id. `reference` is the order id (unique at Stripe). */
  record(calculationId: string, reference: string): Promise<string>;
  /** Reverses a recorded transaction in full; the reversal's id. */
  reverse(transactionId: string, reference: string): Promise<string>;
}

export interface TaxRequest {
  lines: (PricedLine & { id?: string })[];
  shippingCents: number;
  address: { line1?: string; city?: string; state?: string; postal_code?: string; country: string };
  /** Prices already include tax in this region (the table's pricesIncludeTax). */
  inclusive: boolean;
}

/** Stripe's product tax codes: general tangible goods, and digital audio (downloads). */
const TAX_CODE_PHYSICAL = 'txcd_99999999';
const TAX_CODE_DIGITAL = 'txcd_10401100';

export interface StripeTaxOptions {
  secretKey: string;
  /** Tests point the SDK at a local fake Stripe server. */
  api?: { host: string; port: number; protocol: 'http' | 'https' };
}

export function createStripeTax(options: StripeTaxOptions): TaxCalculator {
  const stripe = new Stripe(options.secretKey, { ...(options.api ?? {}), maxNetworkRetries: 2, timeout: 20_000 });
  return {
    async calculate(request) {
      const behavior = request.inclusive ? 'inclusive' : 'exclusive';
      const { line1, city, state, postal_code, country } = request.address;
      const calculation = await stripe.tax.calculations.create({
        currency: 'usd',
        line_items: request.lines.map((line, index) => ({
          amount: line.unitCents * line.qty,
          quantity: line.qty,
          reference: `${index}-${line.id ?? 'line'}`.slice(0, 200),
          tax_behavior: behavior,
          tax_code: line.digital ? TAX_CODE_DIGITAL : TAX_CODE_PHYSICAL,
        })),
        ...(request.shippingCents > 0 ? { shipping_cost: { amount: request.shippingCents, tax_behavior: behavior } } : {}),
        customer_details: {
          address: { country, ...(line1 ? { line1 } : {}), ...(city ? { city } : {}), ...(state ? { state } : {}), ...(postal_code ? { postal_code } : {}) },
          address_source: 'shipping',
        },
      });
      if (!calculation.id) throw new Error('Stripe Tax returned a calculation without an id.');
      return {
        taxCents: calculation.tax_amount_exclusive,
        taxIncludedCents: calculation.tax_amount_inclusive,
        jurisdiction: jurisdictionOf(calculation),
        calculationId: calculation.id,
      };
    },
    async record(calculationId, reference) {
      const transaction = await stripe.tax.transactions.createFromCalculation({ calculation: calculationId, reference }, { idempotencyKey: `tax-record-${reference}` });
      return transaction.id;
    },
    async reverse(transactionId, reference) {
      const reversal = await stripe.tax.transactions.createReversal(
        { mode: 'full', original_transaction: transactionId, reference: `${reference}-reversal` },
        { idempotencyKey: `tax-reverse-${reference}` },
      );
      return reversal.id;
    },
  };
}

/** "US-CA", "DE": where the calculation's taxes are owed (the breakdown's first taxed country and state). */
function jurisdictionOf(calculation: Stripe.Tax.Calculation): string {
  const taxed = calculation.tax_breakdown.find((part) => part.amount > 0) ?? calculation.tax_breakdown[0];
  const details = taxed?.tax_rate_details;
  const country = details?.country ?? calculation.customer_details.address?.country ?? '';
  return details?.state ? `${country}-${details.state}` : country;
}
