import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testConfig, type TestDatabase } from '../../test/database.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import { orders } from '../db/schema/index.ts';
import { listOpenOrders, listOrdersOf, type OrderView, type Page } from './orders.service.ts';

let database: TestDatabase;
let buyer: string;
let other: string;

/** Orders with many equal timestamps, so pages must break ties by id. */
const CREATED = ['2026-03-01T10:00:00.000Z', '2026-03-01T10:00:00.000Z', '2026-03-01T10:00:00.000Z', '2026-02-01T09:00:00.500Z', '2026-02-01T09:00:00.500Z', '2026-01-15T08:00:00.000Z', '2026-01-01T00:00:00.000Z'];

function orderRow(id: string, userId: string, createdAt: string, orderFulfilled: boolean) {
  const contact = { name: 'Fan', email: 'fan@example.org', phone: '' };
  return { id, userId, checkoutId: `c_${id}`, paymentIntentId: `pi_${id}`, subtotalCents: 100, shippingCents: 999, taxCents: 101, walletAppliedCents: 1200, chargedCents: 0, contact, shipping: { name: 'Fan', line1: '1 Main St', city: 'X', postal_code: '1', country: 'US' }, orderFulfilled, createdAt: new Date(createdAt) };
}

async function everyPage(read: (after: string | undefined) => Promise<Page<OrderView>>): Promise<string[]> {
  const ids: string[] = [];
  let after: string | undefined;
  for (let pages = 0; pages < 50; pages += 1) {
    const page = await read(after);
    ids.push(...page.items.map((item) => item.id));
    if (!page.next) return ids;
    after = page.next;
  }
  throw new Error('Paging did not end');
}

beforeAll(async () => {
  database = await createTestDatabase();
  const config = testConfig();
  const account = (email: string, username: string) => ({ email, username, name: username, password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true });
  buyer = (await createAccount(database.db, config, account('buyer@example.org', 'Buyer'), { emailVerified: true })).userId;
  other = (await createAccount(database.db, config, account('other@example.org', 'Other'), { emailVerified: true })).userId;
  await database.db.insert(orders).values([
    ...CREATED.map((at, i) => orderRow(`o_b${i}`, buyer, at, i % 3 === 0)),
    ...CREATED.map((at, i) => orderRow(`o_x${i}`, other, at, i % 2 === 0)),
  ]);
});

afterAll(async () => {
  await database?.close();
});

// Newest first; equal times by id, highest first.
const newestFirst = (rows: { id: string; at: string }[]) =>
  rows.sort((a, b) => (a.at === b.at ? (a.id < b.id ? 1 : -1) : a.at < b.at ? 1 : -1)).map((row) => row.id);

describe('order lists, a page at a time', () => {
  it.each([1, 2, 3, 20])('My Orders in pages of %i: every own order once, newest first', async (limit) => {
    const expected = newestFirst(CREATED.map((at, i) => ({ id: `o_b${i}`, at })));
    expect(await everyPage((after) => listOrdersOf(database.db, buyer, { limit, after }))).toEqual(expected);
  });

  it.each([1, 2, 5])('View Orders in pages of %i: every open order once, newest first', async (limit) => {
    const open = [
      ...CREATED.map((at, i) => ({ id: `o_b${i}`, at, open: i % 3 !== 0 })),
      ...CREATED.map((at, i) => ({ id: `o_x${i}`, at, open: i % 2 !== 0 })),
    ].filter((row) => row.open);
    expect(await everyPage((after) => listOpenOrders(database.db, { limit, after }))).toEqual(newestFirst(open));
  });

  it('refuses a cursor that is not one', async () => {
    await expect(listOrdersOf(database.db, buyer, { limit: 2, after: 'yesterday' })).rejects.toThrow('That page cursor is not valid.');
  });
});
