import { describe, expect, it } from 'vitest';
import { fieldPathProblem, fieldPathSchema, listQuerySchema, MAX_PAGE_SIZE } from './field-path.ts';
import { DATA_ACCESS_MESSAGES } from './messages.ts';

const FORBIDDEN = "Paths must not contain '~', '*', '/', '[', or ']'.";
const DOTS = "Paths must not start or end with '.', or contain '..'.";

describe('field paths (spec section 5, database client)', () => {
  it.each(['a', 'a.b', 'price_cents', 'releasedOn', 'a.b.c', 'a-b', 'ünïcode'])('accepts %j', (path) => {
    expect(fieldPathProblem(path)).toBeUndefined();
    expect(fieldPathSchema.safeParse(path).success).toBe(true);
  });

  it.each<[string, string]>([
    ['', DATA_ACCESS_MESSAGES.emptyFieldPath],
    ['a~b', `Invalid field path (a~b). ${FORBIDDEN}`],
    ['a*', `Invalid field path (a*). ${FORBIDDEN}`],
    ['a/b', `Invalid field path (a/b). ${FORBIDDEN}`],
    ['a[0]', `Invalid field path (a[0]). ${FORBIDDEN}`],
    ['a]', `Invalid field path (a]). ${FORBIDDEN}`],
    ['.a', `Invalid field path (.a). ${DOTS}`],
    ['a.', `Invalid field path (a.). ${DOTS}`],
    ['a..b', `Invalid field path (a..b). ${DOTS}`],
    ['.', `Invalid field path (.). ${DOTS}`],
  ])('refuses %j', (path, message) => {
    expect(fieldPathProblem(path)).toBe(message);
    const parsed = fieldPathSchema.safeParse(path);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe(message);
  });
});

function problems(input: unknown): { path: string; message: string }[] {
  const parsed = listQuerySchema.safeParse(input);
  return parsed.success ? [] : parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
}

describe('list queries', () => {
  it('fills in the defaults', () => {
    expect(listQuerySchema.parse({})).toEqual({ orderBy: [] });
    expect(listQuerySchema.parse({ orderBy: [{ field: 'year' }] })).toEqual({
      orderBy: [{ field: 'year', direction: 'asc' }],
    });
  });

  it.each([
    { limit: 1 },
    { limit: MAX_PAGE_SIZE },
    { orderBy: [{ field: 'year', direction: 'desc' }], limitToLast: 5 },
    { orderBy: [{ field: 'year' }, { field: 'id' }], startAfter: [1999, 3], endBefore: [2005] },
    { orderBy: [{ field: 'title' }], startAfter: ['M'] },
  ])('accepts %j', (query) => {
    expect(problems(query)).toEqual([]);
  });

  it.each<[string, unknown, { path: string; message: string }]>([
    ['limitToLast without orderBy', { limitToLast: 3 }, { path: 'limitToLast', message: DATA_ACCESS_MESSAGES.limitToLastNeedsOrder }],
    ['limit and limitToLast together', { orderBy: [{ field: 'year' }], limit: 3, limitToLast: 3 }, { path: 'limit', message: 'Use either limit or limitToLast, not both.' }],
    [
      'a startAfter cursor longer than orderBy',
      { orderBy: [{ field: 'year' }], startAfter: [1999, 3] },
      { path: 'startAfter', message: 'Too many values in startAfter: one per orderBy field.' },
    ],
    ['an endBefore cursor with no orderBy', { endBefore: ['x'] }, { path: 'endBefore', message: 'Too many values in endBefore: one per orderBy field.' }],
    ['a bad field path in orderBy', { orderBy: [{ field: 'a..b' }] }, { path: 'orderBy.0.field', message: `Invalid field path (a..b). ${DOTS}` }],
  ])('refuses %s', (_name, query, problem) => {
    expect(problems(query)).toContainEqual(problem);
  });

  it('words the limitToLast rule exactly as the client library does', () => {
    expect(DATA_ACCESS_MESSAGES.limitToLastNeedsOrder).toBe('limitToLast() queries require specifying at least one orderBy() clause.');
  });

  it.each<[string, unknown]>([
    ['limit 0', { limit: 0 }],
    ['limit 101', { limit: 101 }],
    ['limit 1.5', { limit: 1.5 }],
    ['limit "5"', { limit: '5' }],
    ['limitToLast 0', { orderBy: [{ field: 'year' }], limitToLast: 0 }],
    ['limitToLast 101', { orderBy: [{ field: 'year' }], limitToLast: 101 }],
    ['an unknown key', { where: 'x' }],
    ['an unknown direction', { orderBy: [{ field: 'year', direction: 'up' }] }],
    ['five orderBy fields', { orderBy: ['a', 'b', 'c', 'd', 'e'].map((field) => ({ field })) }],
    ['an object as cursor value', { orderBy: [{ field: 'year' }], startAfter: [{ $gt: 1 }] }],
    ['an infinite cursor value', { orderBy: [{ field: 'year' }], startAfter: [Infinity] }],
  ])('refuses %s', (_name, query) => {
    expect(listQuerySchema.safeParse(query).success).toBe(false);
  });
});
