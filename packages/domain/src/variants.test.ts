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
  VARIANT_FORM_MESSAGES,
  variantFormRows,
  variantKey,
  variantsFromForm,
} from './variants.ts';
import { MAX_PRICE_CENTS, usdToCents } from './catalog.ts';

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
    expect(
      combinations([
        { name: 'Size', values: ['S', 'M'] },
        { name: 'Colour', values: ['Black', 'White'] },
      ]),
    ).toEqual([
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
    [
      [
        { name: 'A', values: Array.from({ length: 11 }, (_, i) => `${i}`) },
        { name: 'B', values: Array.from({ length: 10 }, (_, i) => `${i}`) },
      ],
      STOCK_MESSAGES.tooManyVariants,
    ],
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
    expect([
      ...demandByVariant([
        { variantId: 'a', qty: 2 },
        { variantId: 'b', qty: 1 },
        { variantId: 'a', qty: 3 },
      ]),
    ]).toEqual([
      ['a', 5],
      ['b', 1],
    ]);
  });

  it('says which line ran out', () => {
    expect(lineRanOutMessage('Logo Tee - L', 0)).toBe('"Logo Tee - L" is sold out. Remove it from your cart to continue.');
    expect(lineRanOutMessage('Logo Tee - L', 2)).toBe('Only 2 of "Logo Tee - L" are left. Reduce the quantity to continue.');
  });
});

describe('the admin form of options and variants', () => {
  const build = (
    options: { name: string; values: string }[],
    rows: Record<string, { sku: string; price: string; stock: string; loadedStock?: string; limit?: string; weight?: string }> = {},
  ) => variantsFromForm(options, rows, usdToCents, MAX_PRICE_CENTS);

  it('without options: one default variant, unlimited at the product price', () => {
    expect(build([])).toEqual({ options: [], variants: [{ options: [], sku: '', priceCents: null, stock: null, perCustomerLimit: null, weightGrams: null }] });
  });

  it('a row per combination, values split at commas, with SKU, price override and stock', () => {
    const rows = { [variantKey(['L', 'Black'])]: { sku: ' TEE-L-BLK ', price: '27.50', stock: '3' } };
    const built = build(
      [
        { name: 'Size', values: 'S, L' },
        { name: 'Colour', values: 'Black,White' },
        { name: '', values: '' },
      ],
      rows,
    );
    expect(built).toEqual({
      options: [
        { name: 'Size', values: ['S', 'L'] },
        { name: 'Colour', values: ['Black', 'White'] },
      ],
      variants: [
        { options: ['S', 'Black'], sku: '', priceCents: null, stock: null, perCustomerLimit: null, weightGrams: null },
        { options: ['S', 'White'], sku: '', priceCents: null, stock: null, perCustomerLimit: null, weightGrams: null },
        { options: ['L', 'Black'], sku: 'TEE-L-BLK', priceCents: 2750, stock: 3, perCustomerLimit: null, weightGrams: null },
        { options: ['L', 'White'], sku: '', priceCents: null, stock: null, perCustomerLimit: null, weightGrams: null },
      ],
    });
  });

  it.each([
    [[{ name: '', values: 'S' }], {}, STOCK_MESSAGES.optionName],
    [[{ name: 'Size', values: ' , ' }], {}, STOCK_MESSAGES.optionValues],
    [[{ name: 'Size', values: 'S, S' }], {}, STOCK_MESSAGES.duplicateValue],
    [
      [
        { name: 'A', values: 'x' },
        { name: 'B', values: 'x' },
        { name: 'C', values: 'x' },
        { name: 'D', values: 'x' },
      ],
      {},
      STOCK_MESSAGES.tooManyOptions,
    ],
    [[{ name: 'Size', values: 'S' }], { [variantKey(['S'])]: { sku: '', price: 'abc', stock: '' } }, VARIANT_FORM_MESSAGES.price],
    [[{ name: 'Size', values: 'S' }], { [variantKey(['S'])]: { sku: '', price: '0', stock: '' } }, VARIANT_FORM_MESSAGES.price],
    [[{ name: 'Size', values: 'S' }], { [variantKey(['S'])]: { sku: '', price: '', stock: '-1' } }, STOCK_MESSAGES.stock],
    [[{ name: 'Size', values: 'S' }], { [variantKey(['S'])]: { sku: '', price: '', stock: '2.5' } }, STOCK_MESSAGES.stock],
    [[], { [variantKey([])]: { sku: '', price: '', stock: '1000001' } }, STOCK_MESSAGES.stock],
    [[], { [variantKey([])]: { sku: '', price: '', stock: '5', limit: '0' } }, STOCK_MESSAGES.perCustomerLimit],
    [[], { [variantKey([])]: { sku: '', price: '', stock: '5', limit: '1.5' } }, STOCK_MESSAGES.perCustomerLimit],
    [[], { [variantKey([])]: { sku: '', price: '', stock: '5', limit: '1001' } }, STOCK_MESSAGES.perCustomerLimit],
    [[], { [variantKey([])]: { sku: '', price: '', stock: '', weight: '0.5' } }, STOCK_MESSAGES.weight],
    [[], { [variantKey([])]: { sku: '', price: '', stock: '', weight: '-1' } }, STOCK_MESSAGES.weight],
    [[], { [variantKey([])]: { sku: '', price: '', stock: '', weight: '100001' } }, STOCK_MESSAGES.weight],
  ])('refuses %j %j: %s', (options, rows, problem) => {
    expect(build(options, rows)).toEqual({ problem });
  });

  it('a weight in whole grams (decision 060): empty for none, 0 to 100000', () => {
    expect(build([], { [variantKey([])]: { sku: '', price: '', stock: '', weight: ' 320 ' } })).toEqual({
      options: [],
      variants: [{ options: [], sku: '', priceCents: null, stock: null, perCustomerLimit: null, weightGrams: 320 }],
    });
  });

  it('a per-customer limit: empty for none, a whole number from 1 to 1000', () => {
    expect(build([], { [variantKey([])]: { sku: '', price: '', stock: '300', limit: ' 2 ' } })).toEqual({
      options: [],
      variants: [{ options: [], sku: '', priceCents: null, stock: 300, perCustomerLimit: 2, weightGrams: null }],
    });
  });

  it('an edit keeps the live stock where the field was left as loaded, and shows only real price overrides', () => {
    const rows = variantFormRows({
      priceCents: 2500,
      variants: [
        { id: 'v1', options: ['S'], sku: 'S1', priceCents: 2500, stock: 4 },
        { id: 'v2', options: ['M'], sku: 'M1', priceCents: 2700, stock: null },
      ],
    });
    expect(rows[variantKey(['S'])]).toEqual({ sku: 'S1', price: '', stock: '4', loadedStock: '4', limit: '', weight: '' });
    expect(rows[variantKey(['M'])]).toEqual({ sku: 'M1', price: '27.00', stock: '', loadedStock: '', limit: '', weight: '' });
    const edited = { ...rows, [variantKey(['M'])]: { ...rows[variantKey(['M'])]!, stock: '10' } };
    expect(build([{ name: 'Size', values: 'S, M' }], edited)).toEqual({
      options: [{ name: 'Size', values: ['S', 'M'] }],
      variants: [
        { options: ['S'], sku: 'S1', priceCents: null, stock: 4, perCustomerLimit: null, weightGrams: null, keepStock: true },
        { options: ['M'], sku: 'M1', priceCents: 2700, stock: 10, perCustomerLimit: null, weightGrams: null },
      ],
    });
  });
});
