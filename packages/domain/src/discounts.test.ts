import { describe, expect, it } from 'vitest';
import { DISCOUNT_MESSAGES, applyDiscount, linesCodeAppliesTo, normalizeCode, type DiscountRule } from './discounts.ts';
import { discountCents, quote } from './pricing.ts';

const rule = (fields: Partial<DiscountRule> = {}): DiscountRule => ({
  code: 'SPRING',
  kind: 'percent',
  value: 10,
  scope: 'order',
  categoryId: null,
  productIds: [],
  minSubtotalCents: 0,
  startsAt: null,
  endsAt: null,
  useLimit: null,
  uses: 0,
  oncePerAccount: false,
  active: true,
  ...fields,
});
const lp = { productId: 'lp', categoryId: 'music', unitCents: 3000, qty: 1 };
const tee = { productId: 'tee', categoryId: 'merch', unitCents: 1500, qty: 2 };
const now = new Date('2026-11-27T12:00:00Z');

describe('discountCents', () => {
  it('takes a percentage of the lines it applies to, rounded half up, and never more than they cost', () => {
    // 12% of 999 = 119.88 -> 120; 50% of 1 = 0.5 -> 1 (halves up).
    expect(discountCents([{ unitCents: 999, qty: 1 }], { kind: 'percent', value: 12 })).toBe(120);
    expect(discountCents([{ unitCents: 1, qty: 1 }], { kind: 'percent', value: 50 })).toBe(1);
    expect(discountCents([{ unitCents: 333, qty: 3 }], { kind: 'percent', value: 100 })).toBe(999);
    expect(discountCents([{ unitCents: 1000, qty: 1 }], { kind: 'fixed', value: 2500 })).toBe(1000);
    expect(
      discountCents(
        [
          { unitCents: 3000, qty: 1 },
          { unitCents: 1500, qty: 2 },
        ],
        { kind: 'percent', value: 20, appliesTo: [false, true] },
      ),
    ).toBe(600);
    expect(discountCents([{ unitCents: 1000, qty: 1 }], undefined)).toBe(0);
  });

  it('lowers the subtotal before shipping, tax and the card gross-up; no discount is the spec quote', () => {
    const lines = [{ unitCents: 2500, qty: 1 }];
    expect(quote(lines, 0, false)).toEqual({ ...quote(lines, 0, false, {}), discountCents: 0 });
    // 2500 - 2500 = 0 goods: shipping 999, tax 9.25% of 999 = 92.4075 -> 92; total 1091; charge ceil(1121 / 0.971) = 1155.
    expect(quote(lines, 0, false, { discount: { kind: 'fixed', value: 5000 } })).toMatchObject({
      subtotalCents: 2500,
      discountCents: 2500,
      taxCents: 92,
      totalCents: 1091,
      chargeCents: 1155,
    });
  });
});

describe('applyDiscount', () => {
  it('refuses a code outside its rules with its sentence, in order', () => {
    const refused = (fields: Partial<DiscountRule>, usedByBuyer = false) => applyDiscount(rule(fields), [lp, tee], { now, usedByBuyer });
    expect(refused({ active: false })).toEqual({ refused: DISCOUNT_MESSAGES.unknown });
    expect(refused({ startsAt: new Date('2026-12-01T00:00:00Z') })).toEqual({ refused: DISCOUNT_MESSAGES.notStarted });
    expect(refused({ endsAt: now })).toEqual({ refused: DISCOUNT_MESSAGES.ended });
    expect(refused({ useLimit: 3, uses: 3 })).toEqual({ refused: DISCOUNT_MESSAGES.usedUp });
    expect(refused({ oncePerAccount: true }, true)).toEqual({ refused: DISCOUNT_MESSAGES.usedByYou });
    expect(refused({ minSubtotalCents: 6001 })).toEqual({ refused: 'This code needs a subtotal of at least $60.01.' });
    expect(refused({ scope: 'category', categoryId: 'books' })).toEqual({ refused: DISCOUNT_MESSAGES.nothingApplies });
    expect(refused({ minSubtotalCents: 6000, useLimit: 3, uses: 2 })).toMatchObject({ discount: { kind: 'percent', value: 10 } });
  });

  it('applies to a category, chosen products or every line; never to an excluded line (a gift card)', () => {
    expect(linesCodeAppliesTo(rule({ scope: 'category', categoryId: 'music' }), [lp, tee])).toEqual([true, false]);
    expect(linesCodeAppliesTo(rule({ scope: 'products', productIds: ['tee'] }), [lp, tee])).toEqual([false, true]);
    expect(linesCodeAppliesTo(rule(), [lp, { ...tee, excluded: true }])).toEqual([true, false]);
    expect(applyDiscount(rule({ minSubtotalCents: 3001 }), [lp, { ...tee, excluded: true }], { now, usedByBuyer: false })).toEqual({
      refused: 'This code needs a subtotal of at least $30.01.',
    });
  });

  it('reads a typed code without case or surrounding spaces', () => {
    expect(normalizeCode('  spring-10 ')).toBe('SPRING-10');
  });
});
