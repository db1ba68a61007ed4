import { describe, expect, it } from 'vitest';
import { formatUsd, productFormProblem, RELEASE_MESSAGES, usdToCents } from './catalog.ts';

describe('usdToCents', () => {
  it.each([
    ['19.99', 1999],
    ['20', 2000],
    ['0.01', 1],
    ['1.005', 101],
    ['1.004', 100],
    ['0.5', 50],
    ['.5', 50],
    ['$12.30', 1230],
    ['  7.1 ', 710],
    ['1234567.899', 123456790],
    ['0', 0],
    ['2.675', 268],
    ['abc', undefined],
    ['', undefined],
    ['-1', undefined],
    ['1e3', undefined],
    ['1,000', undefined],
    ['1.2.3', undefined],
  ])('%s -> %s', (input, cents) => expect(usdToCents(input)).toBe(cents));
});

describe('productFormProblem, in the spec order', () => {
  const ok = { name: 'Tee', description: 'Black tee', price: '25', imageCount: 1 };
  it.each([
    [{ ...ok, name: '  ', description: '', price: '', imageCount: 0 }, 'release', RELEASE_MESSAGES.name],
    [{ ...ok, description: ' ', price: 'x', imageCount: 0 }, 'release', RELEASE_MESSAGES.description],
    [{ ...ok, price: 'x', imageCount: 0 }, 'release', RELEASE_MESSAGES.price],
    [{ ...ok, price: '0' }, 'release', RELEASE_MESSAGES.price],
    [{ ...ok, price: '0.004' }, 'release', RELEASE_MESSAGES.price],
    [{ ...ok, price: '-3' }, 'release', RELEASE_MESSAGES.price],
    [{ ...ok, imageCount: 0 }, 'release', 'Please select at least one image.'],
    [{ ...ok, imageCount: 0 }, 'edit', 'Please include at least one image.'],
    [ok, 'release', undefined],
  ] as const)('%o (%s) -> %s', (form, mode, message) => expect(productFormProblem(form, mode)).toBe(message));
});

describe('formatUsd', () => {
  it.each([
    [1999, '$19.99'],
    [0, '$0.00'],
    [123456789, '$1,234,567.89'],
    ['2500', '$25.00'],
    [100000, '$1,000.00'],
    [99999, '$999.99'],
    [-1999, '-$19.99'],
    [12.5, '$0.13'],
    [0.4, '$0.00'],
    [Number.NaN, '—'],
    [Number.POSITIVE_INFINITY, '—'],
    ['x', '—'],
    ['', '—'],
    [null, '—'],
    [undefined, '—'],
  ])('%s -> %s', (cents, text) => expect(formatUsd(cents)).toBe(text));

  it("writes what Intl.NumberFormat('en-US', USD) writes", () => {
    const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
    const samples = [1, 5, 10, 99, 100, 101, 999, 1000, 99_999, 100_000, 1_000_000, 123_456_789, 100_000_000_000_000];
    for (let i = 0; i < 2000; i += 1) samples.push(Math.floor(Math.random() * 10 ** (1 + (i % 14))), (i % 997) + 0.5);
    for (const cents of [...samples, ...samples.map((value) => -value)]) expect(formatUsd(cents)).toBe(usd.format(cents / 100));
  });
});
