import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFUND_MESSAGES } from '@storefront/domain/refunds.ts';
import { createAuthClient } from '@storefront/sdk/auth.ts';
import { createFunctionsClient, type FunctionsError } from '@storefront/sdk/callable.ts';
import { createTestDatabase, testConfig, type TestDatabase } from '../../test/database.ts';
import { startSmtpPeer } from '../../test/smtp.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import { buildApp } from '../app.ts';
import { releaseProduct } from '../catalog/catalog.service.ts';
import type { Config } from '../config.ts';
import { freePort } from '../db/embedded.ts';
import { orderEvents, orderRefunds, orders } from '../db/schema/index.ts';
import { startJobQueue, type JobQueue } from '../jobs/queue.ts';
import { createLocalProvider, LOCAL_CARDS } from '../payments/local.provider.ts';
import type { PaymentProvider, RefundRequest } from '../payments/provider.ts';
import { grantCredits } from '../wallet/wallet.commands.ts';
import { getBalance } from '../wallet/wallet.service.ts';
import { type RefundDeps } from './refunds.service.ts';
import { runRefundRetry } from './refund.flow.ts';

/**
 * Card refunds that get no answer are retried in the background (decision 034): with backoff,
 * one card call at a time across workers and processes, the same provider key every time, and
 * the local provider recording each refund once per key.
 */
let database: TestDatabase;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
let config: Config;
let app: FastifyInstance;
let base: string;
let teeId: string;
let local: ReturnType<typeof createLocalProvider>;
let secondQueue: JobQueue;
const tokens: Record<string, string> = {};

/** The local provider behind a failing network: the next `failures` calls time out; each call can be slowed. */
const network = { failures: 0, delayMs: 0, calls: [] as RefundRequest[] };
let flaky: PaymentProvider;

const BUYER = 'buyer@example.org';
const contact = { name: 'Card Buyer', email: BUYER, phone: '' };
const shipping = { name: 'Card Buyer', line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };
const client = (who: string) => createFunctionsClient({ baseUrl: base, getAuthToken: () => tokens[who] });
const key = () => `k-${Math.random().toString(36).slice(2)}${Date.now()}`;
const errorOf = async (promise: Promise<unknown>) =>
  (await promise.then(
    () => undefined,
    (e: unknown) => e,
  )) as FunctionsError;

async function until<T>(read: () => Promise<T | undefined | null | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function expectLedgerConsistent() {
  const rows = await database.db.execute(sql`
    SELECT w.balance_cents, w.held_cents, COALESCE(SUM(l.available_delta_cents), 0)::bigint AS available_sum, COALESCE(SUM(l.held_delta_cents), 0)::bigint AS held_sum
    FROM wallet w LEFT JOIN ledger_entry l ON l.user_id = w.user_id GROUP BY w.user_id, w.balance_cents, w.held_cents`);
  for (const row of rows.rows as { balance_cents: string; held_cents: string; available_sum: string; held_sum: string }[]) {
    expect(Number(row.available_sum)).toBe(Number(row.balance_cents));
    expect(Number(row.held_sum)).toBe(Number(row.held_cents));
  }
}

const localRefundsOf = async (paymentIntentId: string) =>
  (await database.db.execute(sql`SELECT idempotency_key, refund_id, amount_cents FROM local_refund WHERE payment_intent_id = ${paymentIntentId}`)).rows as {
    idempotency_key: string;
    refund_id: string;
    amount_cents: number;
  }[];

const refundMailsFor = (orderId: string) => smtp.mailsTo(BUYER).filter((mail) => mail.decoded.includes(`refunded your order ${orderId}`));

/** A paid order of one tee, $5 or more (refunds of earlier tests) from the wallet and the rest by card on the local payment page. */
async function paidCardOrder() {
  await grantCredits(database.db, BUYER, '5', key());
  const link = await client('buyer').call('createPaymentLinkStreetFlavorMerch', { items: [{ id: teeId, qty: 1 }], useWallet: true, contact, shipping });
  const paid = await fetch(`${base}${link.url}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${tokens.buyer}`, origin: base },
    body: `card=${LOCAL_CARDS.succeeds}`,
    redirect: 'manual',
  });
  expect(paid.status).toBe(302);
  const [order] = await database.db.select().from(orders).where(eq(orders.checkoutId, link.checkoutId));
  expect(order!.chargedCents).toBeGreaterThan(0);
  expect(order!.walletAppliedCents).toBeGreaterThanOrEqual(500);
  return order!;
}

beforeAll(async () => {
  database = await createTestDatabase({ max: 30 });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  smtp = await startSmtpPeer();
  config = testConfig({
    env: {
      PORT: String(port),
      PUBLIC_URL: base,
      SIGNUP_RATE_LIMIT: '1000',
      SIGNIN_RATE_LIMIT: '1000',
      SMTP_URL: smtp.url,
      REFUND_RETRY_ATTEMPTS: '3',
      REFUND_RETRY_BASE_MS: '500',
    },
  });
  for (const [email, username, role] of [
    [BUYER, 'CardBuyer', 'user'],
    ['boss@example.org', 'Boss', 'admin'],
  ] as const) {
    await createAccount(
      database.db,
      config,
      { email, username, name: username, password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true },
      { emailVerified: true, role },
    );
  }
  teeId = await releaseProduct(database.db, { name: 'Label Tee', description: 'Tee', priceCents: 2500, images: ['/content/covers/cover-01.svg'] });
  local = createLocalProvider(config.AUTH_SECRET, database.db);
  flaky = {
    ...local,
    async refund(request) {
      network.calls.push(request);
      if (network.delayMs) await new Promise((resolve) => setTimeout(resolve, network.delayMs));
      if (network.failures > 0) {
        network.failures -= 1;
        throw new Error('connect ETIMEDOUT 127.0.0.1:443');
      }
      return local.refund(request);
    },
  };
  app = await buildApp({ config, db: database.db, logger: false, payments: { provider: flaky, local } });
  await app.listen({ port, host: '127.0.0.1' });
  // A second process's queue on the same database (its jobs are real pg-boss jobs).
  secondQueue = await startJobQueue(database.db.$client, () => undefined);
  for (const [who, email] of [
    ['buyer', BUYER],
    ['admin', 'boss@example.org'],
  ] as const) {
    tokens[who] = (await createAuthClient({ baseUrl: base, functions: createFunctionsClient({ baseUrl: base }) }).signIn(email, 'pass words')).token!;
  }
});

afterAll(async () => {
  await secondQueue?.stop();
  await app?.close();
  await smtp?.close();
  await database?.close();
});

describe('card refunds retried in the background', () => {
  it('a provider that fails twice, then answers: one refund at the provider, one email, the ledger and the order right', async () => {
    const order = await paidCardOrder();
    const before = await getBalance(database.db, order.userId);
    network.calls = [];
    network.failures = 2;
    const first = await errorOf(client('admin').call('refundOrder', { orderId: order.id, idempotencyKey: key() }));
    expect([first.code, first.message]).toEqual(['unavailable', REFUND_MESSAGES.cardPending]);

    // While it is retried, the buyer and the admin see a refund in progress.
    const mine = (await client('buyer').call('listMyOrders', { limit: 10 })).items.find((o) => o.id === order.id);
    expect([mine?.refundPending, mine?.refundStatus]).toEqual([true, null]);
    const pending = await client('admin').call('getOrder', { orderId: order.id });
    expect(pending.refunds).toEqual([
      expect.objectContaining({ status: 'pending', retry: expect.objectContaining({ gaveUp: false, lastError: expect.stringContaining('ETIMEDOUT') }) }),
    ]);
    expect(pending.refunds[0]!.retry.nextAttemptAt).not.toBeNull();

    const done = await until(async () => (await database.db.select().from(orderRefunds).where(eq(orderRefunds.orderId, order.id))).find((r) => r.status !== 'pending'));
    expect(done).toMatchObject({ status: 'succeeded', attempts: 3, cardCents: order.chargedCents, walletCents: order.walletAppliedCents, gaveUpAt: null, leaseUntil: null });
    // Three calls, each with the refund's one key; the provider has one refund.
    expect(network.calls.map((call) => call.idempotencyKey)).toEqual([`refund-${done.id}`, `refund-${done.id}`, `refund-${done.id}`]);
    const atProvider = await localRefundsOf(order.paymentIntentId);
    expect(atProvider).toEqual([{ idempotency_key: `refund-${done.id}`, refund_id: done.providerRefundId, amount_cents: order.chargedCents }]);
    expect(await database.db.select().from(orderRefunds).where(eq(orderRefunds.orderId, order.id))).toHaveLength(1);

    const [after] = await database.db.select().from(orders).where(eq(orders.id, order.id));
    expect([after!.refundStatus, after!.refundedCardCents, after!.refundedWalletCents]).toEqual(['refunded', order.chargedCents, order.walletAppliedCents]);
    expect(await getBalance(database.db, order.userId)).toEqual({ ...before, balanceCents: before.balanceCents + order.walletAppliedCents });
    await expectLedgerConsistent();
    await smtp.waitForText(BUYER, `refunded your order ${order.id}`);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(refundMailsFor(order.id)).toHaveLength(1);
    const kinds = (await database.db.select().from(orderEvents).where(eq(orderEvents.orderId, order.id))).map((e) => e.kind);
    expect(kinds.filter((k) => k === 'refunded')).toHaveLength(1);
    const mineAfter = (await client('buyer').call('listMyOrders', { limit: 10 })).items.find((o) => o.id === order.id);
    expect([mineAfter?.refundPending, mineAfter?.refundStatus]).toEqual([false, 'refunded']);
  });

  it('two workers running the retry of one refund at once: one provider call, one refund, one email', async () => {
    const order = await paidCardOrder();
    network.failures = 1;
    // The first call gets no answer; its background retry is 500 ms away.
    await errorOf(client('admin').call('refundOrder', { orderId: order.id, idempotencyKey: key() }));
    const [refund] = await database.db.select().from(orderRefunds).where(eq(orderRefunds.orderId, order.id));
    network.calls = [];
    network.delayMs = 1500; // a slow answer: every worker is inside the call at once
    const deps = (jobs: JobQueue): RefundDeps => ({ db: database.db, jobs, provider: flaky, publicUrl: base, refundRetry: { attempts: 3, baseMs: 500 } });
    try {
      // Two "processes" (this app's job worker will join in at 500 ms too) run the job together.
      await Promise.all([runRefundRetry(deps(secondQueue), { refundId: refund!.id }), runRefundRetry(deps(secondQueue), { refundId: refund!.id })]);
      const done = await until(async () => (await database.db.select().from(orderRefunds).where(eq(orderRefunds.id, refund!.id))).find((r) => r.status !== 'pending'));
      expect(done.status).toBe('succeeded');
      await new Promise((resolve) => setTimeout(resolve, 2500)); // any stray job has had its turn
    } finally {
      network.delayMs = 0;
    }
    expect(network.calls).toHaveLength(1);
    expect(await localRefundsOf(order.paymentIntentId)).toHaveLength(1);
    const [after] = await database.db.select().from(orders).where(eq(orders.id, order.id));
    expect([after!.refundStatus, after!.refundedCardCents, after!.refundedWalletCents]).toEqual(['refunded', order.chargedCents, order.walletAppliedCents]);
    await smtp.waitForText(BUYER, `refunded your order ${order.id}`);
    expect(refundMailsFor(order.id)).toHaveLength(1);
    await expectLedgerConsistent();
  });

  it('the local provider records a refund once per key, even when called twice at once', async () => {
    const request = { paymentIntentId: `pi_local_dedupe_${key()}`, amountCents: 1234, idempotencyKey: `refund-${key()}`, orderId: 'o_dedupe' };
    const [one, two] = await Promise.all([local.refund(request), local.refund(request)]);
    expect(one).toEqual(two);
    expect(await localRefundsOf(request.paymentIntentId)).toHaveLength(1);
    // The same key with another amount is refused, as Stripe refuses it.
    await expect(local.refund({ ...request, amountCents: 99 })).rejects.toThrow(/same parameters/);
  });

  it('after the last retry the admin sees it failed, with a clear message, and can retry it: still one refund', async () => {
    const order = await paidCardOrder();
    network.calls = [];
    network.failures = 1000;
    await errorOf(client('admin').call('refundOrder', { orderId: order.id, idempotencyKey: key() }));
    const gaveUp = await until(async () => (await database.db.select().from(orderRefunds).where(eq(orderRefunds.orderId, order.id))).find((r) => r.gaveUpAt !== null));
    expect([gaveUp.status, gaveUp.attempts, network.calls.length]).toEqual(['pending', 3, 3]);
    const seen = await client('admin').call('getOrder', { orderId: order.id });
    expect(seen.refunds[0]).toMatchObject({ status: 'pending', failure: REFUND_MESSAGES.cardGaveUp(3), retry: { gaveUp: true, attempts: 3, nextAttemptAt: null } });
    expect(seen.history.map((entry) => entry.kind)).toContain('refund-gave-up');
    // Nothing refunded, and the amounts stay reserved: no second refund can take them meanwhile.
    const [during] = await database.db.select().from(orders).where(eq(orders.id, order.id));
    expect([during!.refundStatus, during!.refundedCardCents]).toEqual([null, order.chargedCents]);
    expect((await errorOf(client('admin').call('refundOrder', { orderId: order.id, idempotencyKey: key() }))).message).toBe(REFUND_MESSAGES.nothingLeft);
    expect(await localRefundsOf(order.paymentIntentId)).toHaveLength(0);

    network.failures = 0;
    const retried = await client('admin').call('retryRefund', { orderId: order.id, refundId: gaveUp.id });
    expect(retried.refund).toMatchObject({ id: gaveUp.id, status: 'succeeded', retry: { gaveUp: false } });
    expect(await localRefundsOf(order.paymentIntentId)).toHaveLength(1);
    expect(new Set(network.calls.map((call) => call.idempotencyKey))).toEqual(new Set([`refund-${gaveUp.id}`]));
    // A second retry finds it done.
    expect((await client('admin').call('retryRefund', { orderId: order.id, refundId: gaveUp.id })).refund.status).toBe('succeeded');
    expect((await errorOf(client('buyer').call('retryRefund', { orderId: order.id, refundId: gaveUp.id }))).code).toBe('permission-denied');
    const [after] = await database.db.select().from(orders).where(eq(orders.id, order.id));
    expect([after!.refundStatus, after!.refundedCardCents, after!.refundedWalletCents]).toEqual(['refunded', order.chargedCents, order.walletAppliedCents]);
    await smtp.waitForText(BUYER, `refunded your order ${order.id}`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(refundMailsFor(order.id)).toHaveLength(1);
    await expectLedgerConsistent();
    // Both admin actions are in the activity list (issue 25 item 13), once each: the refund and the retry that went through.
    const activity = await client('admin').call('listAdminActivity', { limit: 100 });
    const mine = activity.items.filter((entry) => entry.targetId === order.id).map((entry) => entry.action);
    expect(mine.sort()).toEqual(['order.refund', 'order.refund-retry']);
  });
});
