import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { grossUpCents, quote, taxCents, type PricedLine } from './pricing.ts';
import {
  DEFAULT_SHIPPING_TAX_CONFIG,
  jurisdictionName,
  PricingRefusal,
  SHIPPING_TAX_MESSAGES,
  methodCents,
  shippingFor,
  tableTax,
  taxLineLabel,
  taxRuleFor,
  zoneFor,
  type ShippingMethod,
  type ShippingTaxConfig,
  type ShippingZone,
  type TaxRule,
} from './shipping-tax.ts';

const method = (over: Partial<ShippingMethod>): ShippingMethod => ({ id: 'standard', name: 'Standard', basis: 'order', firstCents: 0, extraCents: 0, stepGrams: 1000, ...over });
const zone = (over: Partial<ShippingZone>): ShippingZone => ({ id: 'z', name: 'Z', regions: ['*'], ships: true, freeOverCents: null, methods: [method({})], ...over });
const rule = (over: Partial<TaxRule>): TaxRule => ({
  region: '*',
  name: '',
  physicalBasisPoints: 0,
  digitalBasisPoints: 0,
  shippingTaxable: false,
  pricesIncludeTax: false,
  ...over,
});

/** A label's configuration: US by state, the EU with VAT included, the UK, nowhere else. */
const LABEL: ShippingTaxConfig = {
  taxProvider: 'builtin',
  zones: [
    zone({
      id: 'us',
      regions: ['US'],
      freeOverCents: 10_000,
      methods: [method({ id: 'standard', basis: 'item', firstCents: 600, extraCents: 150 }), method({ id: 'express', name: 'Express', basis: 'order', firstCents: 2500 })],
    }),
    zone({ id: 'eu', regions: ['DE', 'FR', 'NL'], methods: [method({ basis: 'weight', firstCents: 1500, extraCents: 500, stepGrams: 1000 })] }),
    zone({ id: 'uk', regions: ['GB'], ships: false }),
  ],
  taxRules: [
    rule({ region: 'US-CA', name: 'California', physicalBasisPoints: 725, digitalBasisPoints: 0, shippingTaxable: false }),
    rule({ region: 'US', name: 'United States', physicalBasisPoints: 0 }),
    rule({ region: 'DE', name: 'Germany', physicalBasisPoints: 1900, digitalBasisPoints: 1900, shippingTaxable: true, pricesIncludeTax: true }),
  ],
};

const LP: PricedLine = { unitCents: 2500, qty: 1, weightGrams: 300 };

describe('zones and rules: the most specific region wins', () => {
  it.each([
    [{ country: 'US', state: 'CA' }, 'us', 'California'],
    [{ country: 'us', state: 'ny' }, 'us', 'United States'],
    [{ country: 'DE' }, 'eu', 'Germany'],
    [{ country: 'FR' }, 'eu', undefined],
    [{ country: 'GB' }, 'uk', undefined],
    [{ country: 'JP' }, undefined, undefined],
  ])('%j: zone %s, tax %s', (destination, zoneId, jurisdiction) => {
    expect(zoneFor(LABEL, destination)?.id).toBe(zoneId);
    expect(taxRuleFor(LABEL, destination)?.name).toBe(jurisdiction);
  });
});

describe('shipping rates (table of cases)', () => {
  it.each([
    // basis, first, extra, step, lines as [qty, grams, digital], expected
    ['order', 999, 0, 1000, [[3, 0, false]], 999],
    ['item', 600, 150, 1000, [[1, 0, false]], 600],
    [
      'item',
      600,
      150,
      1000,
      [
        [2, 0, false],
        [1, 0, false],
      ],
      900,
    ],
    [
      'item',
      600,
      150,
      1000,
      [
        [2, 0, false],
        [5, 0, true],
      ],
      750,
    ],
    ['weight', 1500, 500, 1000, [[1, 300, false]], 1500],
    ['weight', 1500, 500, 1000, [[4, 300, false]], 2000],
    ['weight', 1500, 500, 1000, [[1, 2001, false]], 2500],
    ['weight', 1500, 500, 1000, [[1, 0, false]], 1500],
    ['order', 999, 0, 1000, [[1, 0, true]], 0],
  ] as const)('%s %i + %i (step %i) for %j is %i', (basis, firstCents, extraCents, stepGrams, lines, expected) => {
    const priced = lines.map(([qty, weightGrams, digital]) => ({ unitCents: 100, qty, weightGrams, digital }));
    expect(methodCents(method({ basis, firstCents, extraCents, stepGrams }), priced)).toBe(expected);
  });

  it('is free from the zone threshold on, and the express method is chosen by id', () => {
    expect(shippingFor(LABEL, [{ ...LP, qty: 4 }], { country: 'US', state: 'NY' }).shippingCents).toBe(0);
    expect(shippingFor(LABEL, [{ ...LP, qty: 3 }], { country: 'US', state: 'NY' }).shippingCents).toBe(900);
    expect(shippingFor(LABEL, [LP], { country: 'US', state: 'NY' }, 'express').shippingCents).toBe(2500);
  });

  it('refuses a country with no zone, a zone that does not ship and an unknown method', () => {
    expect(() => shippingFor(LABEL, [LP], { country: 'JP' })).toThrow(new PricingRefusal(SHIPPING_TAX_MESSAGES.noShipping));
    expect(() => shippingFor(LABEL, [LP], { country: 'GB' })).toThrow(SHIPPING_TAX_MESSAGES.noShipping);
    expect(() => shippingFor(LABEL, [LP], { country: 'US' }, 'overnight')).toThrow(SHIPPING_TAX_MESSAGES.chooseMethod);
    expect(() => shippingFor(LABEL, [LP], undefined)).toThrow(SHIPPING_TAX_MESSAGES.addressNeeded);
  });

  it('ships a digital-only cart anywhere, for nothing', () => {
    expect(shippingFor(LABEL, [{ ...LP, digital: true }], { country: 'JP' })).toEqual({ zone: null, method: null, shippingCents: 0 });
  });
});

describe('the built-in tax table (table of cases)', () => {
  it.each([
    // destination, lines as [unit, qty, digital], shipping, expected [added, included, jurisdiction]
    [{ country: 'US', state: 'CA' }, [[2500, 1, false]], 600, [181, 0, 'California']],
    [{ country: 'US', state: 'CA' }, [[1000, 1, true]], 0, [0, 0, 'California']],
    [{ country: 'US', state: 'TX' }, [[2500, 1, false]], 600, [0, 0, 'United States']],
    // 19% included in 25.00 + 15.00 shipping: 4000 x 19 / 119 = 638.66 -> 639.
    [{ country: 'DE' }, [[2500, 1, false]], 1500, [0, 639, 'Germany']],
    [{ country: 'JP' }, [[2500, 1, false]], 1500, [0, 0, '']],
  ] as const)('%j %j + %i shipping: %j', (destination, lines, shippingCents, [added, included, jurisdiction]) => {
    const priced = lines.map(([unitCents, qty, digital]) => ({ unitCents, qty, digital }));
    expect(tableTax(taxRuleFor(LABEL, destination), priced, shippingCents)).toEqual({ taxCents: added, taxIncludedCents: included, jurisdiction });
  });

  it('labels the tax line with its jurisdiction', () => {
    expect(taxLineLabel('')).toBe('Tax');
    expect(taxLineLabel('California')).toBe('Tax (California)');
    expect(taxLineLabel('Germany', true)).toBe('Tax included (Germany)');
  });
});

describe('the default configuration quotes exactly as the spec', () => {
  it('is 999 flat and 9.25% of subtotal + shipping, wherever the buyer lives', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ unitCents: fc.integer({ min: 0, max: 200_000 }), qty: fc.integer({ min: 1, max: 99 }) }), { maxLength: 8 }),
        fc.option(fc.record({ country: fc.constantFrom('US', 'DE', 'JP', 'GB', 'BR'), state: fc.constantFrom('', 'CA', 'NY') }), { nil: undefined }),
        (lines, destination) => {
          const result = quote(lines, 0, false, { destination });
          const subtotal = lines.reduce((sum, line) => sum + line.unitCents * line.qty, 0);
          const shipping = lines.length > 0 ? 999 : 0;
          expect([result.subtotalCents, result.shippingCents, result.taxCents]).toEqual([subtotal, shipping, taxCents(subtotal + shipping)]);
          expect(result.taxJurisdiction).toBe('');
        },
      ),
    );
  });
  it('names the default method', () => {
    expect(quote([LP], 0, false)).toMatchObject({ shippingMethodId: 'standard', shippingMethodName: 'Standard', shippingZoneId: 'everywhere', taxIncludedCents: 0 });
    expect(DEFAULT_SHIPPING_TAX_CONFIG.taxProvider).toBe('builtin');
  });
});

const arbMethod = fc.record({
  id: fc.constantFrom('standard', 'express'),
  name: fc.constant('M'),
  basis: fc.constantFrom('order' as const, 'item' as const, 'weight' as const),
  firstCents: fc.integer({ min: 0, max: 10_000 }),
  extraCents: fc.integer({ min: 0, max: 5_000 }),
  stepGrams: fc.integer({ min: 1, max: 5_000 }),
});
const REGIONS = ['*', 'US', 'US-CA', 'US-NY', 'DE', 'FR', 'GB', 'JP'];
const arbConfig: fc.Arbitrary<ShippingTaxConfig> = fc.record({
  taxProvider: fc.constant('builtin' as const),
  zones: fc.array(
    fc.record({
      id: fc.string({ minLength: 1, maxLength: 4 }),
      name: fc.constant('Zone'),
      regions: fc.uniqueArray(fc.constantFrom(...REGIONS), { minLength: 1, maxLength: 3 }),
      ships: fc.boolean(),
      freeOverCents: fc.option(fc.integer({ min: 0, max: 50_000 }), { nil: null }),
      methods: fc.uniqueArray(arbMethod, { minLength: 1, maxLength: 2, selector: (m) => m.id }),
    }),
    { maxLength: 4 },
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
    { maxLength: 4 },
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
const arbDestination = fc.option(fc.record({ country: fc.constantFrom('US', 'DE', 'FR', 'GB', 'JP', 'BR'), state: fc.constantFrom('', 'CA', 'NY', 'TX') }), { nil: undefined });

describe('properties over random carts, addresses and configurations', () => {
  it('quote = sum of parts, never negative, wallet first, card grossed up as before, or a refusal', () => {
    fc.assert(
      fc.property(
        arbLines,
        arbConfig,
        arbDestination,
        fc.option(fc.constantFrom('standard', 'express'), { nil: undefined }),
        fc.integer({ min: -1000, max: 3_000_000 }),
        fc.boolean(),
        (lines, config, destination, methodId, balance, useWallet) => {
          let result;
          try {
            result = quote(lines, balance, useWallet, { destination, shippingMethodId: methodId, shippingTax: config });
          } catch (error) {
            // The only refusal is a named one, and only when physical goods need a zone.
            expect(error).toBeInstanceOf(PricingRefusal);
            expect(lines.some((line) => !line.digital)).toBe(true);
            return;
          }
          const subtotal = lines.reduce((sum, line) => sum + line.unitCents * line.qty, 0);
          expect(result.subtotalCents).toBe(subtotal);
          expect(result.totalCents).toBe(result.subtotalCents + result.shippingCents + result.taxCents);
          for (const figure of [result.shippingCents, result.taxCents, result.taxIncludedCents, result.walletAppliedCents, result.amountDueCents, result.cardFeeCents]) {
            expect(Number.isSafeInteger(figure) && figure >= 0).toBe(true);
          }
          if (lines.every((line) => line.digital)) expect(result.shippingCents).toBe(0);
          // Tax is either added or included, never both.
          expect(result.taxCents === 0 || result.taxIncludedCents === 0).toBe(true);
          expect(result.taxIncludedCents).toBeLessThanOrEqual(result.subtotalCents + result.shippingCents);
          expect(result.walletAppliedCents).toBe(useWallet ? Math.min(Math.max(0, balance), result.totalCents) : 0);
          expect(result.amountDueCents).toBe(result.totalCents - result.walletAppliedCents);
          expect(result.chargeCents).toBe(grossUpCents(result.amountDueCents));
          expect(result.cardFeeCents).toBe(result.chargeCents - result.amountDueCents);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('rounds added tax once, half up, over the exact sum of base x rate', () => {
    fc.assert(
      fc.property(arbLines, fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 3_000 }), fc.integer({ min: 0, max: 3_000 }), (lines, shipping, physical, digital) => {
        const r = rule({ physicalBasisPoints: physical, digitalBasisPoints: digital, shippingTaxable: true });
        const physicalBase = lines.filter((l) => !l.digital).reduce((s, l) => s + l.unitCents * l.qty, 0) + shipping;
        const digitalBase = lines.filter((l) => l.digital).reduce((s, l) => s + l.unitCents * l.qty, 0);
        const exact = (physicalBase * physical + digitalBase * digital) / 10_000;
        const { taxCents: tax } = tableTax(r, lines, shipping);
        // Within half a cent of the exact figure, and a half rounds up.
        expect(Math.abs(tax - exact)).toBeLessThanOrEqual(0.5);
        if (Math.abs(tax - exact) === 0.5) expect(tax).toBeGreaterThan(exact);
      }),
    );
  });

  it('a free-shipping threshold never makes a larger cart cost more to ship', () => {
    fc.assert(
      fc.property(arbMethod, fc.integer({ min: 0, max: 20_000 }), arbLines, (m, threshold, lines) => {
        const config = { zones: [zone({ freeOverCents: threshold, methods: [m] })] };
        const physical = lines.filter((line) => !line.digital);
        const subtotal = lines.reduce((s, l) => s + l.unitCents * l.qty, 0);
        const cents = shippingFor(config, lines, { country: 'US' }, m.id).shippingCents;
        expect(cents).toBe(physical.length === 0 || subtotal >= threshold ? 0 : methodCents(m, lines));
      }),
    );
  });
});

describe('jurisdictionName (decision 060)', () => {
  it.each([
    [['US', 'CA', 'sales_tax'], 'California'],
    [['us', 'ny', null], 'New York'],
    [['DE', null, 'vat'], 'Germany VAT'],
    [['GB', '', 'vat'], 'United Kingdom VAT'],
    [['AU', 'NSW', 'gst'], 'Australia GST'],
    [['CA', 'BC', 'sales_tax'], 'Canada'],
    [['ZZ', null, null], 'ZZ'],
  ] as const)('%j -> %s', ([country, state, type], expected) => {
    expect(jurisdictionName(country, state, type)).toBe(expected);
  });
});

describe('weight brackets (decision 060)', () => {
  const parcel: ShippingMethod = {
    id: 'parcel',
    name: 'Parcel',
    basis: 'weight',
    firstCents: 0,
    extraCents: 300,
    stepGrams: 500,
    brackets: [
      { upToGrams: 500, cents: 600 },
      { upToGrams: 1000, cents: 850 },
      { upToGrams: 2000, cents: 1200 },
    ],
  };
  it.each([
    ['nothing weighed: the first bracket', [{ unitCents: 2000, qty: 3 }], 600],
    ['exactly 500 g', [{ unitCents: 2000, qty: 2, weightGrams: 250 }], 600],
    ['501 g', [{ unitCents: 2000, qty: 1, weightGrams: 501 }], 850],
    ['2 kg', [{ unitCents: 2000, qty: 4, weightGrams: 500 }], 1200],
    ['2001 g: the last bracket + one started step', [{ unitCents: 2000, qty: 1, weightGrams: 2001 }], 1500],
    ['3 kg: + two steps', [{ unitCents: 2000, qty: 10, weightGrams: 300 }], 1800],
    [
      'digital lines weigh nothing',
      [
        { unitCents: 900, qty: 1, digital: true, weightGrams: 5000 },
        { unitCents: 2000, qty: 1, weightGrams: 400 },
      ],
      600,
    ],
  ])('%s', (_name, lines, expected) => {
    expect(methodCents(parcel, lines)).toBe(expected);
  });

  it('never charges less for a heavier order', () => {
    fc.assert(
      fc.property(fc.nat({ max: 20_000 }), fc.nat({ max: 20_000 }), (a, b) => {
        const [light, heavy] = a <= b ? [a, b] : [b, a];
        expect(methodCents(parcel, [{ unitCents: 1, qty: 1, weightGrams: light }])).toBeLessThanOrEqual(methodCents(parcel, [{ unitCents: 1, qty: 1, weightGrams: heavy }]));
      }),
    );
  });
});
