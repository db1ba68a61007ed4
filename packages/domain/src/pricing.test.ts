import { describe, expect, it } from 'vitest';
import { CHECKOUT_MESSAGES, grossUpCents, MAX_NAMED_PRICE_CENTS, namedUnitCents, quote, taxCents } from './pricing.ts';

/**
 * [lines as [unitCents, qty], wallet balance, use wallet, expected
 *  [subtotal, shipping, tax, total, walletApplied, amountDue, cardFee, charge]].
 * The expected figures were computed apart from this code, with decimal arithmetic:
 * tax = 9.25% of (subtotal + 999) rounded half up; charge = ceil((due + 30) / 0.971).
 */
const CASES: [number[][], number, boolean, number[]][] = [
  [[[2500, 1]], 0, false, [2500, 999, 324, 3823, 0, 3823, 146, 3969]],
  [[[2500, 1]], 0, true, [2500, 999, 324, 3823, 0, 3823, 146, 3969]],
  [[[2500, 1]], 100000, true, [2500, 999, 324, 3823, 3823, 0, 0, 0]],
  [[[2500, 1]], 100000, false, [2500, 999, 324, 3823, 0, 3823, 146, 3969]],
  [[[1, 1]], 0, false, [1, 999, 93, 1093, 0, 1093, 64, 1157]],
  [[[1999, 3]], 5000, true, [5997, 999, 647, 7643, 5000, 2643, 110, 2753]],
  [[[10, 1]], 0, false, [10, 999, 93, 1102, 0, 1102, 64, 1166]],
  [[[20, 1]], 0, false, [20, 999, 94, 1113, 0, 1113, 65, 1178]],
  [[[27, 1]], 0, false, [27, 999, 95, 1121, 0, 1121, 65, 1186]],
  [
    [
      [5000, 2],
      [1234, 1],
    ],
    1000,
    true,
    [11234, 999, 1132, 13365, 1000, 12365, 401, 12766],
  ],
  [[[100, 1]], 3870, true, [100, 999, 102, 1201, 1201, 0, 0, 0]],
  [[[100, 1]], 3871, true, [100, 999, 102, 1201, 1201, 0, 0, 0]],
  [[[100, 1]], 3869, true, [100, 999, 102, 1201, 1201, 0, 0, 0]],
  [[[3, 1]], 0, false, [3, 999, 93, 1095, 0, 1095, 64, 1159]],
  [[[4, 1]], 0, false, [4, 999, 93, 1096, 0, 1096, 64, 1160]],
  [[[5, 1]], 0, false, [5, 999, 93, 1097, 0, 1097, 64, 1161]],
  [[[6, 1]], 0, false, [6, 999, 93, 1098, 0, 1098, 64, 1162]],
  [[[2405, 1]], 0, false, [2405, 999, 315, 3719, 0, 3719, 142, 3861]],
  [[[2406, 1]], 0, false, [2406, 999, 315, 3720, 0, 3720, 142, 3862]],
  [[[99999, 99]], 0, false, [9899901, 999, 915833, 10816733, 0, 10816733, 323085, 11139818]],
  [[[99999, 99]], 1000000000, true, [9899901, 999, 915833, 10816733, 10816733, 0, 0, 0]],
  [[[1500, 2]], -500, true, [3000, 999, 370, 4369, 0, 4369, 162, 4531]],
  [[[1, 1]], 1, true, [1, 999, 93, 1093, 1, 1092, 64, 1156]],
  [[[7, 1]], 0, false, [7, 999, 93, 1099, 0, 1099, 64, 1163]],
  [[[13, 1]], 0, false, [13, 999, 94, 1106, 0, 1106, 64, 1170]],
  [
    [
      [4999, 1],
      [1, 1],
    ],
    0,
    true,
    [5000, 999, 555, 6554, 0, 6554, 227, 6781],
  ],
  [[[333, 3]], 333, true, [999, 999, 185, 2183, 333, 1850, 87, 1937]],
  [[[12345, 1]], 12345, true, [12345, 999, 1234, 14578, 12345, 2233, 98, 2331]],
  [
    [
      [4944, 4],
      [1583, 1],
      [17560, 1],
    ],
    0,
    true,
    [38919, 999, 3692, 43610, 0, 43610, 1334, 44944],
  ],
  [[[2817, 4]], 0, true, [11268, 999, 1135, 13402, 0, 13402, 432, 13834]],
  [[[18057, 4]], 0, true, [72228, 999, 6773, 80000, 0, 80000, 2421, 82421]],
  [[[18911, 5]], 0, true, [94555, 999, 8839, 104393, 0, 104393, 3149, 107542]],
  [[[18241, 2]], 18979, true, [36482, 999, 3467, 40948, 18979, 21969, 688, 22657]],
  [[[18708, 3]], 0, true, [56124, 999, 5284, 62407, 0, 62407, 1895, 64302]],
  [
    [
      [12203, 1],
      [17949, 1],
    ],
    0,
    true,
    [30152, 999, 2881, 34032, 0, 34032, 1048, 35080],
  ],
  [
    [
      [17424, 4],
      [10294, 4],
      [19188, 4],
      [11849, 3],
    ],
    0,
    true,
    [223171, 999, 20736, 244906, 0, 244906, 7346, 252252],
  ],
  [[[18823, 3]], 34419, false, [56469, 999, 5316, 62784, 0, 62784, 1907, 64691]],
  [
    [
      [9436, 5],
      [2399, 1],
      [16776, 4],
      [5406, 3],
    ],
    9960,
    false,
    [132901, 999, 12386, 146286, 0, 146286, 4400, 150686],
  ],
  [[[2544, 5]], 37553, false, [12720, 999, 1269, 14988, 0, 14988, 479, 15467]],
  [
    [
      [19477, 4],
      [19003, 4],
      [2254, 1],
    ],
    17690,
    true,
    [156174, 999, 14539, 171712, 17690, 154022, 4631, 158653],
  ],
  [[[10146, 5]], 44645, false, [50730, 999, 4785, 56514, 0, 56514, 1719, 58233]],
  [
    [
      [11371, 1],
      [15129, 3],
      [5507, 5],
      [3837, 4],
    ],
    0,
    false,
    [99641, 999, 9309, 109949, 0, 109949, 3315, 113264],
  ],
  [
    [
      [8114, 4],
      [12811, 4],
    ],
    0,
    false,
    [83700, 999, 7835, 92534, 0, 92534, 2795, 95329],
  ],
  [
    [
      [18005, 3],
      [4487, 4],
      [18030, 3],
      [13609, 3],
    ],
    44742,
    true,
    [166880, 999, 15529, 183408, 44742, 138666, 4173, 142839],
  ],
];

describe('quote (spec section 9)', () => {
  it.each(CASES)('%j balance %i wallet %s', (lines, balance, useWallet, expected) => {
    const result = quote(
      lines.map(([unitCents, qty]) => ({ unitCents: unitCents!, qty: qty! })),
      balance,
      useWallet,
    );
    expect([
      result.subtotalCents,
      result.shippingCents,
      result.taxCents,
      result.totalCents,
      result.walletAppliedCents,
      result.amountDueCents,
      result.cardFeeCents,
      result.chargeCents,
    ]).toEqual(expected);
  });

  it('charges nothing and uses the wallet-only path when the wallet covers everything', () => {
    const result = quote([{ unitCents: 1000, qty: 1 }], 1_000_000, true);
    expect([result.amountDueCents, result.cardFeeCents, result.chargeCents]).toEqual([0, 0, 0]);
  });

  // Issue 28: digital lines ship nothing; one physical line brings the flat shipping back.
  it.each([
    ['all digital', [{ unitCents: 800, qty: 1, digital: true }], [800, 0, 74, 874]],
    [
      'two digital',
      [
        { unitCents: 800, qty: 1, digital: true },
        { unitCents: 150, qty: 2, digital: true },
      ],
      [1100, 0, 102, 1202],
    ],
    [
      'digital and physical',
      [
        { unitCents: 800, qty: 1, digital: true },
        { unitCents: 2500, qty: 1 },
      ],
      [3300, 999, 398, 4697],
    ],
    ['physical only', [{ unitCents: 2500, qty: 1, digital: false }], [2500, 999, 324, 3823]],
  ])('%s', (_name, lines, expected) => {
    const result = quote(lines, 0, false);
    expect([result.subtotalCents, result.shippingCents, result.taxCents, result.totalCents]).toEqual(expected);
  });

  it.each([[{ unitCents: 1.5, qty: 1 }], [{ unitCents: 100, qty: 0 }], [{ unitCents: -1, qty: 1 }], [{ unitCents: 100, qty: 1.5 }]])(
    'refuses fractional or negative figures %j',
    (line) => expect(() => quote([line], 0, false)).toThrow(RangeError),
  );
});

describe('rounding edges', () => {
  it.each([
    [0, 0],
    [5, 0],
    [6, 1],
    [54, 5],
    [55, 5],
    [10000, 925],
    [10_000_000, 925_000],
    [1081, 100],
    [1082, 100],
    [1083, 100],
  ])('tax of %i is %i', (taxable, tax) => expect(taxCents(taxable)).toBe(tax));
  it.each([
    [0, 0],
    [1, 32],
    [941, 1000],
    [942, 1002],
    [970, 1030],
    [9_709, 10_030],
  ])('gross-up of %i is %i', (amount, gross) => expect(grossUpCents(amount)).toBe(gross));
});

describe('namedUnitCents: "name your price" (issue 28, decision 061)', () => {
  const album = { name: 'Sines (digital album)', priceCents: 800, nameYourPrice: true };
  const fixed = { name: 'Tee', priceCents: 2000 };
  it.each([
    ['no amount: the price', {}, album, { unitCents: 800 }],
    ['the minimum itself', { amountCents: 800 }, album, { unitCents: 800 }],
    ['more than the minimum', { amountCents: 1234 }, album, { unitCents: 1234 }],
    ['the most a fan may name', { amountCents: MAX_NAMED_PRICE_CENTS }, album, { unitCents: MAX_NAMED_PRICE_CENTS }],
    ['a cent below the minimum', { amountCents: 799 }, album, { refused: 'Please pay at least $8.00 for Sines (digital album).' }],
    ['above the most', { amountCents: MAX_NAMED_PRICE_CENTS + 1 }, album, { refused: CHECKOUT_MESSAGES.namedPriceTooHigh }],
    ['not whole cents', { amountCents: 800.5 }, album, { refused: CHECKOUT_MESSAGES.namedPriceCents }],
    ['below zero', { amountCents: -1 }, album, { refused: CHECKOUT_MESSAGES.namedPriceCents }],
    ['an amount for a fixed price', { amountCents: 5000 }, fixed, { refused: CHECKOUT_MESSAGES.fixedPrice('Tee') }],
    ['no amount for a fixed price', {}, fixed, { unitCents: 2000 }],
  ])('%s', (_case, item, product, expected) => {
    expect(namedUnitCents(item, product)).toEqual(expected);
  });
});
