import { describe, expect, it } from 'vitest';
import { BUNDLE_MESSAGES, bundleStock, expandDemand, partsText, planBundle, type ComponentProduct } from './bundles.ts';

const lp: ComponentProduct = { id: 'lp', name: 'Debut LP', variants: [{ id: 'lp', options: [] }] };
const tee: ComponentProduct = {
  id: 'tee',
  name: 'Logo Tee',
  variants: [
    { id: 'tee~s', options: ['S'] },
    { id: 'tee~m', options: ['M'] },
  ],
};
const cap: ComponentProduct = {
  id: 'cap',
  name: 'Cap',
  variants: [
    { id: 'cap~r', options: ['Red', 'One size'] },
    { id: 'cap~b', options: ['Blue', 'One size'] },
  ],
};
const products = new Map([lp, tee, cap].map((product) => [product.id, product]));

describe('planBundle', () => {
  it('makes one option per picked component and every combination a variant with the fixed parts first', () => {
    const plan = planBundle(
      [
        { productId: 'lp', variantId: 'lp', qty: 1 },
        { productId: 'tee', variantId: null, qty: 2 },
        { productId: 'cap', variantId: null, qty: 1 },
      ],
      products,
    );
    expect(plan.options).toEqual([
      { name: 'Logo Tee', values: ['S', 'M'] },
      { name: 'Cap', values: ['Red / One size', 'Blue / One size'] },
    ]);
    expect(plan.variants.map((variant) => [variant.options, variant.parts.map((part) => `${part.qty}×${part.variantId}:${part.name}`)])).toEqual([
      [
        ['S', 'Red / One size'],
        ['1×lp:Debut LP', '2×tee~s:Logo Tee - S', '1×cap~r:Cap - Red / One size'],
      ],
      [
        ['S', 'Blue / One size'],
        ['1×lp:Debut LP', '2×tee~s:Logo Tee - S', '1×cap~b:Cap - Blue / One size'],
      ],
      [
        ['M', 'Red / One size'],
        ['1×lp:Debut LP', '2×tee~m:Logo Tee - M', '1×cap~r:Cap - Red / One size'],
      ],
      [
        ['M', 'Blue / One size'],
        ['1×lp:Debut LP', '2×tee~m:Logo Tee - M', '1×cap~b:Cap - Blue / One size'],
      ],
    ]);
  });

  it('a bundle of fixed parts only has one default variant', () => {
    const plan = planBundle(
      [
        { productId: 'lp', variantId: 'lp', qty: 1 },
        { productId: 'tee', variantId: 'tee~m', qty: 1 },
      ],
      products,
    );
    expect(plan.options).toEqual([]);
    expect(plan.variants).toEqual([{ options: [], parts: [expect.objectContaining({ variantId: 'lp' }), expect.objectContaining({ variantId: 'tee~m', name: 'Logo Tee - M' })] }]);
  });

  it.each([
    ['no component', [], BUNDLE_MESSAGES.noComponents],
    ['one component once', [{ productId: 'lp', variantId: 'lp', qty: 1 }], BUNDLE_MESSAGES.noComponents],
    [
      'a quantity of 0',
      [
        { productId: 'lp', variantId: 'lp', qty: 0 },
        { productId: 'tee', variantId: null, qty: 1 },
      ],
      BUNDLE_MESSAGES.componentQty,
    ],
    ['a quantity past the limit', [{ productId: 'lp', variantId: 'lp', qty: 21 }], BUNDLE_MESSAGES.componentQty],
    [
      'an unknown product',
      [
        { productId: 'nope', variantId: null, qty: 1 },
        { productId: 'lp', variantId: 'lp', qty: 1 },
      ],
      BUNDLE_MESSAGES.componentNotFound,
    ],
    ['a variant of another product', [{ productId: 'lp', variantId: 'tee~s', qty: 2 }], BUNDLE_MESSAGES.variantOfOtherProduct],
    [
      'one product picked twice',
      [
        { productId: 'tee', variantId: null, qty: 1 },
        { productId: 'tee', variantId: null, qty: 1 },
      ],
      BUNDLE_MESSAGES.duplicatePick,
    ],
  ] as const)('refuses %s', (_case, choices, message) => {
    expect(() => planBundle(choices, products)).toThrow(message);
  });

  it('refuses more picked components than options, and more combinations than variants', () => {
    const big = (id: string, n: number): ComponentProduct => ({ id, name: id, variants: Array.from({ length: n }, (_, i) => ({ id: `${id}~${i}`, options: [String(i)] })) });
    const many = new Map(['a', 'b', 'c', 'd'].map((id) => [id, big(id, 2)]));
    expect(() =>
      planBundle(
        ['a', 'b', 'c', 'd'].map((productId) => ({ productId, variantId: null, qty: 1 })),
        many,
      ),
    ).toThrow(BUNDLE_MESSAGES.tooManyPicks);
    const wide = new Map(['a', 'b'].map((id) => [id, big(id, 11)]));
    expect(() =>
      planBundle(
        ['a', 'b'].map((productId) => ({ productId, variantId: null, qty: 1 })),
        wide,
      ),
    ).toThrow(BUNDLE_MESSAGES.tooManyVariants);
  });
});

describe('bundleStock: what a bundle variant can still sell', () => {
  it.each([
    [
      'every part unlimited',
      [
        { qty: 1, stock: null },
        { qty: 2, stock: null },
      ],
      null,
    ],
    [
      'the fewest counted part decides',
      [
        { qty: 1, stock: 7 },
        { qty: 1, stock: 3 },
        { qty: 1, stock: null },
      ],
      3,
    ],
    ['two per bundle halve it, rounded down', [{ qty: 2, stock: 5 }], 2],
    [
      'a sold-out part sells it out',
      [
        { qty: 1, stock: 0 },
        { qty: 1, stock: 9 },
      ],
      0,
    ],
    ['a part short of one bundle sells it out', [{ qty: 3, stock: 2 }], 0],
  ] as const)('%s', (_case, parts, expected) => {
    expect(bundleStock(parts)).toBe(expected);
  });
});

describe('expandDemand: the units a cart takes of each variant', () => {
  it('sums a bundle’s counted parts times its quantity with the same variants bought alone', () => {
    const demand = expandDemand([
      {
        variantId: 'bundle~m',
        qty: 2,
        counted: true,
        components: [
          { productId: 'lp', variantId: 'lp', name: 'LP', qty: 1, counted: true },
          { productId: 'tee', variantId: 'tee~m', name: 'Tee - M', qty: 2, counted: true },
          { productId: 'sticker', variantId: 'sticker', name: 'Sticker', qty: 1, counted: false },
        ],
      },
      { variantId: 'tee~m', qty: 1, counted: true },
      { variantId: 'poster', qty: 4, counted: false },
    ]);
    expect([...demand]).toEqual([
      ['lp', 2],
      ['tee~m', 5],
    ]);
  });
});

it('partsText lists the parts for the receipt, the desk and the CSV', () => {
  expect(
    partsText([
      { name: 'Debut LP', qty: 1 },
      { name: 'Logo Tee - M', qty: 2 },
    ]),
  ).toBe('Debut LP, 2 × Logo Tee - M');
});
