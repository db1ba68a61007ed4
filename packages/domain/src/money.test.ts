import { describe, expect, it } from 'vitest';
import { centsToDecimal, formatDollars, formatUsd } from './money.ts';

/** Issue 34: the copies these replaced, kept here to show the texts did not change. */
const oldDecimal = (cents: number) => (cents / 100).toFixed(2);
const oldUngrouped = (cents: number) => `$${(cents / 100).toFixed(2)}`;
const intlUsd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });
const oldDollars = (value: number) => intlUsd.format(Number.isFinite(value) ? value : 0);

const samples = [0, 1, 5, 10, 99, 100, 101, 999, 1000, 99_999, 100_000, 1_000_000, 123_456_789, 100_000_000_000_000];
for (let i = 0; i < 2000; i += 1) samples.push(Math.floor(Math.random() * 10 ** (1 + (i % 14))));

describe('the one money formatter', () => {
  it('writes whole cents as a plain decimal exactly as (cents / 100).toFixed(2) did', () => {
    for (const cents of [...samples, ...samples.map((value) => -value), -0]) expect(centsToDecimal(cents)).toBe(oldDecimal(cents));
    expect(centsToDecimal(123456)).toBe('1234.56');
    expect(centsToDecimal(-5)).toBe('-0.05');
  });

  it('writes "$1234.50" without grouping for the messages that always read so', () => {
    for (const cents of samples) expect(formatUsd(cents, { grouping: false })).toBe(oldUngrouped(cents));
    expect(formatUsd(1_000_000, { grouping: false })).toBe('$10000.00');
    expect(formatUsd(1_000_000)).toBe('$10,000.00');
  });

  it('writes a dollar amount with fractions of a cent as Intl.NumberFormat did', () => {
    const values = [0, -0, -0.001, 0.005, 0.0049999, 1e-7, -1e-7, 1.005, 1.115, 0.285, 12.345, -12.345, 123456789.125, 1234567.891, 10_000_000_000_000, Number.NaN, Infinity];
    for (let i = 0; i < 2000; i += 1) values.push(Math.random() * 10 ** (i % 9), -Math.random() * 100, Math.round(Math.random() * 100_000) / 1000);
    for (const value of values) expect(formatDollars(value)).toBe(oldDollars(value));
  });
});
