import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allocate, recoupedAfter, reserveOf, shareSigned } from './royalties.ts';

describe('allocate (decision 070)', () => {
  it('gives each share its floor, the cents left to the largest remainders, ties to the first listed', () => {
    expect(allocate(1001, [5000, 5000])).toEqual([501, 500]);
    expect(allocate(100, [3333, 3333, 3334])).toEqual([33, 33, 34]);
    expect(allocate(1, [2000, 3000, 5000])).toEqual([0, 0, 1]);
    expect(allocate(-1001, [5000, 5000])).toEqual([-501, -500]);
  });

  it('always sums to the amount, and a reversal mirrors the sale', () => {
    const shares = fc.array(fc.integer({ min: 1, max: 10_000 }), { minLength: 1, maxLength: 6 }).map((weights) => {
      const total = weights.reduce((a, b) => a + b, 0);
      const bps = weights.map((weight) => Math.floor((weight * 10_000) / total));
      bps[0]! += 10_000 - bps.reduce((a, b) => a + b, 0);
      return bps;
    });
    fc.assert(
      fc.property(fc.integer({ min: -10_000_000, max: 10_000_000 }), shares, (amount, bps) => {
        const parts = allocate(amount, bps);
        expect(parts.reduce((a, b) => a + b, 0)).toBe(amount);
        expect(allocate(-amount, bps)).toEqual(parts.map((part) => (part === 0 ? 0 : -part)));
        parts.forEach((part, index) => expect(Math.abs(part - (amount * bps[index]!) / 10_000)).toBeLessThan(1));
      }),
    );
  });

  it('shares a negative total as the negation of the positive one', () => {
    expect(shareSigned(-7, [1, 1])).toEqual([-4, -3]);
    expect(shareSigned(7, [0, 0])).toEqual([7, 0]);
  });

  it('recoups at most the costs and never below zero; reserves hold nothing of a reversal', () => {
    expect(recoupedAfter(500, 2000)).toBe(500);
    expect(recoupedAfter(2500, 2000)).toBe(2000);
    expect(recoupedAfter(-300, 2000)).toBe(0);
    expect(reserveOf(999, 1000)).toBe(99);
    expect(reserveOf(-999, 1000)).toBe(0);
  });
});
