import Stripe from 'stripe';
import type { PricedLine } from '@storefront/domain/pricing.ts';
import { jurisdictionName, type TaxResult } from '@storefront/domain/shipping-tax.ts';
import { unitsShare, type TaxReversal } from '@storefront/domain/tax-reversal.ts';

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
  /**
   * Reverses part of a recorded transaction (a partial refund, decision 060): some units of its
   * lines and/or its shipping, each at the amounts and tax the transaction holds, or a flat amount
   * of its total. `key` makes a retry the same reversal. The reversal's id.
   */
  reversePart(transactionId: string, reversal: PartialReversal, key: { reference: string; idempotencyKey: string }): Promise<string>;
}

export type PartialReversal = Exclude<TaxReversal, { mode: 'full' }>;

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
          reference: referenceOf(line, index),
          tax_behavior: behavior,
          tax_code: line.digital ? TAX_CODE_DIGITAL : TAX_CODE_PHYSICAL,
        })),
        ...(request.shippingCents > 0 ? { shipping_cost: { amount: request.shippingCents, tax_behavior: behavior } } : {}),
        customer_details: {
          address: { country, ...(line1 ? { line1 } : {}), ...(city ? { city } : {}), ...(state ? { state } : {}), ...(postal_code ? { postal_code } : {}) },
          address_source: 'shipping',
        },
        // Each line's tax (not returned by default), kept with the order for refunds (decision 060).
        expand: ['line_items'],
      });
      if (!calculation.id) throw new Error('Stripe Tax returned a calculation without an id.');
      return {
        taxCents: calculation.tax_amount_exclusive,
        taxIncludedCents: calculation.tax_amount_inclusive,
        jurisdiction: jurisdictionOf(calculation),
        calculationId: calculation.id,
        parts: partsOf(calculation, request),
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
    async reversePart(transactionId, reversal, key) {
      const params: Stripe.Tax.TransactionCreateReversalParams = { mode: 'partial', original_transaction: transactionId, reference: key.reference };
      if ('flatCents' in reversal) {
        params.flat_amount = -reversal.flatCents;
      } else {
        const transaction = await stripe.tax.transactions.retrieve(transactionId);
        const items = await stripe.tax.transactions.listLineItems(transactionId, { limit: 100 });
        // A line item is found by the reference its calculation line was given: `<position>-<product>`.
        const byPosition = new Map(items.data.map((item) => [Number(item.reference.split('-')[0]), item]));
        const lineItems = reversal.lines.flatMap(({ lineId, before, quantity, qty }) => {
          const item = byPosition.get(lineId);
          if (!item) throw new Error(`Tax transaction ${transactionId} has no line item for line ${lineId}.`);
          const amount = unitsShare(item.amount, before, quantity, qty);
          const amountTax = unitsShare(item.amount_tax, before, quantity, qty);
          if (amount === 0 && amountTax === 0) return [];
          return [{ original_line_item: item.id, amount: -amount, amount_tax: -amountTax, quantity, reference: `${item.reference}-${key.reference}`.slice(0, 500) }];
        });
        if (lineItems.length > 0) params.line_items = lineItems;
        const shipping = transaction.shipping_cost;
        if (reversal.shipping && shipping && (shipping.amount > 0 || shipping.amount_tax > 0))
          params.shipping_cost = { amount: -shipping.amount, amount_tax: -shipping.amount_tax };
        if (!params.line_items && !params.shipping_cost) return '';
      }
      const reversed = await stripe.tax.transactions.createReversal(params, { idempotencyKey: key.idempotencyKey });
      return reversed.id;
    },
  };
}

/**
 * The order's tax basis from the calculation's line items (requested with expand): what each line
 * paid and the tax added on top of it (none where prices include tax), and the shipping's tax.
 */
function partsOf(calculation: Stripe.Tax.Calculation, request: TaxRequest): TaxResult['parts'] {
  const items = calculation.line_items?.data;
  if (!items || items.length !== request.lines.length) return undefined;
  const byReference = new Map(items.map((item) => [item.reference, item]));
  const lines = request.lines.map((line, index) => {
    const item = byReference.get(referenceOf(line, index));
    const paidCents = line.unitCents * line.qty;
    return { paidCents, taxCents: item && item.tax_behavior === 'exclusive' ? item.amount_tax : 0 };
  });
  const shipping = calculation.shipping_cost;
  return { lines, shippingTaxCents: shipping && shipping.tax_behavior === 'exclusive' ? shipping.amount_tax : 0 };
}

const referenceOf = (line: TaxRequest['lines'][number], index: number) => `${index}-${line.id ?? 'line'}`.slice(0, 200);

/**
 * "California", "Germany VAT": where the calculation's taxes are owed (the breakdown's first taxed
 * country and state), named for people (decision 060) on receipts, My Orders, the desk and sales.
 */
function jurisdictionOf(calculation: Stripe.Tax.Calculation): string {
  const taxed = calculation.tax_breakdown.find((part) => part.amount > 0) ?? calculation.tax_breakdown[0];
  const details = taxed?.tax_rate_details;
  const country = details?.country ?? calculation.customer_details.address?.country ?? '';
  return country ? jurisdictionName(country, details?.state, details?.tax_type) : '';
}
