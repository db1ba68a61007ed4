import { describe, expect, it } from 'vitest';
import { lineRefundOf } from './refunds.ts';
import { taxReversals, unitsShare, type ReversalOrder, type ReversalRefund } from './tax-reversal.ts';

// Two LPs (5000 + 363 tax) and a cap (1999 + 145), shipping 999 + 72: 8578 in all.
const order: ReversalOrder = {
  lines: [
    { lineId: 0, qty: 2, paidCents: 5000, taxCents: 363 },
    { lineId: 1, qty: 1, paidCents: 1999, taxCents: 145 },
  ],
  shippingCents: 999,
  shippingTaxCents: 72,
};
const refund = (id: string, part: Partial<ReversalRefund>): ReversalRefund => ({ id, lines: [], shippingCents: 0, amountCents: 0, ...part });

describe('taxReversals', () => {
  it.each([
    [
      'a first refund of everything: the whole transaction',
      [
        refund('a', {
          lines: [
            { lineId: 0, quantity: 2 },
            { lineId: 1, quantity: 1 },
          ],
          amountCents: 8578,
        }),
      ],
      { a: { mode: 'full' } },
    ],
    [
      'a line, then the shipping, then the rest (lines and, not yet taken, nothing more)',
      [
        refund('a', { lines: [{ lineId: 0, quantity: 1 }] }),
        refund('b', { shippingCents: 1071 }),
        refund('c', {
          lines: [
            { lineId: 0, quantity: 1 },
            { lineId: 1, quantity: 1 },
          ],
        }),
      ],
      {
        a: { mode: 'partial', lines: [{ lineId: 0, before: 0, quantity: 1, qty: 2 }], shipping: false },
        b: { mode: 'partial', lines: [], shipping: true },
        c: {
          mode: 'partial',
          lines: [
            { lineId: 0, before: 1, quantity: 1, qty: 2 },
            { lineId: 1, before: 0, quantity: 1, qty: 1 },
          ],
          shipping: false,
        },
      },
    ],
    [
      'a line, then the rest: the rest takes the shipping too',
      [refund('a', { lines: [{ lineId: 1, quantity: 1 }] }), refund('b', { lines: [{ lineId: 0, quantity: 2 }] })],
      {
        a: { mode: 'partial', lines: [{ lineId: 1, before: 0, quantity: 1, qty: 1 }], shipping: false },
        b: { mode: 'partial', lines: [{ lineId: 0, before: 0, quantity: 2, qty: 2 }], shipping: true },
      },
    ],
    [
      'amounts: flat, never past the total; the rest after one is what is left of the total',
      [
        refund('a', { amountCents: 1000 }),
        refund('b', {
          lines: [
            { lineId: 0, quantity: 2 },
            { lineId: 1, quantity: 1 },
          ],
          amountCents: 7578,
        }),
        refund('c', { amountCents: 5 }),
      ],
      { a: { mode: 'partial', flatCents: 1000 }, b: { mode: 'partial', flatCents: 7578 }, c: null },
    ],
    ['an amount larger than the transaction (the card fee): capped at it', [refund('a', { amountCents: 9000 })], { a: { mode: 'partial', flatCents: 8578 } }],
  ])('%s', (_name, refunds, expected) => {
    expect(Object.fromEntries(taxReversals(order, refunds))).toEqual(expected);
  });

  it('shares a line among its units exactly, whatever the order of partial refunds', () => {
    for (const [total, qty] of [
      [363, 2],
      [1000, 3],
      [7, 9],
      [0, 4],
    ] as const) {
      let sum = 0;
      for (let before = 0; before < qty; before += 1) sum += unitsShare(total, before, 1, qty);
      expect(sum).toBe(total);
      expect(unitsShare(total, 0, qty, qty)).toBe(total);
    }
  });
});

describe('lineRefundOf', () => {
  it.each([
    ['an older order without a basis: list price and 9.25%', { lineId: 0, unitCents: 2500, qty: 2, refundedQty: 0 }, 1, 2731],
    ['the order’s own rate (7.25% of 5000 = 363)', { lineId: 0, unitCents: 2500, qty: 2, refundedQty: 0, paidCents: 5000, taxCents: 363 }, 1, 2682],
    ['the second unit gets the rest', { lineId: 0, unitCents: 2500, qty: 2, refundedQty: 1, paidCents: 5000, taxCents: 363 }, 1, 2681],
    ['VAT inside the price: the gross price only', { lineId: 0, unitCents: 2500, qty: 2, refundedQty: 0, paidCents: 5000, taxCents: 0 }, 1, 2500],
    ['a discounted line: what it paid, not its list price', { lineId: 0, unitCents: 2500, qty: 2, refundedQty: 0, paidCents: 4500, taxCents: 416 }, 2, 4916],
  ])('%s', (_name, line, quantity, expected) => {
    expect(lineRefundOf(line, quantity)).toBe(expected);
  });
});
