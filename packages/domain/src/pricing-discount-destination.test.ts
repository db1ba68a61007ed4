import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { discountCents, discountedLines, grossUpCents, quote, taxCents, type QuoteDiscount } from './pricing.ts';
import { DEFAULT_SHIPPING_TAX_CONFIG, PricingRefusal, tableTax, taxRuleFor, type ShippingTaxConfig } from './shipping-tax.ts';

// A discount code (issue 27, decision 052) and shipping and tax by destination (issue 26,
// decision 051) in the one pricing function: the discount lowers the goods before the
// free-shipping threshold, the tax and the card's gross-up.

const REGIONS = ['*', 'US', 'US-CA', 'DE', 'GB', 'JP'];
const arbConfig: fc.Arbitrary<ShippingTaxConfig> = fc.record({
  taxProvider: fc.constant('builtin' as const),
  zones: fc.array(
    fc.record({
      id: fc.string({ minLength: 1, maxLength: 4 }),
      name: fc.constant('Zone'),
      regions: fc.uniqueArray(fc.constantFrom(...REGIONS), { minLength: 1, maxLength: 3 }),
      ships: fc.boolean(),
      freeOverCents: fc.option(fc.integer({ min: 0, max: 50_000 }), { nil: null }),
      methods: fc.uniqueArray(
        fc.record({
          id: fc.constantFrom('standard', 'express'),
          name: fc.constant('M'),
          basis: fc.constantFrom('order' as const, 'item' as const, 'weight' as const),
          firstCents: fc.integer({ min: 0, max: 10_000 }),
          extraCents: fc.integer({ min: 0, max: 5_000 }),
          stepGrams: fc.integer({ min: 1, max: 5_000 }),
        }),
        { minLength: 1, maxLength: 2, selector: (method) => method.id },
      ),
    }),
    { maxLength: 3 },
  ),
  taxRules: fc.array(
    fc.record({
      region: fc.constantFrom(...REGIONS),
      name: fc.constantFrom('', 'Somewhere'),
      physicalBasisPoints: fc.integer({ min: 0, max: 3_000 }),
      digitalBasisPoints: fc.integer({ min: 0, max: 3_000 }),
      shippingTaxable: fc.boolean(),
      pricesIncludeTax: fc.boolean(),
    }),
    { maxLength: 3 },
  ),
});
const arbLines = fc.array(
  fc.record({
    unitCents: fc.integer({ min: 0, max: 500_000 }),
    qty: fc.integer({ min: 1, max: 99 }),
    digital: fc.boolean(),
    weightGrams: fc.integer({ min: 0, max: 20_000 }),
  }),
  { maxLength: 6 },
);
const arbDiscount = (lineCount: number): fc.Arbitrary<QuoteDiscount | undefined> =>
  fc.option(
    fc.record({
      kind: fc.constantFrom('percent' as const, 'fixed' as const),
      value: fc.integer({ min: 0, max: 200_000 }),
      appliesTo: fc.option(fc.array(fc.boolean(), { minLength: lineCount, maxLength: lineCount }), { nil: undefined }),
    }),
    { nil: undefined },
  );
const arbDestination = fc.option(fc.record({ country: fc.constantFrom('US', 'DE', 'GB', 'JP', 'BR'), state: fc.constantFrom('', 'CA', 'NY') }), { nil: undefined });

describe('a discount with shipping and tax by destination', () => {
  it('spreads the discount over the lines it applies to, exactly, never below zero', () => {
    fc.assert(
      fc.property(
        arbLines.chain((lines) => fc.tuple(fc.constant(lines), arbDiscount(lines.length))),
        ([lines, discount]) => {
          const off = discountCents(lines, discount);
          const spread = discountedLines(lines, discount, off);
          const before = lines.reduce((sum, line) => sum + line.unitCents * line.qty, 0);
          expect(spread.reduce((sum, line) => sum + line.unitCents * line.qty, 0)).toBe(before - off);
          spread.forEach((line, index) => {
            expect(line.unitCents).toBeGreaterThanOrEqual(0);
            expect(line.digital).toBe(lines[index]!.digital);
            // A line the code does not apply to keeps its whole amount.
            if (discount?.appliesTo && !discount.appliesTo[index]) expect(line.unitCents * line.qty).toBe(lines[index]!.unitCents * lines[index]!.qty);
          });
        },
      ),
      { numRuns: 500 },
    );
  });

  it('quote = subtotal - discount + shipping + tax, the tax that of the discounted goods, wallet first and card grossed up', () => {
    fc.assert(
      fc.property(
        arbLines.chain((lines) => fc.tuple(fc.constant(lines), arbDiscount(lines.length))),
        arbConfig,
        arbDestination,
        fc.integer({ min: 0, max: 3_000_000 }),
        fc.boolean(),
        ([lines, discount], config, destination, balance, useWallet) => {
          let result;
          try {
            result = quote(lines, balance, useWallet, { destination, shippingTax: config, discount });
          } catch (error) {
            expect(error).toBeInstanceOf(PricingRefusal);
            return;
          }
          const off = discountCents(lines, discount);
          expect(result.discountCents).toBe(off);
          expect(result.totalCents).toBe(result.subtotalCents - result.discountCents + result.shippingCents + result.taxCents);
          const tax = tableTax(taxRuleFor(config, destination), discountedLines(lines, discount, off), result.shippingCents);
          expect(result.taxCents).toBe(tax.taxCents);
          expect(result.taxIncludedCents).toBe(tax.taxIncludedCents);
          for (const figure of [result.discountCents, result.shippingCents, result.taxCents, result.totalCents, result.amountDueCents, result.cardFeeCents]) {
            expect(Number.isSafeInteger(figure) && figure >= 0).toBe(true);
          }
          expect(result.walletAppliedCents).toBe(useWallet ? Math.min(balance, result.totalCents) : 0);
          expect(result.chargeCents).toBe(grossUpCents(result.amountDueCents));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('with the default configuration, quotes as the spec with the discount taken off the goods first', () => {
    fc.assert(
      fc.property(
        arbLines.chain((lines) => fc.tuple(fc.constant(lines), arbDiscount(lines.length))),
        ([lines, discount]) => {
          const result = quote(lines, 0, false, { shippingTax: DEFAULT_SHIPPING_TAX_CONFIG, discount });
          const physical = lines.some((line) => !line.digital);
          const shipping = physical ? 999 : 0;
          expect(result.shippingCents).toBe(shipping);
          if (lines.every((line) => !line.digital)) expect(result.taxCents).toBe(taxCents(result.subtotalCents - result.discountCents + shipping));
        },
      ),
      { numRuns: 300 },
    );
  });
});
