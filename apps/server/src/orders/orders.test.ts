import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testConfig, type TestDatabase } from '../../test/database.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import { orders } from '../db/schema/index.ts';
import { listOpenOrders, listOrdersOf, type OrderView, type Page } from './order-views.service.ts';

let database: TestDatabase;
let buyer: string;
let other: string;

/** Orders with many equal timestamps, so pages must break ties by id. */
const CREATED = [
  '2026-03-01T10:00:00.000Z',
  '2026-03-01T10:00:00.000Z',
  '2026-03-01T10:00:00.000Z',
  '2026-02-01T09:00:00.500Z',
  '2026-02-01T09:00:00.500Z',
  '2026-01-15T08:00:00.000Z',
  '2026-01-01T00:00:00.000Z',
];

function orderRow(id: string, userId: string, createdAt: string, orderFulfilled: boolean) {
  const contact = { name: 'Fan', email: 'fan@example.org', phone: '' };
  return {
    id,
    userId,
    checkoutId: `c_${id}`,
    paymentIntentId: `pi_${id}`,
    subtotalCents: 100,
    shippingCents: 999,
    taxCents: 101,
    walletAppliedCents: 1200,
    chargedCents: 0,
    contact,
    shipping: { name: 'Fan', line1: '1 Main St', city: 'X', postal_code: '1', country: 'US' },
    orderFulfilled,
    createdAt: new Date(createdAt),
  };
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
  await database.db
    .insert(orders)
    .values([...CREATED.map((at, i) => orderRow(`o_b${i}`, buyer, at, i % 3 === 0)), ...CREATED.map((at, i) => orderRow(`o_x${i}`, other, at, i % 2 === 0))]);
});

afterAll(async () => {
  await database?.close();
});

// Newest first; equal times by id, highest first.
const newestFirst = (rows: { id: string; at: string }[]) => rows.sort((a, b) => (a.at === b.at ? (a.id < b.id ? 1 : -1) : a.at < b.at ? 1 : -1)).map((row) => row.id);

describe('order lists, a page at a time', () => {
  it.each([1, 2, 3, 20])('My Orders in pages of %i: every own order once, newest first', async (limit) => {
    const expected = newestFirst(CREATED.map((at, i) => ({ id: `o_b${i}`, at })));
    expect(await everyPage((after) => listOrdersOf(database.db, buyer, { limit, after }))).toEqual(expected);
  });

  it.each([1, 2, 5])('View Orders in pages of %i: every open order once, newest first', async (limit) => {
    const open = [...CREATED.map((at, i) => ({ id: `o_b${i}`, at, open: i % 3 !== 0 })), ...CREATED.map((at, i) => ({ id: `o_x${i}`, at, open: i % 2 !== 0 }))].filter(
      (row) => row.open,
    );
    expect(await everyPage((after) => listOpenOrders(database.db, { limit, after }))).toEqual(newestFirst(open));
  });

  it('takes the extremes of the cursor format without a database error', async () => {
    expect((await listOrdersOf(database.db, buyer, { limit: 20, after: '9999999999999999|zzz' })).items).toHaveLength(CREATED.length);
    expect((await listOrdersOf(database.db, buyer, { limit: 20, after: '-9999999999999999|a' })).items).toEqual([]);
    expect((await listOrdersOf(database.db, buyer, { limit: 20, after: '-1|a' })).items).toEqual([]);
  });

  it('refuses a cursor that is not one', async () => {
    await expect(listOrdersOf(database.db, buyer, { limit: 2, after: 'yesterday' })).rejects.toThrow('That page cursor is not valid.');
    await expect(listOrdersOf(database.db, buyer, { limit: 2, after: '2026-03-01T10:00:00.000Z|o_b1' })).rejects.toThrow('That page cursor is not valid.');
  });
});

/** Orders made within one millisecond (a JS Date cannot tell them apart), two at the same microsecond. */
const WITHIN_ONE_MS = [
  '2026-04-01T12:00:00.123001Z',
  '2026-04-01T12:00:00.123002Z',
  '2026-04-01T12:00:00.123456Z',
  '2026-04-01T12:00:00.123456Z',
  '2026-04-01T12:00:00.123457Z',
  '2026-04-01T12:00:00.123999Z',
];

describe('order lists, orders made within one millisecond', () => {
  let quick: string;
  beforeAll(async () => {
    const config = testConfig();
    quick = (
      await createAccount(
        database.db,
        config,
        { email: 'quick@example.org', username: 'Quick', name: 'Quick', password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true },
        { emailVerified: true },
      )
    ).userId;
    await database.db.insert(orders).values(WITHIN_ONE_MS.map((at, i) => ({ ...orderRow(`o_q${i}`, quick, at, false), createdAt: sql`${at}::timestamptz` })));
  });

  /** Every open order as Postgres orders them, newest first, to check the pages against. */
  async function openOrdersInOrder(): Promise<string[]> {
    const { rows } = await database.pool.query<{ id: string }>('SELECT id FROM "order" WHERE NOT order_fulfilled ORDER BY created_at DESC, id DESC');
    return rows.map((row) => row.id);
  }

  it.each([1, 2])('My Orders and View Orders in pages of %i: each order once, newest first', async (limit) => {
    const expected = newestFirst(WITHIN_ONE_MS.map((at, i) => ({ id: `o_q${i}`, at })));
    expect(await everyPage((after) => listOrdersOf(database.db, quick, { limit, after }))).toEqual(expected);
    const open = await everyPage((after) => listOpenOrders(database.db, { limit, after }));
    expect(open).toEqual(await openOrdersInOrder());
    expect(open.filter((id) => id.startsWith('o_q'))).toEqual(expected);
  });
});
