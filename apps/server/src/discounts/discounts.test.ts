import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISCOUNT_MESSAGES } from '@storefront/domain/discounts.ts';
import { quote } from '@storefront/domain/pricing.ts';
import { expectConsoleError } from '../../test/console.ts';
import { createTestDatabase, testConfig, type TestDatabase } from '../../test/database.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import { getProduct, releaseProduct } from '../catalog/catalog.service.ts';
import { cancelCheckout, completeWalletOnlyOrder, createPaymentLink, quoteCheckout, type CheckoutDeps } from '../checkout/checkout.flow.ts';
import { applyPaymentEvent, expireCheckout } from '../checkout/payment.flow.ts';
import { checkInvariant } from '../checkout/reconcile.flow.ts';
import { checkouts, discountCodes, discountUses, needsAttention, orders } from '../db/schema/index.ts';
import { startJobQueue, type JobQueue } from '../jobs/queue.ts';
import { refundOrder } from '../orders/refund.flow.ts';
import { createLocalProvider } from '../payments/local.provider.ts';
import { grantCredits } from '../wallet/wallet.commands.ts';
import { getBalance } from '../wallet/wallet.service.ts';
import { discountFunctions } from './discounts.functions.ts';
import { createCode, listCodes } from './discounts.service.ts';
import type { CreateDiscountCodeInput } from '@storefront/domain/discount-schemas.ts';

/**
 * Discount codes through the money path (issue 27, decision 052): priced by the one pricing
 * function, a use taken with a wallet order or held with a card checkout (released with the
 * hold, captured with the payment), exact under 50 concurrent buyers, once per account, and
 * given back by a refund only when the label says so.
 */
let database: TestDatabase;
let jobs: JobQueue;
let deps: CheckoutDeps;
const buyers: string[] = [];
const admin = { userId: '' };
const contact = { name: 'Fan', email: 'fan@example.org', phone: '' };
const shipping = { name: 'Fan', line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };
const BUYERS = 52;

let serial = 0;
async function product(priceCents: number, options: { stock?: number | null; category?: string } = {}) {
  serial += 1;
  const id = await releaseProduct(database.db, {
    name: `Code Item ${serial}`,
    description: 'Item',
    priceCents,
    images: ['/content/covers/cover-01.svg'],
    ...(options.category ? { category: options.category } : {}),
    variants: [{ options: [], sku: `CODE-${serial}`, priceCents: null, stock: options.stock ?? null, perCustomerLimit: null }],
  });
  const row = await getProduct(database.db, id, { includeInactive: false });
  return { id, variantId: row.variants[0]!.id, items: (qty = 1) => [{ id, variantId: row.variants[0]!.id, qty }] };
}

let codeSerial = 0;
async function code(fields: Partial<CreateDiscountCodeInput> = {}) {
  codeSerial += 1;
  const input = { code: `CODE${codeSerial}`, kind: 'percent' as const, value: 20, scope: 'order' as const, ...fields };
  return createCode(database.db, { operator: 'cli' }, input);
}

type Items = { id: string; variantId?: string; qty: number }[];
async function walletOrder(userId: string, items: Items, checkoutId: string, discountCode?: string) {
  const reviewed = await quoteCheckout(database.db, userId, items, true, { discountCode });
  return completeWalletOnlyOrder(deps, userId, { items, contact, shipping, quote: reviewed, checkoutId, discountCode });
}
const cardCheckout = (userId: string, items: Items, checkoutId: string, discountCode?: string) =>
  createPaymentLink(deps, userId, { items, useWallet: false, contact, shipping, checkoutId, discountCode });
const paid = (checkoutId: string, eventId: string) =>
  applyPaymentEvent(deps, { eventId, type: 'succeeded', checkoutId, sessionId: null, paymentIntentId: `pi_${checkoutId}`, amountCents: null });
const codeRow = async (id: string) => (await database.db.select().from(discountCodes).where(eq(discountCodes.id, id)))[0]!;
const usesOf = async (codeId: string) =>
  (await database.db.select({ status: discountUses.status, checkoutId: discountUses.checkoutId }).from(discountUses).where(eq(discountUses.codeId, codeId)))
    .map((row) => row.status)
    .sort();

beforeAll(async () => {
  database = await createTestDatabase({ max: 60 });
  const config = testConfig({ env: {} });
  for (let i = 0; i < BUYERS; i += 1) {
    const email = `coder${i}@example.org`;
    const account = await createAccount(
      database.db,
      config,
      { email, username: `Coder${i}`, name: `Coder ${i}`, password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true },
      { emailVerified: true },
    );
    buyers.push(account.userId);
    await grantCredits(database.db, email, '500', `code-grant-${i}`);
  }
  admin.userId = buyers[BUYERS - 1]!;
  jobs = await startJobQueue(database.db.$client, () => undefined);
  deps = { db: database.db, jobs, provider: createLocalProvider('code-test-secret'), publicUrl: 'http://127.0.0.1:9' };
  // 52 accounts, each with its password hashed: slow on a busy machine.
}, 240_000);

afterAll(async () => {
  await jobs?.stop();
  await database?.close();
});

describe('pricing with a code', () => {
  it('no code is the spec quote to the cent; a code lowers the subtotal before shipping, tax and the card fee', async () => {
    const lp = await product(2500);
    const plain = await quoteCheckout(database.db, buyers[0]!, lp.items(), false);
    expect(plain).toMatchObject({
      subtotalCents: 2500,
      discountCents: 0,
      shippingCents: 999,
      taxCents: 324,
      totalCents: 3823,
      chargeCents: 3969,
      discountCode: null,
      discountRefused: null,
    });
    const twenty = await code({ value: 20 });
    const discounted = await quoteCheckout(database.db, buyers[0]!, lp.items(), false, { discountCode: twenty.code.toLowerCase() });
    // 20% of 2500 = 500; tax = 9.25% of (2000 + 999) = 277.41 -> 277; total 3276; charge ceil((3276 + 30) / 0.971) = 3405.
    expect(discounted).toMatchObject({
      subtotalCents: 2500,
      discountCents: 500,
      shippingCents: 999,
      taxCents: 277,
      totalCents: 3276,
      chargeCents: 3405,
      discountCode: twenty.code,
    });
    expect(discounted).toMatchObject(quote([{ unitCents: 2500, qty: 1 }], 0, false, { discount: { kind: 'percent', value: 20 } }));
  });

  it('a code outside its rules prices without it, with the one answer whatever the reason (issue 40 item 2)', async () => {
    const tee = await product(1500, { category: 'merch' });
    const lp = await product(3000, { category: 'music' });
    const cases: Partial<CreateDiscountCodeInput>[] = [
      { startsAt: new Date(Date.now() + 86_400_000).toISOString() },
      { endsAt: new Date(Date.now() - 1000).toISOString(), startsAt: new Date(Date.now() - 86_400_000).toISOString() },
      { minSubtotalCents: 5000 },
      { scope: 'category', categoryId: 'music' },
      { scope: 'products', productIds: [lp.id] },
    ];
    for (const fields of cases) {
      const made = await code(fields);
      const judged = await quoteCheckout(database.db, buyers[0]!, tee.items(), false, { discountCode: made.code });
      expect(judged).toMatchObject({ discountCents: 0, discountCode: null, discountRefused: DISCOUNT_MESSAGES.notUsable, totalCents: 1500 + 999 + 231 });
    }
    expect((await quoteCheckout(database.db, buyers[0]!, tee.items(), false, { discountCode: 'NO-SUCH-CODE' })).discountRefused).toBe(DISCOUNT_MESSAGES.notUsable);
    // A category code discounts only that category's lines; a fixed amount never more than they cost.
    const music = await code({ scope: 'category', categoryId: 'music', kind: 'fixed', value: 5000 });
    const mixed = await quoteCheckout(database.db, buyers[0]!, [...tee.items(), ...lp.items()], false, { discountCode: music.code });
    expect(mixed).toMatchObject({ subtotalCents: 4500, discountCents: 3000, totalCents: 1500 + 999 + 231 });
    // An order placed with a refused code is not made: the shopper reviews first.
    await expect(walletOrder(buyers[0]!, tee.items(), 'refused-code-order', 'NO-SUCH-CODE')).rejects.toMatchObject({ message: DISCOUNT_MESSAGES.notUsable });
  });
});

describe('a code through the money path', () => {
  it('a wallet order takes a use and records the discount on the order', async () => {
    const lp = await product(4000);
    const ten = await code({ kind: 'fixed', value: 1000, useLimit: 5 });
    const before = (await getBalance(database.db, buyers[1]!)).balanceCents;
    const order = await walletOrder(buyers[1]!, lp.items(), 'code-wallet-1', ten.code);
    const [row] = await database.db.select().from(orders).where(eq(orders.id, order.orderId));
    // 4000 - 1000 = 3000; tax 9.25% of 3999 = 369.9075 -> 370; total 4369.
    expect(row).toMatchObject({ subtotalCents: 4000, discountCents: 1000, discountCode: ten.code, taxCents: 370, walletAppliedCents: 4369 });
    expect((await getBalance(database.db, buyers[1]!)).balanceCents).toBe(before - 4369);
    expect(await codeRow(ten.id)).toMatchObject({ uses: 1 });
    expect(await usesOf(ten.id)).toEqual(['used']);
    // The receipt names the code and its part.
    const mails = await database.db.execute<{ text: string }>(
      sql`SELECT data->>'text' AS text FROM pgboss.job WHERE name = 'send-email' AND data->>'text' LIKE ${`%${order.orderId}%`}`,
    );
    expect(mails.rows.map((row) => row.text).join('\n')).toContain(`Subtotal $40.00\nDiscount (${ten.code}) -$10.00\nShipping (Standard) $9.99\nTax $3.70`);
    // The same checkout id again: the first order, no second use.
    expect(await walletOrder(buyers[1]!, lp.items(), 'code-wallet-1', ten.code)).toMatchObject({ orderId: order.orderId, created: false });
    expect(await codeRow(ten.id)).toMatchObject({ uses: 1 });
  });

  it('a card checkout holds a use: cancel, expiry and a replacing checkout give it back, the payment makes it the order’s', async () => {
    const tee = await product(2000, { stock: 10 });
    const one = await code({ useLimit: 1 });
    const first = await cardCheckout(buyers[2]!, tee.items(), 'code-card-1', one.code);
    expect(await codeRow(one.id)).toMatchObject({ uses: 1 });
    // Held: nobody else can have it meanwhile.
    await expect(cardCheckout(buyers[3]!, tee.items(), 'code-card-other', one.code)).rejects.toMatchObject({ message: DISCOUNT_MESSAGES.notUsable });
    expect(await cancelCheckout(deps, buyers[2]!, first.checkoutId)).toBe(true);
    expect(await codeRow(one.id)).toMatchObject({ uses: 0 });
    // Expiry gives it back too.
    const second = await cardCheckout(buyers[3]!, tee.items(), 'code-card-2', one.code);
    expect(await expireCheckout(deps, second.checkoutId, new Date(Date.now() + 3_600_000))).toBe('expired');
    expect(await codeRow(one.id)).toMatchObject({ uses: 0 });
    // A new checkout of the same buyer replaces the open one, whose use comes back first.
    await cardCheckout(buyers[4]!, tee.items(), 'code-card-3', one.code);
    const replacing = await cardCheckout(buyers[4]!, tee.items(2), 'code-card-4', one.code);
    expect(await codeRow(one.id)).toMatchObject({ uses: 1 });
    const [held] = await database.db.select().from(checkouts).where(eq(checkouts.id, replacing.checkoutId));
    expect(held).toMatchObject({ discountCents: 800, discountCode: one.code });
    expect(await paid(replacing.checkoutId, 'evt-code-card-4')).toBe('applied');
    const [order] = await database.db.select().from(orders).where(eq(orders.checkoutId, replacing.checkoutId));
    expect(order).toMatchObject({ discountCents: 800, discountCode: one.code, chargedCents: held!.chargeCents });
    expect(await codeRow(one.id)).toMatchObject({ uses: 1 });
    expect(await usesOf(one.id)).toEqual(['released', 'released', 'released', 'used']);
  });

  it('a checkout replacing one that held the same code keeps the first deadline: replacing again and again does not hold a one-use code for ever (issue 40 item 4)', async () => {
    const tee = await product(2000, { stock: 10 });
    const one = await code({ useLimit: 1 });
    const first = await cardCheckout(buyers[5]!, tee.items(), 'code-renew-1', one.code);
    const [firstRow] = await database.db.select().from(checkouts).where(eq(checkouts.id, first.checkoutId));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = await cardCheckout(buyers[5]!, tee.items(2), 'code-renew-2', one.code);
    const third = await cardCheckout(buyers[5]!, tee.items(), 'code-renew-3', one.code);
    for (const renewed of [second, third]) {
      const [row] = await database.db.select().from(checkouts).where(eq(checkouts.id, renewed.checkoutId));
      expect(row!.expiresAt.getTime()).toBe(firstRow!.expiresAt.getTime());
    }
    // At that deadline the use comes free for everybody else.
    expect(await expireCheckout(deps, third.checkoutId, new Date(firstRow!.expiresAt.getTime() + 1000))).toBe('expired');
    expect(await codeRow(one.id)).toMatchObject({ uses: 0 });
    // Without a code, a replacing checkout gets a fresh deadline as before.
    const plain = await cardCheckout(buyers[5]!, tee.items(), 'code-renew-4');
    const [plainRow] = await database.db.select().from(checkouts).where(eq(checkouts.id, plain.checkoutId));
    expect(plainRow!.expiresAt.getTime()).toBeGreaterThan(firstRow!.expiresAt.getTime());
  });

  it('a late payment takes the use again, or is refunded when none is left', async () => {
    const tee = await product(2000);
    const one = await code({ useLimit: 1 });
    const late = await cardCheckout(buyers[5]!, tee.items(), 'code-late-1', one.code);
    expect(await expireCheckout(deps, late.checkoutId, new Date(Date.now() + 3_600_000))).toBe('expired');
    // Someone else used the last use meanwhile.
    await walletOrder(buyers[6]!, tee.items(), 'code-late-other', one.code);
    expect(await paid(late.checkoutId, 'evt-code-late-1')).toBe('applied');
    expect((await database.db.select().from(checkouts).where(eq(checkouts.id, late.checkoutId)))[0]!.status).toBe('refunded');
    expect(await database.db.select().from(orders).where(eq(orders.checkoutId, late.checkoutId))).toHaveLength(0);
    expect(await codeRow(one.id)).toMatchObject({ uses: 1 });
  });

  it('once per account counts the buyer’s orders and open checkouts', async () => {
    const tee = await product(2000);
    const once = await code({ oncePerAccount: true });
    await walletOrder(buyers[7]!, tee.items(), 'code-once-1', once.code);
    expect((await quoteCheckout(database.db, buyers[7]!, tee.items(), true, { discountCode: once.code })).discountRefused).toBe(DISCOUNT_MESSAGES.notUsable);
    await expect(cardCheckout(buyers[7]!, tee.items(), 'code-once-2', once.code)).rejects.toMatchObject({ message: DISCOUNT_MESSAGES.notUsable });
    // A held use (an open card checkout) counts for a wallet order, and a new checkout replacing it may use it.
    await cardCheckout(buyers[8]!, tee.items(), 'code-once-3', once.code);
    await expect(walletOrder(buyers[8]!, tee.items(), 'code-once-4', once.code)).rejects.toMatchObject({ message: DISCOUNT_MESSAGES.notUsable });
    await cardCheckout(buyers[8]!, tee.items(), 'code-once-5', once.code);
    expect(await codeRow(once.id)).toMatchObject({ uses: 2 });
  });

  it('a refund gives the use back only when the label says so, and only for a fully refunded order', async () => {
    const tee = await product(2000);
    const one = await code({ useLimit: 1 });
    const order = await walletOrder(buyers[9]!, tee.items(), 'code-refund-1', one.code);
    const returnUse = discountFunctions.find((fn) => fn.name === 'returnDiscountUse')!;
    const context = { db: database.db, caller: { userId: admin.userId, isAdmin: true } } as Parameters<typeof returnUse.handler>[1];
    await expect(returnUse.handler({ orderId: order.orderId }, context)).rejects.toMatchObject({ message: DISCOUNT_MESSAGES.notRefunded });
    await refundOrder({ ...deps }, admin.userId, { orderId: order.orderId, idempotencyKey: 'code-refund-key' });
    // Refunded, and the label has not said so: the use still counts.
    expect(await codeRow(one.id)).toMatchObject({ uses: 1 });
    // The label says so, from 8 tabs at once: the use comes back once.
    const answers = await Promise.allSettled(Array.from({ length: 8 }, () => returnUse.handler({ orderId: order.orderId }, context)));
    expect(answers.filter((answer) => answer.status === 'fulfilled').map((answer) => answer.value)).toEqual([{ returned: true, code: one.code }]);
    expect(await codeRow(one.id)).toMatchObject({ uses: 0 });
    await expect(returnUse.handler({ orderId: order.orderId }, context)).rejects.toMatchObject({ message: DISCOUNT_MESSAGES.noUse });
    const listed = (await listCodes(database.db)).find((row) => row.id === one.id)!;
    expect(listed).toMatchObject({ uses: 0, usedInOrders: 0, returned: 1, discountedCents: 400 });
  });
});

describe('the reconciler', () => {
  it('gives back a use held for an ended checkout and tells of a counter that disagrees with the uses', async () => {
    const tee = await product(2000);
    const one = await code({ useLimit: 2 });
    const link = await cardCheckout(buyers[12]!, tee.items(), 'code-reconcile-1', one.code);
    expect(await checkInvariant(deps)).toBe(0);
    // Broken by hand: the checkout ended without its use given back, and the counter drifted.
    await database.db.update(checkouts).set({ status: 'expired' }).where(eq(checkouts.id, link.checkoutId));
    await database.db.update(discountCodes).set({ uses: 2 }).where(eq(discountCodes.id, one.id));
    const errors = expectConsoleError();
    expect(await checkInvariant(deps)).toBe(2);
    expect(errors).toHaveBeenCalled();
    expect(await usesOf(one.id)).toEqual(['released']);
    const found = await database.db
      .select({ kind: needsAttention.kind, healed: needsAttention.healed })
      .from(needsAttention)
      .where(sql`${needsAttention.kind} LIKE 'discount-%'`);
    expect(found.sort((a, b) => a.kind.localeCompare(b.kind))).toEqual([
      { kind: 'discount-held', healed: true },
      { kind: 'discount-uses', healed: false },
    ]);
    await database.db.update(discountCodes).set({ uses: 0 }).where(eq(discountCodes.id, one.id));
  });
});

describe('uses are exact under concurrency', () => {
  it('one of n concurrent creates of a code (without case) wins; the others are refused as taken', async () => {
    const answers = await Promise.allSettled(['Race-Code', 'RACE-CODE', 'race-code', 'Race-Code', 'RACE-code'].map((text) => code({ code: text })));
    expect(answers.filter((answer) => answer.status === 'fulfilled')).toHaveLength(1);
    expect(new Set(answers.filter((answer) => answer.status === 'rejected').map((answer) => (answer.reason as Error).message))).toEqual(new Set([DISCOUNT_MESSAGES.codeTaken]));
  });

  it('a code with one use left raced by 50 buyers (wallet orders and card checkouts) makes exactly one discounted order', async () => {
    const tee = await product(2000);
    const last = await code({ useLimit: 3 });
    // Two uses made already: one left.
    await walletOrder(buyers[10]!, tee.items(), 'race-pre-1', last.code);
    await walletOrder(buyers[11]!, tee.items(), 'race-pre-2', last.code);
    const racers = buyers.slice(0, 50);
    const reviewed = await quoteCheckout(database.db, racers[0]!, tee.items(), true, { discountCode: last.code });
    const results = await Promise.allSettled(
      racers.map((userId, i) =>
        i % 2 === 0
          ? completeWalletOnlyOrder(deps, userId, { items: tee.items(), contact, shipping, quote: reviewed, checkoutId: `race-${i}`, discountCode: last.code })
          : cardCheckout(userId, tee.items(), `race-card-${i}`, last.code),
      ),
    );
    const won = results.filter((result) => result.status === 'fulfilled');
    const lost = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(new Set(lost.map((result) => (result.reason as Error).message))).toEqual(new Set([DISCOUNT_MESSAGES.notUsable]));
    expect(await codeRow(last.id)).toMatchObject({ uses: 3 });
    const live = await database.db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM discount_use WHERE code_id = ${last.id} AND status IN ('held', 'used')`);
    expect(live.rows[0]!.n).toBe(3);
    // Nothing of the losers stayed: no order, no open checkout, no held credit.
    const racedOrders = await database.db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM "order" WHERE checkout_id LIKE ${'%race-%'} AND discount_code = ${last.code}`);
    const racedCheckouts = await database.db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM checkout WHERE id LIKE ${'%race-card-%'}`);
    expect(racedOrders.rows[0]!.n + racedCheckouts.rows[0]!.n).toBe(2 + 1);
    for (const userId of racers) expect((await getBalance(database.db, userId)).heldCents).toBeGreaterThanOrEqual(0);
  });
});
