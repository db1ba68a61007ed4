import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fieldPathProblem, type ListQueryInput } from '@storefront/domain/field-path.ts';
import { DATA_ACCESS_MESSAGES } from '@storefront/domain/messages.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { contentSeeder, runSeeds } from '../seed/seed.ts';

/** listHistory (the History page's timeline) is the list query every other list follows. */
interface Entry {
  id: number;
  releasedOn: string;
  year: number;
  title: string;
}

const SEEDED = 35;

let shop: TestApp;
let app: FastifyInstance;

beforeAll(async () => {
  shop = await startTestApp({ listen: false, seed: ({ db, config }) => runSeeds(db, { config, log: () => undefined }, [contentSeeder]) });
  app = shop.app;
});

afterAll(async () => {
  await shop?.close();
});

async function listHistory(query: unknown) {
  const response = await app.inject({ method: 'POST', url: '/fn/listHistory', payload: { data: query } });
  return response;
}

async function entries(query: ListQueryInput): Promise<Entry[]> {
  const response = await listHistory(query);
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ data: { entries: Entry[] } }>().data.entries;
}

async function errorOf(query: unknown): Promise<{ status: number; error: { status: string; message: string } }> {
  const response = await listHistory(query);
  // Every error body names its request (decision 040); the rest is compared exactly.
  const { requestId, ...error } = response.json<{ error: { status: string; message: string; requestId: string } }>().error;
  expect(requestId).toEqual(expect.any(String));
  return { status: response.statusCode, error };
}

const dates = (rows: Entry[]) => rows.map((row) => row.releasedOn);

let all: Entry[];
beforeAll(async () => {
  all = await entries({});
});

describe('listHistory: ordering and limits', () => {
  it('lists all 35 seeded entries oldest first by default', () => {
    expect(all).toHaveLength(SEEDED);
    expect(dates(all)).toEqual([...dates(all)].sort());
    expect(all[0]).toMatchObject({ releasedOn: '1993-06-12', year: 1993, title: 'Basement Tapes Vol. 1' });
  });

  it('orderBy releasedOn desc + limit 5 gives the five newest, newest first', async () => {
    const page = await entries({ orderBy: [{ field: 'releasedOn', direction: 'desc' }], limit: 5 });
    expect(dates(page)).toEqual(dates(all).slice(-5).reverse());
  });

  it('limitToLast 5 over ascending order gives the five newest, still in ascending order', async () => {
    const page = await entries({ orderBy: [{ field: 'releasedOn' }], limitToLast: 5 });
    expect(dates(page)).toEqual(dates(all).slice(-5));
  });

  it('orders by a second field to break ties', async () => {
    const page = await entries({ orderBy: [{ field: 'year', direction: 'desc' }, { field: 'title' }], limit: 100 });
    const expected = [...all].sort((a, b) => b.year - a.year || a.title.localeCompare(b.title));
    expect(page.map((row) => row.id)).toEqual(expected.map((row) => row.id));
  });
});

describe('listHistory: paging with cursors reads every entry once', () => {
  it.each([[1], [4], [10], [35], [100]])('forwards with startAfter, pages of %i (desc)', async (size) => {
    const seen: Entry[] = [];
    let cursor: [string, number] | undefined;
    for (let pages = 0; pages <= SEEDED; pages += 1) {
      const page = await entries({
        orderBy: [
          { field: 'releasedOn', direction: 'desc' },
          { field: 'id', direction: 'desc' },
        ],
        limit: size,
        ...(cursor ? { startAfter: cursor } : {}),
      });
      seen.push(...page);
      if (page.length < size) break;
      const last = page.at(-1)!;
      cursor = [last.releasedOn, last.id];
    }
    expect(dates(seen)).toEqual(dates(all).reverse());
    expect(new Set(seen.map((row) => row.id)).size).toBe(SEEDED);
  });

  it.each([[3], [7], [35]])('backwards with endBefore + limitToLast, pages of %i (asc)', async (size) => {
    const pages: Entry[][] = [];
    let cursor: string | undefined;
    for (let count = 0; count <= SEEDED; count += 1) {
      const page = await entries({
        orderBy: [{ field: 'releasedOn' }],
        limitToLast: size,
        ...(cursor ? { endBefore: [cursor] } : {}),
      });
      if (page.length === 0) break;
      pages.unshift(page);
      if (page.length < size) break;
      cursor = page[0]!.releasedOn;
    }
    expect(dates(pages.flat())).toEqual(dates(all));
  });

  it('startAfter and endBefore together give the window between them', async () => {
    const page = await entries({
      orderBy: [{ field: 'releasedOn' }],
      startAfter: [all[9]!.releasedOn],
      endBefore: [all[15]!.releasedOn],
    });
    expect(dates(page)).toEqual(dates(all).slice(10, 15));
  });

  it('a cursor past the end gives an empty page', async () => {
    expect(await entries({ orderBy: [{ field: 'releasedOn' }], startAfter: ['2999-01-01'] })).toEqual([]);
  });
});

describe('listHistory: refused queries', () => {
  it.each<[string, unknown, string]>([
    ['an unknown field', { orderBy: [{ field: 'price_cents' }] }, 'Cannot order by price_cents. Allowed: releasedOn, year, title, id.'],
    ['a field path with forbidden characters', { orderBy: [{ field: 'a*b' }] }, fieldPathProblem('a*b')!],
    ['a field path with ..', { orderBy: [{ field: 'a..b' }] }, fieldPathProblem('a..b')!],
    ['an empty field path', { orderBy: [{ field: '' }] }, DATA_ACCESS_MESSAGES.emptyFieldPath],
    ['limitToLast without orderBy', { limitToLast: 3 }, DATA_ACCESS_MESSAGES.limitToLastNeedsOrder],
    ['limit and limitToLast', { orderBy: [{ field: 'year' }], limit: 3, limitToLast: 3 }, 'Use either limit or limitToLast, not both.'],
    ['a cursor longer than orderBy', { orderBy: [{ field: 'year' }], startAfter: [1999, 2] }, 'Too many values in startAfter: one per orderBy field.'],
  ])("%s -> 400 INVALID_ARGUMENT with the rule's own sentence", async (_name, query, message) => {
    expect(await errorOf(query)).toEqual({ status: 400, error: { status: 'INVALID_ARGUMENT', message } });
  });

  it.each<[string, unknown]>([
    ['limit 0', { limit: 0 }],
    ['limit 101', { limit: 101 }],
    ['limit 1.5', { limit: 1.5 }],
    ['an object as cursor value', { orderBy: [{ field: 'year' }], startAfter: [{ $gt: 0 }] }],
    ['a query that is not an object', 'releasedOn'],
  ])('%s -> 400 INVALID_ARGUMENT', async (_name, query) => {
    const { status, error } = await errorOf(query);
    expect([status, error.status]).toEqual([400, 'INVALID_ARGUMENT']);
  });

  it.each<[string, string, unknown]>([
    ['a date column', 'releasedOn', 'not a date'],
    ['a date column', 'releasedOn', '1993-02-30'],
    ['a date column', 'releasedOn', 1993],
    ['an integer column', 'year', '1999'],
    ['an integer column', 'year', 1999.5],
    ['an integer column', 'id', 2 ** 40],
    ['a text column', 'title', 7],
    ['a text column', 'title', true],
  ])('a cursor value that does not fit %s (%s = %j) -> 400, not a database error', async (_kind, field, value) => {
    const expected = `startAfter: ${JSON.stringify(value)} is not a valid ${field}.`;
    expect(await errorOf({ orderBy: [{ field }], startAfter: [value] })).toEqual({
      status: 400,
      error: { status: 'INVALID_ARGUMENT', message: expected },
    });
  });

  it.each<[string, unknown]>([
    ['releasedOn', '1996-02-29'],
    ['year', 1999],
    ['title', 'M'],
  ])('a cursor value that fits %s (%j) is accepted', async (field, value) => {
    await entries({ orderBy: [{ field }], startAfter: [value as string | number] });
  });
});
