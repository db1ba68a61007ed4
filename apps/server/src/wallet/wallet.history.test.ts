import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testConfig, type TestDatabase } from '../../test/database.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import { orderRefunds, orders } from '../db/schema/index.ts';
import { runTransaction } from '../db/transaction.ts';
import { grantCredits } from './wallet.commands.ts';
import { listWalletHistory } from './wallet-history.service.ts';
import { capture, credit, debit, hold, release } from './wallet.service.ts';

let database: TestDatabase;
let userId: string;
let otherId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  const form = (name: string) => ({ email: `${name}@example.org`, username: name, name, password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true });
  userId = (await createAccount(database.db, testConfig(), form('historian'), { emailVerified: true })).userId;
  otherId = (await createAccount(database.db, testConfig(), form('stranger'), { emailVerified: true })).userId;
  await grantCredits(database.db, 'historian@example.org', '50.00', 'grant-1');
  await grantCredits(database.db, 'stranger@example.org', '5.00', 'grant-other');
  const tx = (work: Parameters<typeof runTransaction>[1]) => runTransaction(database.db, work, { isolationLevel: 'read committed' });
  // A wallet-only order: its debit names the order.
  await tx(async (t) => {
    await t.insert(orders).values({
      id: 'o_hist_1',
      userId,
      checkoutId: 'wallet:c1',
      paymentIntentId: 'wallet_pi_1',
      subtotalCents: 1000,
      shippingCents: 0,
      taxCents: 0,
      walletAppliedCents: 1000,
      chargedCents: 0,
      contact: { name: 'H', email: 'h@example.org', phone: '' },
      shipping: {},
    });
    await debit(t, userId, 1000, 'o_hist_1');
  });
  // A card checkout left unpaid: its hold and release name the checkout, which has no order.
  await tx((t) => hold(t, userId, 700, 'c_left'));
  await tx((t) => release(t, userId, 700, 'c_left'));
  // A card checkout that became an order: the hold names the checkout, whose order links it.
  await tx(async (t) => {
    await hold(t, userId, 300, 'c_paid');
    await t.insert(orders).values({
      id: 'o_hist_2',
      userId,
      checkoutId: 'c_paid',
      paymentIntentId: 'pi_card_2',
      subtotalCents: 2000,
      shippingCents: 0,
      taxCents: 0,
      walletAppliedCents: 300,
      chargedCents: 1700,
      contact: { name: 'H', email: 'h@example.org', phone: '' },
      shipping: {},
    });
  });
  // A card checkout paid and captured, then partly refunded from the desk: the capture is the
  // purchase, the refund's credit names its order through the desk refund.
  await tx(async (t) => {
    await hold(t, userId, 200, 'c_done');
    await t.insert(orders).values({
      id: 'o_hist_3',
      userId,
      checkoutId: 'c_done',
      paymentIntentId: 'pi_card_3',
      subtotalCents: 1000,
      shippingCents: 0,
      taxCents: 0,
      walletAppliedCents: 200,
      chargedCents: 900,
      contact: { name: 'H', email: 'h@example.org', phone: '' },
      shipping: {},
    });
    await capture(t, userId, 200, 'c_done');
  });
  await tx(async (t) => {
    await t
      .insert(orderRefunds)
      .values({ id: 'rf_hist', orderId: 'o_hist_3', idempotencyKey: 'hist-refund', adminId: otherId, walletCents: 50, cardCents: 250, lines: [], status: 'succeeded' });
    await credit(t, userId, 50, 'refund:rf_hist', 'refund', 'refund of order o_hist_3');
  });
});

afterAll(async () => {
  await database?.close();
});

describe('wallet history', () => {
  // Issue 29 item 7: no "On hold" / "Hold released" pairs; a hold only while it is open; refunds name their order.
  it('lists credits, purchases, refunds with their orders and open holds only, newest first, with the balance after each', async () => {
    const { entries, next } = await listWalletHistory(database.db, userId, {});
    expect(next).toBeNull();
    expect(entries.map((e) => [e.kind, e.amountCents, e.heldCents, e.balanceCents, e.order?.id ?? null])).toEqual([
      ['refund', 50, 0, 3550, 'o_hist_3'],
      ['capture', 0, -200, 3500, 'o_hist_3'],
      // Still open (its checkout is waiting for the card): shown, with the balance it took.
      ['hold', -300, 300, 3700, 'o_hist_2'],
      // The released hold of c_left and its release are not lines: the balance goes on from 4000.
      ['debit', -1000, 0, 4000, 'o_hist_1'],
      ['grant', 5000, 0, 5000, null],
    ]);
    expect(entries[0]!.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('pages with a cursor, the running balance continuing across pages', async () => {
    const all = (await listWalletHistory(database.db, userId, {})).entries;
    const seen: typeof all = [];
    let after: number | undefined;
    for (let i = 0; i < 10; i += 1) {
      const page = await listWalletHistory(database.db, userId, { limit: 2, after });
      seen.push(...page.entries);
      if (page.next === null) break;
      after = page.next;
    }
    expect(seen).toEqual(all);
  });

  it('shows each user only their own entries', async () => {
    const { entries } = await listWalletHistory(database.db, otherId, {});
    expect(entries.map((e) => [e.kind, e.amountCents, e.balanceCents])).toEqual([['grant', 500, 500]]);
    // A cursor from someone else's history reads only the caller's older entries.
    const theirs = (await listWalletHistory(database.db, userId, {})).entries[0]!.id;
    expect((await listWalletHistory(database.db, otherId, { after: theirs + 1 })).entries).toHaveLength(1);
  });
});
