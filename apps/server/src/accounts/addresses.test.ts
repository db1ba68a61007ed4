import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testConfig, type TestDatabase } from '../../test/database.ts';
import { runTransaction } from '../db/transaction.ts';
import { createAccount } from './accounts.service.ts';
import { listSavedAddresses, MAX_SAVED_ADDRESSES, rememberAddress } from './addresses.service.ts';

let database: TestDatabase;
let userId: string;
let otherId: string;

const address = (line1: string) => ({ name: 'Ann Buyer', line1, line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' });
const remember = (user: string, line1: string) => runTransaction(database.db, (tx) => rememberAddress(tx, user, address(line1)));
const lines = async (user: string) => (await listSavedAddresses(database.db, user)).addresses.map((a) => a.line1);

beforeAll(async () => {
  database = await createTestDatabase();
  const form = (name: string) => ({ email: `${name}@example.org`, username: name, name, password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true });
  userId = (await createAccount(database.db, testConfig(), form('addressee'), { emailVerified: true })).userId;
  otherId = (await createAccount(database.db, testConfig(), form('neighbour'), { emailVerified: true })).userId;
});

afterAll(async () => {
  await database?.close();
});

describe('saved shipping addresses', () => {
  it('keeps each address once, the last used first, at most ten, per user', async () => {
    await remember(userId, '1 Main St');
    await remember(userId, '2 Side St');
    expect(await lines(userId)).toEqual(['2 Side St', '1 Main St']);
    // The same address again (any case) moves to the top instead of being added.
    await runTransaction(database.db, (tx) => rememberAddress(tx, userId, { ...address('1 MAIN ST'), city: 'springfield' }));
    expect(await lines(userId)).toEqual(['1 MAIN ST', '2 Side St']);
    for (let i = 0; i < 12; i += 1) await remember(userId, `${i + 10} Long Rd`);
    const kept = await lines(userId);
    expect(kept).toHaveLength(MAX_SAVED_ADDRESSES);
    expect(kept[0]).toBe('21 Long Rd');
    expect(kept).not.toContain('2 Side St');
    expect(await lines(otherId)).toEqual([]);
  });
});
