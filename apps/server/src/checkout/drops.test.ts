import { eq, sql } from 'drizzle-orm';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectConsoleError } from '../../test/console.ts';
import { createTestDatabase, testConfig, type TestDatabase } from '../../test/database.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import { getProduct, releaseProduct } from '../catalog/catalog.service.ts';
import { unitsSoldOf } from '../orders/orders.service.ts';
import { setStock } from '../catalog/variants.service.ts';
import { connectDatabase } from '../db/client.ts';
import { checkouts, needsAttention, orders, paymentRefunds, productVariants } from '../db/schema/index.ts';
import { startJobQueue, type JobQueue } from '../jobs/queue.ts';
import { createLocalProvider } from '../payments/local.provider.ts';
import type { PaymentProvider } from '../payments/provider.ts';
import { grantCredits } from '../wallet/wallet.commands.ts';
import { getBalance } from '../wallet/wallet.service.ts';
import { cancelCheckout, completeWalletOnlyOrder, createPaymentLink, openPaymentOf, quoteCheckout, type CheckoutDeps } from './checkout.flow.ts';
import { applyPaymentEvent, expireCheckout } from './payment.flow.ts';
import { checkInvariant, reconcileCheckouts } from './reconcile.flow.ts';

/**
 * Issue 23: the drop's interleavings, forced deterministically, and the rules that keep a
 * drop fair (short holds released at their deadline, one open checkout per account, limits
 * per customer, a reconciler that heals and tells).
 */
let database: TestDatabase;
let jobs: JobQueue;
let deps: CheckoutDeps;
const buyers: string[] = [];
const contact = { name: 'Fan', email: 'fan@example.org', phone: '' };
const shipping = { name: 'Fan', line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };

let serial = 0;
async function limitedTee(stock: number, perCustomerLimit: number | null = null) {
  serial += 1;
  const id = await releaseProduct(database.db, {
    name: `Drop Tee ${serial}`,
    description: 'Tee',
    priceCents: 2500,
    images: ['/content/covers/cover-01.svg'],
    variants: [{ options: [], sku: `DROP-${serial}`, priceCents: null, stock, perCustomerLimit }],
  });
  const product = await getProduct(database.db, id, { includeInactive: false });
  return { id, variantId: product.variants[0]!.id, items: (qty = 1) => [{ id, variantId: product.variants[0]!.id, qty }] };
}
const variantRow = async (id: string) => (await database.db.select().from(productVariants).where(eq(productVariants.id, id)))[0]!;
const statusOf = async (id: string) => (await database.db.select({ status: checkouts.status }).from(checkouts).where(eq(checkouts.id, id)))[0]?.status;
const ordersOf = async (variantId: string) =>
  (await database.db.execute<{ n: number }>(sql`SELECT coalesce(sum(qty), 0)::int AS n FROM order_item WHERE variant_id = ${variantId}`)).rows[0]!.n;

async function walletOrder(d: CheckoutDeps, userId: string, items: { id: string; variantId?: string; qty: number }[], checkoutId: string) {
  const reviewed = await quoteCheckout(database.db, userId, items, true);
  return completeWalletOnlyOrder(d, userId, { items, contact, shipping, quote: reviewed, checkoutId });
}
const cardCheckout = (d: CheckoutDeps, userId: string, items: { id: string; variantId?: string; qty: number }[], checkoutId: string) =>
  createPaymentLink(d, userId, { items, useWallet: true, contact, shipping, checkoutId });
const paid = (checkoutId: string, eventId: string) =>
  applyPaymentEvent(deps, { eventId, type: 'succeeded', checkoutId, sessionId: null, paymentIntentId: `pi_${checkoutId}`, amountCents: null });

/** stock + held + sold, and held equal to what the open checkouts hold: the invariant of one variant. */
async function expectInvariant(variantId: string, received: number) {
  const row = await variantRow(variantId);
  expect(row.stock! + row.held + row.sold).toBe(received);
  const live = await database.db.execute<{ qty: number }>(sql`
    SELECT coalesce(sum((line->>'qty')::int), 0)::int AS qty FROM checkout c, jsonb_array_elements(c.items) line
    WHERE c.status = 'pending' AND (line->>'stockHeld')::boolean AND line->>'variantId' = ${variantId}`);
  expect(row.held).toBe(live.rows[0]!.qty);
  expect(row.sold).toBe(await ordersOf(variantId));
}

/** A point the paused connection stops at until the test lets it go. */
function gate() {
  const g = {} as { reached: Promise<void>; reach: () => void; go: () => void; wait: Promise<void> };
  g.reached = new Promise((resolve) => (g.reach = resolve));
  g.wait = new Promise((resolve) => (g.go = resolve));
  return g;
}

/**
 * A connection pool whose connections can be paused at issue 23's two points: before the
 * buyer's stock UPDATE (`beforeUpdate`), and before the first statement after that UPDATE
 * found too few (`afterShort`: it changed no row, or said so by raising SF001).
 */
function pausedAroundStockUpdate(connectionString: string) {
  const gates = { beforeUpdate: gate(), afterShort: gate() };
  const database = connectDatabase(connectionString, { max: 2 });
  database.pool.on('connect', (client: pg.PoolClient) => {
    const original = client.query.bind(client) as (...args: unknown[]) => Promise<pg.QueryResult>;
    let armed = false;
    let first = true;
    (client as unknown as { query: (...args: unknown[]) => Promise<pg.QueryResult> }).query = async (...args: unknown[]) => {
      const text = (typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string }).text) ?? '';
      // The statement that takes stock: an UPDATE of product_variant, or the function that makes it (sent with the commit).
      const stockUpdate = /^\s*update "product_variant"|storefront_take_stock/i.test(text);
      if (armed) {
        armed = false;
        gates.afterShort.reach();
        await gates.afterShort.wait;
      } else if (stockUpdate && first) {
        first = false;
        gates.beforeUpdate.reach();
        await gates.beforeUpdate.wait;
      }
      let result: pg.QueryResult;
      try {
        result = await original(...args);
      } catch (error) {
        // Found too few, said by raising (SQLSTATE SF001): the next statement is the window.
        if (stockUpdate && (error as { code?: string }).code === 'SF001') armed = true;
        throw error;
      }
      if (stockUpdate && result.rowCount === 0) armed = true;
      return result;
    };
  });
  return { database, gates };
}

beforeAll(async () => {
  database = await createTestDatabase({ max: 40 });
  const config = testConfig({ env: {} });
  for (let i = 0; i < 24; i += 1) {
    const email = `drop${i}@example.org`;
    const account = await createAccount(
      database.db,
      config,
      { email, username: `Drop${i}`, name: `Drop ${i}`, password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true },
      { emailVerified: true },
    );
    buyers.push(account.userId);
    // Even buyers can pay a tee with their wallet; odd ones have 10 dollars (a card checkout with a wallet part).
    await grantCredits(database.db, email, i % 2 === 0 ? '500' : '10', `drop-grant-${i}`);
  }
  jobs = await startJobQueue(database.db.$client, () => undefined);
  deps = { db: database.db, jobs, provider: createLocalProvider('drop-test-secret'), publicUrl: 'http://127.0.0.1:9' };
});

afterAll(async () => {
  await jobs?.stop();
  await database?.close();
});

describe('the interleaving of issue 23, forced', () => {
  // A holds the last unit; B's stock update finds none; A's hold ends and gives the unit back
  // before B's next statement. Decided by a second read, B would hold (or sell) a unit it never
  // took: a phantom hold, then a paid checkout of C with no order, or an oversell.
  for (const kind of ['card', 'wallet'] as const) {
    it(`a ${kind} buyer whose stock update found none is refused, even when a unit comes back before its next statement`, async () => {
      const tee = await limitedTee(1);
      const { database: paused, gates } = pausedAroundStockUpdate(database.connectionString);
      const bDeps = { ...deps, db: paused.db };
      // B has priced the cart (1 left) and is about to take it.
      const b = kind === 'card' ? cardCheckout(bDeps, buyers[3]!, tee.items(), `phantom-b-${kind}`) : walletOrder(bDeps, buyers[2]!, tee.items(), `phantom-b-${kind}`);
      const settled = b.then(
        () => 'made',
        (error: Error) => error.message,
      );
      await gates.beforeUpdate.reached;
      // A takes the last unit first.
      const holder = await cardCheckout(deps, buyers[1]!, tee.items(), `phantom-a-${kind}`);
      expect(await variantRow(tee.variantId)).toMatchObject({ stock: 0, held: 1 });
      gates.beforeUpdate.go();
      await gates.afterShort.reached;
      // A leaves: the unit is back while B is between its update and its next statement.
      expect(await cancelCheckout(deps, buyers[1]!, holder.checkoutId)).toBe(true);
      expect(await variantRow(tee.variantId)).toMatchObject({ stock: 1, held: 0 });
      gates.afterShort.go();
      expect(await settled).toBe(`"Drop Tee ${serial}" is sold out. Remove it from your cart to continue.`);
      await paused.close();
      await expectInvariant(tee.variantId, 1);
      // C really holds the unit now, pays, and gets the order: nothing of B's is in the way.
      const c = await cardCheckout(deps, buyers[5]!, tee.items(), `phantom-c-${kind}`);
      expect(await paid(c.checkoutId, `evt-phantom-c-${kind}`)).toBe('applied');
      expect(await statusOf(c.checkoutId)).toBe('paid');
      expect(await database.db.select().from(orders).where(eq(orders.checkoutId, c.checkoutId))).toHaveLength(1);
      await expectInvariant(tee.variantId, 1);
      expect(await checkInvariant(deps)).toBe(0);
    });
  }
});

describe('a verified payment always ends in an order or a refund', () => {
  it('a payment whose held units are gone (a broken invariant) is refunded once, flagged, and never fails again', async () => {
    const tee = await limitedTee(1);
    const link = await cardCheckout(deps, buyers[7]!, tee.items(), 'broken-hold');
    // Someone broke the invariant by hand: the held unit is gone.
    await database.db.update(productVariants).set({ held: 0 }).where(eq(productVariants.id, tee.variantId));
    const errors = expectConsoleError();
    expect(await paid(link.checkoutId, 'evt-broken-1')).toBe('applied');
    expect(await paid(link.checkoutId, 'evt-broken-2')).toBe('duplicate');
    expect(await statusOf(link.checkoutId)).toBe('refunded');
    expect(await database.db.select().from(orders).where(eq(orders.checkoutId, link.checkoutId))).toHaveLength(0);
    expect(await database.db.select().from(paymentRefunds).where(eq(paymentRefunds.checkoutId, link.checkoutId))).toHaveLength(1);
    const flagged = await database.db.select().from(needsAttention).where(eq(needsAttention.subject, link.checkoutId));
    expect(flagged.map((row) => row.kind)).toEqual(['capture-failed']);
    expect(errors).toHaveBeenCalled();
    // The wallet part came back to the buyer; nothing stays held.
    expect((await getBalance(database.db, buyers[7]!)).heldCents).toBe(0);
  });

  it('a payment whose held units are gone but stock is available takes them from the stock: an order', async () => {
    const tee = await limitedTee(3);
    const link = await cardCheckout(deps, buyers[9]!, tee.items(), 'moved-hold');
    await database.db.update(productVariants).set({ held: 0 }).where(eq(productVariants.id, tee.variantId));
    expect(await paid(link.checkoutId, 'evt-moved-1')).toBe('applied');
    expect(await statusOf(link.checkoutId)).toBe('paid');
    expect(await variantRow(tee.variantId)).toMatchObject({ stock: 1, held: 0, sold: 1 });
  });
});

describe('holds that cannot be hoarded', () => {
  it('a hold ends at its deadline by the job the checkout scheduled (no sweep needed), and the provider page is closed', async () => {
    const closed: string[] = [];
    const local = createLocalProvider('drop-test-secret');
    const provider: PaymentProvider = { ...local, expireSession: async (id) => void closed.push(id) };
    const short = { ...deps, provider, holdMs: 1500 };
    await jobs.work<{ checkoutId: string }>('expire-checkout', ({ checkoutId }) => expireCheckout(short, checkoutId).then(() => undefined));
    const tee = await limitedTee(2);
    const link = await cardCheckout(short, buyers[11]!, tee.items(2), 'deadline-1');
    expect(await variantRow(tee.variantId)).toMatchObject({ stock: 0, held: 2 });
    const started = Date.now();
    for (;;) {
      if ((await statusOf(link.checkoutId)) === 'expired') break;
      expect(Date.now() - started).toBeLessThan(15_000);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await variantRow(tee.variantId)).toMatchObject({ stock: 2, held: 0 });
    expect((await getBalance(database.db, buyers[11]!)).heldCents).toBe(0);
    // A payment that arrives after the deadline goes the late-payment way: the units are still there, so an order.
    expect(await paid(link.checkoutId, 'evt-deadline-late')).toBe('applied');
    expect(await statusOf(link.checkoutId)).toBe('paid');
    await expectInvariant(tee.variantId, 2);
  });

  it('one open card checkout per account: ten at once leave exactly one open, holding once', async () => {
    const tee = await limitedTee(20);
    const buyer = buyers[13]!;
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => cardCheckout(deps, buyer, tee.items(2), `hoard-${i}`)));
    expect(results.every((result) => result.status === 'fulfilled')).toBe(true);
    const open = await database.db
      .select()
      .from(checkouts)
      .where(sql`${checkouts.userId} = ${buyer} AND ${checkouts.status} = 'pending'`);
    expect(open).toHaveLength(1);
    expect(await variantRow(tee.variantId)).toMatchObject({ stock: 18, held: 2 });
    const wallet = await getBalance(database.db, buyer);
    expect(wallet.heldCents).toBe(open[0]!.walletHeldCents);
    await expectInvariant(tee.variantId, 20);
    // /checkout sees it, with the wallet part it holds, and can cancel it.
    const seen = await openPaymentOf(deps, buyer);
    expect(seen.checkout).toMatchObject({ checkoutId: open[0]!.id, walletHeldCents: open[0]!.walletHeldCents, chargeCents: open[0]!.chargeCents });
    expect(await cancelCheckout(deps, buyer, open[0]!.id)).toBe(true);
    expect((await openPaymentOf(deps, buyer)).checkout).toBeNull();
    expect(await variantRow(tee.variantId)).toMatchObject({ stock: 20, held: 0 });
  });

  it('"limit 2 per customer" counts orders and the open checkout, under concurrency', async () => {
    const tee = await limitedTee(50, 2);
    const buyer = buyers[14]!;
    const results = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => walletOrder(deps, buyer, tee.items(), `limit-${i}`)));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(2);
    for (const result of results) {
      if (result.status === 'rejected')
        expect((result.reason as Error).message).toBe(`"Drop Tee ${serial}" is limited to 2 per customer and you already have 2. Remove it from your cart to continue.`);
    }
    const other = buyers[15]!;
    const held = await cardCheckout(deps, other, tee.items(2), 'limit-card-1');
    // The open checkout counts: a wallet order of one more is refused while it holds two.
    await expect(walletOrder(deps, buyers[16]!, tee.items(3), 'limit-3')).rejects.toMatchObject({
      message: `"Drop Tee ${serial}" is limited to 2 per customer: you can buy 2 more. Reduce the quantity to continue.`,
    });
    await grantCredits(database.db, 'drop15@example.org', '500', 'drop-limit-top-up');
    await expect(walletOrder(deps, other, tee.items(1), 'limit-4')).rejects.toMatchObject({ details: { overLimit: [{ limit: 2, already: 2 }] } });
    // A new card checkout replaces the open one, so it may take the two again.
    await createPaymentLink(deps, other, { items: tee.items(2), useWallet: false, contact, shipping, checkoutId: 'limit-card-2' });
    expect(await statusOf(held.checkoutId)).toBe('cancelled');
    await expectInvariant(tee.variantId, 50);
  });
});

describe('the reconciler heals and tells', () => {
  it('ends every hold past its deadline, oldest first, each on its own: one that fails does not stop the rest', async () => {
    const tee = await limitedTee(10);
    const links = [];
    for (const i of [17, 19, 21, 23]) links.push(await cardCheckout(deps, buyers[i]!, tee.items(), `stale-${i}`));
    // Past their deadlines (as after a crash of the job's process); one of them cannot be closed at the provider.
    await database.db.execute(sql`UPDATE checkout SET expires_at = now() - interval '1 hour' WHERE id LIKE '%stale-%'`);
    const stuck = links[1]!.checkoutId;
    const failing: PaymentProvider = {
      ...(deps.provider as PaymentProvider),
      name: 'stripe',
      expireSession: async (id) => {
        if (id === (await database.db.select().from(checkouts).where(eq(checkouts.id, stuck)))[0]!.providerSessionId) throw new Error('provider unavailable');
      },
      sessionState: async () => ({ state: 'open', paymentIntentId: null }),
    };
    const errors = expectConsoleError();
    const report = await reconcileCheckouts({ ...deps, provider: failing });
    expect(report).toMatchObject({ expired: 3, failed: 1 });
    expect(errors).toHaveBeenCalled();
    for (const link of links) expect(await statusOf(link.checkoutId)).toBe(link.checkoutId === stuck ? 'pending' : 'expired');
    const flagged = await database.db.select().from(needsAttention).where(eq(needsAttention.subject, stuck));
    expect(flagged.map((row) => row.kind)).toEqual(['checkout-stuck']);
    // The next run, with the provider back, ends it too.
    expect(await reconcileCheckouts(deps)).toMatchObject({ expired: 1, failed: 0 });
    await expectInvariant(tee.variantId, 10);
  });

  it('puts a variant held count right against the open checkouts, and records it for a person', async () => {
    const tee = await limitedTee(5);
    await cardCheckout(deps, buyers[1]!, tee.items(2), 'heal-1');
    // A unit held with no live checkout behind it.
    await database.db.execute(sql`UPDATE product_variant SET held = held + 1, stock = stock - 1 WHERE id = ${tee.variantId}`);
    const errors = expectConsoleError();
    expect(await checkInvariant(deps)).toBeGreaterThanOrEqual(1);
    expect(errors).toHaveBeenCalled();
    expect(await variantRow(tee.variantId)).toMatchObject({ stock: 3, held: 2 });
    const [flag] = await database.db.select().from(needsAttention).where(eq(needsAttention.subject, tee.variantId));
    expect(flag).toMatchObject({ kind: 'stock-held', healed: true });
    await expectInvariant(tee.variantId, 5);
  });

  it('a variant sold unlimited, then given stock, counts what its orders bought: no false finding', async () => {
    // Found by the hostile-input run: an unlimited variant with orders, restocked, then checked.
    const tee = await limitedTee(3);
    await setStock(database.db, { operator: 'cli' }, { variantId: tee.variantId, stock: null, reason: 'print on demand' }, unitsSoldOf);
    await walletOrder(deps, buyers[0]!, tee.items(2), 'unlimited-then-counted-1');
    await setStock(database.db, { operator: 'cli' }, { variantId: tee.variantId, stock: 4, reason: 'restock' }, unitsSoldOf);
    expect(await variantRow(tee.variantId)).toMatchObject({ stock: 4, held: 0, sold: 2 });
    expect(await checkInvariant(deps)).toBe(0);
    await walletOrder(deps, buyers[2]!, tee.items(1), 'unlimited-then-counted-2');
    // Restocked to 4 with 2 sold before: 6 units received in all.
    await expectInvariant(tee.variantId, 6);
  });
});
