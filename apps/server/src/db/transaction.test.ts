import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DATA_ACCESS_MESSAGES } from '@storefront/domain/messages.ts';
import { createTestDatabase, type TestDatabase } from '../../test/database.ts';
import { AppError } from '../errors.ts';
import { isRetryableTransactionError, runTransaction, type Tx } from './transaction.ts';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
  await database.db.execute(sql`CREATE TABLE counters (id int PRIMARY KEY, value int NOT NULL)`);
});

afterAll(async () => {
  await database?.close();
});

beforeEach(async () => {
  await database.db.execute(sql`TRUNCATE counters`);
  await database.db.execute(sql`INSERT INTO counters (id, value) VALUES (1, 0)`);
});

async function counter(): Promise<number> {
  const result = await database.db.execute<{ value: number }>(sql`SELECT value FROM counters WHERE id = 1`);
  return result.rows[0]!.value;
}

/** Resolves once `parties` callers are waiting on it: lines transactions up without sleeps. */
function barrier(parties: number): () => Promise<void> {
  let waiting = 0;
  let release!: () => void;
  const open = new Promise<void>((resolve) => (release = resolve));
  return () => {
    waiting += 1;
    if (waiting === parties) release();
    return open;
  };
}

/** Read, wait until the other transaction has read too (first attempt only), then write. */
function readModifyWrite(meet: () => Promise<void>, attempts: number[]) {
  return async (tx: Tx, attempt: number) => {
    attempts.push(attempt);
    const result = await tx.execute<{ value: number }>(sql`SELECT value FROM counters WHERE id = 1`);
    const value = result.rows[0]!.value;
    if (attempt === 1) await meet();
    await tx.execute(sql`UPDATE counters SET value = ${value + 1} WHERE id = 1`);
    return value + 1;
  };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('runTransaction: maxAttempts (spec section 5)', () => {
  it.each([[0], [-1], [1.5], [Number.NaN]])('maxAttempts %s -> invalid-argument', async (maxAttempts) => {
    let calls = 0;
    const error = await rejection(runTransaction(database.db, async () => void (calls += 1), { maxAttempts }));
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('invalid-argument');
    expect((error as AppError).message).toBe('maxAttempts must be at least 1.');
    expect((error as AppError).message).toBe(DATA_ACCESS_MESSAGES.maxAttempts);
    expect(calls).toBe(0);
  });

  it('maxAttempts 1 runs the function once and returns its value', async () => {
    await expect(runTransaction(database.db, async () => 'done', { maxAttempts: 1 })).resolves.toBe('done');
  });
});

describe('runTransaction: conflicting serializable transactions', () => {
  it('both commit after a retry, and the final value counts both', async () => {
    const meet = barrier(2);
    const attemptsA: number[] = [];
    const attemptsB: number[] = [];
    const results = await Promise.all([runTransaction(database.db, readModifyWrite(meet, attemptsA)), runTransaction(database.db, readModifyWrite(meet, attemptsB))]);
    expect(results.sort()).toEqual([1, 2]);
    expect(await counter()).toBe(2);
    // One of them read a value the other then changed: it had to run again.
    expect([attemptsA.length, attemptsB.length].sort()).toEqual([1, 2]);
  });

  it('with maxAttempts 1 the loser gets aborted and changes nothing', async () => {
    const meet = barrier(2);
    const settled = await Promise.allSettled([
      runTransaction(database.db, readModifyWrite(meet, []), { maxAttempts: 1 }),
      runTransaction(database.db, readModifyWrite(meet, []), { maxAttempts: 1 }),
    ]);
    const fulfilled = settled.filter((outcome) => outcome.status === 'fulfilled');
    const rejected = settled.filter((outcome) => outcome.status === 'rejected');
    expect(fulfilled).toHaveLength(1);
    expect(rejected).toHaveLength(1);
    const reason: unknown = (rejected[0] as PromiseRejectedResult).reason;
    expect(reason).toBeInstanceOf(AppError);
    expect((reason as AppError).code).toBe('aborted');
    expect(await counter()).toBe(1);
  });
});

describe('runTransaction: what is retried', () => {
  const serializationFailure = () => Object.assign(new Error('could not serialize access'), { code: '40001' });
  const deadlock = () => Object.assign(new Error('wrapped'), { cause: Object.assign(new Error('deadlock detected'), { code: '40P01' }) });

  it.each<[string, () => Error]>([
    ['a serialization failure (40001)', serializationFailure],
    ['a deadlock wrapped as a cause (40P01)', deadlock],
  ])('retries %s until it succeeds', async (_name, makeError) => {
    let calls = 0;
    const result = await runTransaction(database.db, async (tx) => {
      calls += 1;
      await tx.execute(sql`UPDATE counters SET value = value + 1 WHERE id = 1`);
      if (calls < 3) throw makeError();
      return 'ok';
    });
    expect(result).toBe('ok');
    expect(calls).toBe(3);
    // The failed attempts were rolled back: only the last one's write stayed.
    expect(await counter()).toBe(1);
  });

  it('gives up after maxAttempts with aborted', async () => {
    let calls = 0;
    const error = await rejection(
      runTransaction(
        database.db,
        async () => {
          calls += 1;
          throw serializationFailure();
        },
        { maxAttempts: 3 },
      ),
    );
    expect(calls).toBe(3);
    expect((error as AppError).code).toBe('aborted');
  });

  it.each<[string, (tx: Tx) => Promise<unknown>, (error: unknown) => void]>([
    [
      'a plain Error',
      async () => {
        throw new Error('boom');
      },
      (error) => expect((error as Error).message).toBe('boom'),
    ],
    [
      'an AppError',
      async () => {
        throw new AppError('failed-precondition', 'Cart changed.');
      },
      (error) => expect((error as AppError).code).toBe('failed-precondition'),
    ],
    [
      'a unique violation from Postgres (23505)',
      (tx) => tx.execute(sql`INSERT INTO counters (id, value) VALUES (1, 5)`),
      (error) => expect(isRetryableTransactionError(error)).toBe(false),
    ],
    [
      'a network error (ECONNRESET)',
      async () => {
        throw Object.assign(new Error('odd'), { code: 'ECONNRESET' });
      },
      (error) => expect((error as Error).message).toBe('odd'),
    ],
  ])('does not retry %s', async (_name, body, check) => {
    let calls = 0;
    const error = await rejection(
      runTransaction(database.db, async (tx) => {
        calls += 1;
        await tx.execute(sql`UPDATE counters SET value = value + 1 WHERE id = 1`);
        return body(tx);
      }),
    );
    expect(error).toBeDefined();
    check(error);
    expect(calls).toBe(1);
    expect(await counter()).toBe(0);
  });
});
