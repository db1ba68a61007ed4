import { describe, expect, it } from 'vitest';
import {
  addableQty,
  combinations,
  demandByVariant,
  lineName,
  lineRanOutMessage,
  lowStockNote,
  optionsProblem,
  productSoldOut,
  resolveVariant,
  STOCK_MESSAGES,
} from './variants.ts';

describe('variants', () => {
  it.each([
    [[], 'Logo Tee'],
    [['L'], 'Logo Tee - L'],
    [['L', 'Black'], 'Logo Tee - L / Black'],
  ])('names a line with values %j as %s', (values, name) => {
    expect(lineName('Logo Tee', values)).toBe(name);
  });

  it('makes every combination, the first option slowest', () => {
    expect(combinations([])).toEqual([[]]);
    expect(combinations([{ name: 'Size', values: ['S', 'M'] }, { name: 'Colour', values: ['Black', 'White'] }])).toEqual([
      ['S', 'Black'],
      ['S', 'White'],
      ['M', 'Black'],
      ['M', 'White'],
    ]);
  });

  it.each([
    [[], undefined],
    [[{ name: 'Size', values: ['S', 'M'] }], undefined],
    [[{ name: ' ', values: ['S'] }], STOCK_MESSAGES.optionName],
    [[{ name: 'Size', values: [] }], STOCK_MESSAGES.optionValues],
    [[{ name: 'Size', values: ['S', 'S'] }], STOCK_MESSAGES.duplicateValue],
    [[1, 2, 3, 4].map((n) => ({ name: `O${n}`, values: ['a'] })), STOCK_MESSAGES.tooManyOptions],
    [[{ name: 'A', values: Array.from({ length: 11 }, (_, i) => `${i}`) }, { name: 'B', values: Array.from({ length: 10 }, (_, i) => `${i}`) }], STOCK_MESSAGES.tooManyVariants],
  ])('options %j: %s', (options, problem) => {
    expect(optionsProblem(options)).toBe(problem);
  });

  it.each([
    [null, undefined],
    [0, undefined],
    [1, 'Only 1 left'],
    [5, 'Only 5 left'],
    [6, undefined],
  ])('stock %s shows %s', (stock, note) => {
    expect(lowStockNote(stock)).toBe(note);
  });

  it.each([
    [null, 3, 2, 2],
    [5, 3, 4, 2],
    [5, 5, 1, 0],
    [0, 0, 1, 0],
    [10, 0, 3, 3],
  ])('stock %s, %s in the cart, %s wanted: %s added', (stock, inCart, wanted, added) => {
    expect(addableQty(stock, inCart, wanted)).toBe(added);
  });

  it('is sold out only when every variant is', () => {
    expect(productSoldOut([{ stock: 0 }, { stock: 0 }])).toBe(true);
    expect(productSoldOut([{ stock: 0 }, { stock: null }])).toBe(false);
    expect(productSoldOut([{ stock: 0 }, { stock: 1 }])).toBe(false);
  });

  it('resolves a line without a variant to the default one', () => {
    expect(resolveVariant([{ id: 'p1' }], 'p1', undefined)).toEqual({ id: 'p1' });
    const sized = [{ id: 'p1~a' }, { id: 'p1~b' }];
    expect(resolveVariant(sized, 'p1', 'p1~b')).toEqual({ id: 'p1~b' });
    expect(resolveVariant(sized, 'p1', undefined)).toBeUndefined();
    expect(resolveVariant(sized, 'p1', 'other')).toBeUndefined();
  });

  it('sums lines on the same variant', () => {
    expect([...demandByVariant([{ variantId: 'a', qty: 2 }, { variantId: 'b', qty: 1 }, { variantId: 'a', qty: 3 }])]).toEqual([
      ['a', 5],
      ['b', 1],
    ]);
  });

  it('says which line ran out', () => {
    expect(lineRanOutMessage('Logo Tee - L', 0)).toBe('"Logo Tee - L" is sold out. Remove it from your cart to continue.');
    expect(lineRanOutMessage('Logo Tee - L', 2)).toBe('Only 2 of "Logo Tee - L" are left. Reduce the quantity to continue.');
  });
});
