import { describe, expect, it } from 'vitest';
import type { LiveEvent } from '../live/live.publish.ts';
import { createDropPacing } from './drop-pacing.ts';

const flush = () => new Promise((resolve) => setImmediate(resolve));
const batch = (nowServing: number, status = 'live'): LiveEvent => ({ topic: 'drop', id: 'd1', nowServing, status, seed: 'ab', preQueueCount: 10 });

function pacing(places: Map<string, number>) {
  let time = 1_000_000;
  let reads = 0;
  const pacer = createDropPacing({
    nearPlaces: 100,
    farEveryMs: 5000,
    refreshMs: 30_000,
    placesOf: async () => {
      reads += 1;
      return new Map(places);
    },
    now: () => time,
  });
  return {
    pacer,
    advance: (ms: number) => (time += ms),
    reads: () => reads,
  };
}

describe('the drop pacing of "now serving" (decision 066, issue 35)', () => {
  it('tells every page a status change, a near fan every batch, a far fan one batch in five seconds, and the batch that admits a fan always', async () => {
    const places = new Map([
      ['near', 50],
      ['far', 2000],
    ]);
    const { pacer, advance } = pacing(places);
    const near = pacer.forStream('near')!;
    const far = pacer.forStream('far')!;
    const start = batch(0);
    // The start (a new status, with the revealed seed): everyone.
    expect([near(start), far(start)]).toEqual([true, true]);
    await flush();
    const heard = { near: 0, far: 0 };
    for (let second = 1; second <= 20; second += 1) {
      advance(1000);
      const event = batch(second);
      if (near(event)) heard.near += 1;
      if (far(event)) heard.far += 1;
    }
    expect(heard.near).toBe(20);
    // 20 seconds at one slot in 5 s: 4, or 5 when the page's phase straddles the edges.
    expect(heard.far).toBeGreaterThanOrEqual(4);
    expect(heard.far).toBeLessThanOrEqual(5);
    // Within its slot, a far fan hears nothing more ... until the batch that reaches its place (within 100).
    const closer = batch(1950);
    const admits = batch(2000);
    const answers = [far(batch(21)), far(closer), far(admits)];
    expect(answers.slice(1)).toEqual([true, true]);
    // Sold out: a status change, to every page at once.
    expect(far(batch(2000, 'sold-out'))).toBe(true);
  });

  it('tells a page it has no place for (signed in but not read yet, or joined later) every batch; a signed-out page is not paced', async () => {
    const { pacer, advance, reads } = pacing(new Map([['far', 5000]]));
    expect(pacer.forStream(null)).toBeUndefined();
    const far = pacer.forStream('far')!;
    const late = pacer.forStream('late')!;
    far(batch(0));
    // Before the places are read: every batch.
    expect(far(batch(1))).toBe(true);
    await flush();
    expect(reads()).toBe(1);
    let lateHeard = 0;
    for (let second = 2; second <= 11; second += 1) {
      advance(1000);
      if (late(batch(second))) lateHeard += 1;
    }
    expect(lateHeard).toBe(10);
  });

  it('spreads far pages over the interval: one batch reaches about a fifth of them, not all at once', async () => {
    const places = new Map(Array.from({ length: 1000 }, (_, index) => [`fan${index}`, 10_000 + index] as const));
    const { pacer, advance } = pacing(places);
    const streams = [...places.keys()].map((fan) => pacer.forStream(fan)!);
    for (const stream of streams) stream(batch(0));
    await flush();
    // Let every page hear its first slot.
    for (let second = 1; second <= 5; second += 1) {
      advance(1000);
      for (const stream of streams) stream(batch(second));
    }
    const perBatch: number[] = [];
    for (let second = 6; second <= 15; second += 1) {
      advance(1000);
      perBatch.push(streams.filter((stream) => stream(batch(second))).length);
    }
    for (const count of perBatch) {
      expect(count).toBeGreaterThan(100);
      expect(count).toBeLessThan(300);
    }
    // Over 10 s each page heard 2 batches (3 when its phase straddles the edges): 2,000 to 3,000, not 10,000.
    const total = perBatch.reduce((sum, count) => sum + count, 0);
    expect(total).toBeGreaterThanOrEqual(2000);
    expect(total).toBeLessThanOrEqual(3000);
  });

  it('reads the places again after the refresh interval, and forgets them when the drop leaves live', async () => {
    const places = new Map([['fan', 5000]]);
    const { pacer, advance, reads } = pacing(places);
    const fan = pacer.forStream('fan')!;
    fan(batch(0));
    fan(batch(1));
    await flush();
    expect(reads()).toBe(1);
    advance(31_000);
    fan(batch(2));
    await flush();
    expect(reads()).toBe(2);
    fan(batch(3, 'sold-out'));
    fan(batch(3, 'live'));
    fan(batch(4, 'live'));
    await flush();
    expect(reads()).toBe(3);
  });
});
