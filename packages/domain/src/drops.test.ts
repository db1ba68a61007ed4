import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  admissionsAllowed,
  entryKey,
  entryListHash,
  entryListText,
  estimatedWaitSeconds,
  fairOrder,
  isSoldOut,
  positionOf,
  sha256Hex,
  shareInOrder,
  waitPercentiles,
} from './drops.ts';

const seed = 'a3'.repeat(32);

describe('the fairness protocol (decision 066)', () => {
  it('commits to the seed with SHA-256 of its hex text, as node:crypto computes it', async () => {
    expect(await sha256Hex(seed)).toBe(createHash('sha256').update(seed).digest('hex'));
  });

  it('keys an entry with HMAC-SHA256(seed, decimal number)', async () => {
    expect(await entryKey(seed, 42)).toBe(createHmac('sha256', seed).update('42').digest('hex'));
  });

  it('orders the pre-queue by the keys, ascending, whatever order the numbers come in', async () => {
    const numbers = Array.from({ length: 50 }, (_, index) => index + 1);
    const expected = [...numbers].sort((a, b) => {
      const ka = createHmac('sha256', seed).update(String(a)).digest('hex');
      const kb = createHmac('sha256', seed).update(String(b)).digest('hex');
      return ka < kb ? -1 : 1;
    });
    expect(await fairOrder(seed, numbers)).toEqual(expected);
    expect(await fairOrder(seed, [...numbers].reverse())).toEqual(expected);
    // Another seed, another order: the shuffle depends on the seed.
    expect(await fairOrder('b4'.repeat(32), numbers)).not.toEqual(expected);
  });

  it('hashes the entry list as ascending numbers, one per line', async () => {
    expect(entryListText([3, 1, 2])).toBe('1\n2\n3\n');
    expect(await entryListHash([3, 1, 2])).toBe(createHash('sha256').update('1\n2\n3\n').digest('hex'));
    expect(entryListText([])).toBe('');
  });

  it.each([
    // order, preQueue, entry, position
    [[3, 1, 2], 3, 1, 2],
    [[3, 1, 2], 3, 3, 1],
    [[3, 1, 2], 3, 7, 7],
    [[3, 1, 2], 3, 4, 4],
  ])('position of entry in order %j (pre-queue %i) entry %i is %i', (order, preQueue, entry, position) => {
    expect(positionOf(order, preQueue, entry)).toBe(position);
  });
});

describe('admissions against stock (decision 066)', () => {
  const base = { perCustomerLimit: 2, maxAdmitted: 100, perMinute: 1000, admittedLastMinute: 0, waiting: 1000 };
  it.each([
    // unitsLeft, admittedNow, expected
    [10, 0, 5],
    [10, 4, 1],
    [10, 5, 0],
    [11, 5, 0],
    [1, 0, 1],
    [1, 1, 0],
    [0, 0, 0],
    [null, 0, 100],
  ])('units left %s with %i admitted at limit 2 admits %i', (unitsLeft, admittedNow, expected) => {
    expect(admissionsAllowed({ ...base, unitsLeft, admittedNow })).toBe(expected);
  });

  it('is bounded by the most admitted at once, the rate per minute and the fans waiting', () => {
    expect(admissionsAllowed({ ...base, unitsLeft: 1000, admittedNow: 98 })).toBe(2);
    expect(admissionsAllowed({ ...base, unitsLeft: 1000, admittedNow: 0, perMinute: 10, admittedLastMinute: 7 })).toBe(3);
    expect(admissionsAllowed({ ...base, unitsLeft: 1000, admittedNow: 0, waiting: 4 })).toBe(4);
    expect(admissionsAllowed({ ...base, unitsLeft: 1000, admittedNow: 0, perMinute: 10, admittedLastMinute: 12 })).toBe(0);
  });

  it('is sold out when no unit is left', () => {
    expect(isSoldOut(0)).toBe(true);
    expect(isSoldOut(1)).toBe(false);
    expect(isSoldOut(null)).toBe(false);
  });
});

describe('waits and the order check', () => {
  it('estimates the wait from the fans ahead and the rate', () => {
    expect(estimatedWaitSeconds(10, 10, 60)).toBe(0);
    expect(estimatedWaitSeconds(70, 10, 60)).toBe(60);
    expect(estimatedWaitSeconds(11, 10, 120)).toBe(1);
  });

  it('gives the median and the 95th percentile by nearest rank', () => {
    expect(waitPercentiles([])).toEqual({ median: null, p95: null });
    expect(waitPercentiles([5, 1, 3])).toEqual({ median: 3, p95: 5 });
    expect(waitPercentiles(Array.from({ length: 100 }, (_, index) => index + 1))).toEqual({ median: 50, p95: 95 });
  });

  it('counts an admission out of order when a later batch admits a position before an earlier one', () => {
    expect(shareInOrder([])).toBe(1);
    expect(
      shareInOrder([
        { position: 1, batch: 1 },
        { position: 2, batch: 1 },
        { position: 3, batch: 2 },
      ]),
    ).toBe(1);
    expect(
      shareInOrder([
        { position: 2, batch: 1 },
        { position: 1, batch: 2 },
        { position: 3, batch: 2 },
      ]),
    ).toBeCloseTo(2 / 3);
  });
});
