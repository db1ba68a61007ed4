import { describe, expect, it } from 'vitest';
import {
  circulatingOrFallback,
  claimableTokens,
  claimableUsd,
  countsAsEdition,
  creditsTotal,
  earnedCreditShare,
  earningsDisplay,
  entryRewards,
  formatCount,
  formatDollars,
  poolOrZero,
  royaltyShare,
  tokenSpotValueUsd,
  tokenValueShownUsd,
  toNumber,
  utilityPriceCents,
} from './wallet.ts';

describe('toNumber (robustness rules)', () => {
  it.each([
    [5, 5],
    [-2, -2],
    ['12', 12],
    ['1,234.5 credits', 1234.5],
    ['$7', 7],
    ['abc', 0],
    ['', 0],
    [null, 0],
    [undefined, 0],
    [Number.NaN, 0],
    [Infinity, 0],
    [{}, 0],
    [true, 0],
  ])('%s -> %s', (input, n) => expect(toNumber(input)).toBe(n));
});

describe('utility price tiers', () => {
  it.each([
    [undefined, 25000],
    [null, 25000],
    [0, 25000],
    [2_499_999_999, 25000],
    [2_500_000_000, 30000],
    [4_999_999_999, 30000],
    [5_000_000_000, 35000],
    [7_499_999_999, 35000],
    [7_500_000_000, 40000],
    [9_999_999_999, 40000],
    [10_000_000_000, 40000],
    [50_000_000_000, 40000],
    ['3000000000', 30000],
    ['junk', 25000],
  ])('sold %s -> %s', (sold, price) => expect(utilityPriceCents(sold)).toBe(price));
});

describe('circulating and pool fallbacks', () => {
  it.each([
    [0, 100000],
    [-5, 100000],
    ['x', 100000],
    [undefined, 100000],
    [250000, 250000],
    ['500', 500],
  ])('circulating %s -> %s', (v, n) => expect(circulatingOrFallback(v)).toBe(n));
  it.each([
    [-1, 0],
    ['x', 0],
    [undefined, 0],
    [null, 0],
    [0, 0],
    [12345, 12345],
    ['678', 678],
  ])('pool %s -> %s', (v, n) => expect(poolOrZero(v)).toBe(n));
});

describe('token value', () => {
  it.each([
    // pool, utility sold, circulating, spot USD
    [1_000_000, 0, 100_000, 0.1],
    [0, 10_000_000, 100_000, 0.3],
    [0, 10_000_001, 100_000, 0.3],
    [0, 0, 100_000, 0],
    [5_000_000, 99, 0, 0.5],
    [-10, 1_000_000, 50_000, 0.06],
  ])('pool %s, sold %s, circulating %s -> %s', (pool, sold, circulating, spot) => {
    expect(tokenSpotValueUsd(pool, sold, circulating)).toBeCloseTo(spot, 10);
    expect(tokenValueShownUsd(pool, sold, circulating)).toBeCloseTo(spot, 10);
  });
});

describe('claimable tokens', () => {
  it.each([
    [100_000, 25000, 0, 4],
    [99_999, 25000, 0, 3],
    [100_000, 25000, 3, 1],
    [100_000, 25000, 9, 0],
    [0, 25000, 0, 0],
    ['50000', 25000, '1', 1],
    [100_000, 0, 0, 0],
  ])('spend %s at %s awarded %s -> %s', (spend, price, awarded, tokens) => expect(claimableTokens(spend, price, awarded)).toBe(tokens));
  it('values them at the spot price', () => expect(claimableUsd(4, 0.25)).toBe(1));
});

describe('editions, credits and earnings', () => {
  it.each([
    [1, true],
    [20, true],
    [0, false],
    [21, false],
    [1.5, false],
    ['3', true],
    ['x', false],
  ])('edition %s counts: %s', (e, counts) => expect(countsAsEdition(e)).toBe(counts));
  it.each([
    [3, 4, 7],
    ['10', '2.5', 12.5],
    ['x', 5, 5],
  ])('credits %s + %s = %s', (a, b, total) => expect(creditsTotal(a, b)).toBe(total));
  it.each([
    [1000, 20, 70],
    [0, 0, 0],
    ['200', 'x', 10],
  ])('earnings from streams %s and sales %s = %s', (streams, sales, shown) => expect(earningsDisplay(streams, sales)).toBeCloseTo(shown, 10));
  it.each([
    [100, 10],
    ['55', 5.5],
    ['bad', 0],
  ])('10%% of earned credits %s = %s', (v, n) => expect(earnedCreditShare(v)).toBeCloseTo(n, 10));
  it.each([
    [10, true, 60],
    [10, false, 10],
    ['x', true, 50],
  ])('royalty %s creator %s -> %s', (base, creator, share) => expect(royaltyShare(base, creator)).toBe(share));
  it('sums every reward field', () => expect(entryRewards({ rewards: 1, rebate: '2', internalRebate: 3, internalRewards: 'x', rewardsTokens: 4, rebates: 5 })).toBe(15));
  it('formats for people', () => {
    expect(formatDollars(1234567.891)).toBe('$1,234,567.89');
    expect(formatCount(1234567)).toBe('1,234,567');
  });
});
