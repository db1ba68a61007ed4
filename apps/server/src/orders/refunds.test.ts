import http from 'node:http';
import { eq, sql } from 'drizzle-orm';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatUsd } from '@storefront/domain/catalog.ts';
import { quote as priceQuote } from '@storefront/domain/pricing.ts';
import { planRefund, REFUND_MESSAGES } from '@storefront/domain/refunds.ts';
import { createAuthClient } from '@storefront/sdk/auth.ts';
import { createFunctionsClient, type FunctionsError } from '@storefront/sdk/callable.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import type { TestDatabase } from '../../test/database.ts';
import { startSmtpPeer } from '../../test/smtp.ts';
import { openSse } from '../../test/sse.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import { releaseProduct } from '../catalog/catalog.service.ts';
import type { Config } from '../config.ts';
import { checkouts, ledgerEntries, orderEvents, orderItems, orderRefunds, orders, paymentRefunds, processedEvents } from '../db/schema/index.ts';
import { createStripeProvider } from '../payments/stripe.provider.ts';
import { grantCredits } from '../wallet/wallet.commands.ts';
import { getBalance } from '../wallet/wallet.service.ts';

/** Refunds exactly once (decision 028): concurrency, the card path against a fake Stripe, the ledger. */
let shop: TestApp;
let database: TestDatabase;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
let config: Config;
let base: string;
const tokens: Record<string, string> = {};
let teeId: string;
let capId: string;

const contact = { name: 'Fan One', email: 'fan@example.org', phone: '' };
const shipping = { name: 'Fan One', line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };

const client = (who: string, at = base) => createFunctionsClient({ baseUrl: at, getAuthToken: () => tokens[who] });
const errorOf = async (promise: Promise<unknown>) =>
  (await promise.then(
    () => undefined,
    (e: unknown) => e,
  )) as FunctionsError;
const userId = async (email: string) => ((await database.db.execute(sql`SELECT id FROM "user" WHERE email = ${email}`)).rows[0] as { id: string }).id;
const key = () => `k-${Math.random().toString(36).slice(2)}${Date.now()}`;

async function expectLedgerConsistent() {
  const rows = await database.db.execute(sql`
    SELECT w.balance_cents, w.held_cents, COALESCE(SUM(l.available_delta_cents), 0)::bigint AS available_sum, COALESCE(SUM(l.held_delta_cents), 0)::bigint AS held_sum
    FROM wallet w LEFT JOIN ledger_entry l ON l.user_id = w.user_id GROUP BY w.user_id, w.balance_cents, w.held_cents`);
  for (const row of rows.rows as { balance_cents: string; held_cents: string; available_sum: string; held_sum: string }[]) {
    expect(Number(row.available_sum)).toBe(Number(row.balance_cents));
    expect(Number(row.held_sum)).toBe(Number(row.held_cents));
    expect(Number(row.balance_cents)).toBeGreaterThanOrEqual(0);
  }
}

/** A wallet-only order of `items` for the fan (credit granted first). */
async function walletOrder(items: { id: string; qty: number; unitCents: number }[]): Promise<string> {
  const q = priceQuote(items, 10_000_000, true);
  await grantCredits(database.db, 'fan@example.org', (q.totalCents / 100).toFixed(2), key());
  const placed = await client('fan').call('completeWalletOnlyOrderStreetFlavor', {
    items: items.map(({ id, qty }) => ({ id, qty })),
    contact,
    shipping,
    quote: q,
    checkoutId: key(),
  });
  const [order] = await database.db.select().from(orders).where(eq(orders.paymentIntentId, placed.paymentIntentId));
  return order!.id;
}

beforeAll(async () => {
  smtp = await startSmtpPeer();
  shop = await startTestApp({
    database: { max: 40 },
    config: { env: { SIGNUP_RATE_LIMIT: '1000', SIGNIN_RATE_LIMIT: '1000', SMTP_URL: smtp.url } },
    async seed({ db, config }) {
      for (const [email, username, role] of [
        ['fan@example.org', 'FanOne', 'user'],
        ['card@example.org', 'Carder', 'user'],
        ['boss@example.org', 'Boss', 'admin'],
        ['boss2@example.org', 'Boss2', 'admin'],
      ] as const) {
        await createAccount(
          db,
          config,
          { email, username, name: username, password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true },
          { emailVerified: true, role },
        );
      }
      teeId = await releaseProduct(db, { name: 'Label Tee', description: 'Tee', priceCents: 2500, images: ['/content/covers/cover-01.svg'] });
      capId = await releaseProduct(db, { name: 'Cap', description: 'Cap', priceCents: 1999, images: ['/content/covers/cover-02.svg'] });
    },
  });
  ({ database, config, baseUrl: base } = shop);
  for (const [who, email] of [
    ['fan', 'fan@example.org'],
    ['card', 'card@example.org'],
    ['admin', 'boss@example.org'],
    ['admin2', 'boss2@example.org'],
  ]) {
    tokens[who!] = (await createAuthClient({ baseUrl: base, functions: createFunctionsClient({ baseUrl: base }) }).signIn(email!, 'pass words')).token!;
  }
});

afterAll(async () => {
  await shop?.close();
  await smtp?.close();
});

describe('refunds of wallet orders', () => {
  it('20 concurrent refunds of one order (double clicks and two admins): one refund, the wallet back once, one email, Refunded live', async () => {
    const orderId = await walletOrder([{ id: teeId, qty: 1, unitCents: 2500 }]);
    const fan = await userId('fan@example.org');
    const before = await getBalance(database.db, fan);
    const [order] = await database.db.select().from(orders).where(eq(orders.id, orderId));
    const live = await openSse(`${base}/api/live?topics=orders`, { authorization: `Bearer ${tokens.fan}` });
    const click = key();
    const attempts = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => client(i % 2 ? 'admin' : 'admin2').call('refundOrder', { orderId, idempotencyKey: i < 10 ? click : key() })),
    );
    const refunds = await database.db.select().from(orderRefunds).where(eq(orderRefunds.orderId, orderId));
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({ status: 'succeeded', walletCents: order!.walletAppliedCents, cardCents: 0 });
    const ok = attempts.filter((a) => a.status === 'fulfilled').map((a) => a.value.refund.id);
    expect(new Set(ok)).toEqual(new Set([refunds[0]!.id]));
    for (const failed of attempts.filter((a) => a.status === 'rejected')) expect((failed.reason as FunctionsError).message).toBe(REFUND_MESSAGES.nothingLeft);
    expect(await getBalance(database.db, fan)).toEqual({ ...before, balanceCents: before.balanceCents + order!.walletAppliedCents });
    const [after] = await database.db.select().from(orders).where(eq(orders.id, orderId));
    expect([after!.refundStatus, after!.refundedWalletCents]).toEqual(['refunded', order!.walletAppliedCents]);
    await live.waitFor((event) => event.event === 'orders' && event.data.includes(orderId));
    live.close();
    await smtp.waitForText('fan@example.org', `refunded your order ${orderId}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(smtp.mailsTo('fan@example.org').filter((m) => m.decoded.includes(`order ${orderId} was`))).toHaveLength(1);
    expect((await client('fan').call('listMyOrders', { limit: 100 })).items.find((o) => o.id === orderId)?.refundStatus).toBe('refunded');
    await expectLedgerConsistent();
  });

  it('refunds by line: Partially refunded, then Refunded; never more than a line or the order has left', async () => {
    const orderId = await walletOrder([
      { id: teeId, qty: 2, unitCents: 2500 },
      { id: capId, qty: 1, unitCents: 1999 },
    ]);
    const first = await client('admin').call('refundOrder', { orderId, lines: [{ lineId: 0, quantity: 1 }], idempotencyKey: key() });
    // The line's tax as the order kept it (decision 060): 9.25% of 5000 = 462.5 -> 463, half of it
    // per unit, the first rounded up (232) and the second the rest (231): both give back exactly 463.
    expect(first.refund.walletCents).toBe(2500 + 232);
    let [row] = await database.db.select().from(orders).where(eq(orders.id, orderId));
    expect(row!.refundStatus).toBe('partially_refunded');
    expect((await errorOf(client('admin').call('refundOrder', { orderId, lines: [{ lineId: 0, quantity: 2 }], idempotencyKey: key() }))).message).toBe(REFUND_MESSAGES.tooMany);
    expect((await errorOf(client('admin').call('refundOrder', { orderId, lines: [{ lineId: 5, quantity: 1 }], idempotencyKey: key() }))).message).toBe(REFUND_MESSAGES.unknownLine);
    await client('admin').call('refundOrder', {
      orderId,
      lines: [
        { lineId: 0, quantity: 1 },
        { lineId: 1, quantity: 1 },
      ],
      idempotencyKey: key(),
    });
    [row] = await database.db.select().from(orders).where(eq(orders.id, orderId));
    expect(row!.refundStatus).toBe('refunded');
    const refunded = (await database.db.select().from(orderRefunds).where(eq(orderRefunds.orderId, orderId))).flatMap((r) => r.lines);
    const items = await database.db.select().from(orderItems).where(eq(orderItems.orderId, orderId));
    expect(items.map((i) => refunded.filter((l) => l.lineId === i.position).reduce((n, l) => n + l.quantity, 0) === i.qty)).toEqual([true, true]);
    // What is left (the shipping and its tax) comes back with a full refund, and then nothing more.
    await client('admin').call('refundOrder', { orderId, idempotencyKey: key() });
    [row] = await database.db.select().from(orders).where(eq(orders.id, orderId));
    expect(row!.refundedWalletCents).toBe(row!.walletAppliedCents);
    expect((await errorOf(client('admin').call('refundOrder', { orderId, idempotencyKey: key() }))).message).toBe(REFUND_MESSAGES.nothingLeft);
    await expectLedgerConsistent();
  });

  it('only admins refund, with a valid request', async () => {
    const orderId = await walletOrder([{ id: capId, qty: 1, unitCents: 1999 }]);
    expect((await errorOf(client('fan').call('refundOrder', { orderId, idempotencyKey: key() }))).code).toBe('permission-denied');
    expect((await errorOf(client('admin').call('refundOrder', { orderId, idempotencyKey: 'short' }))).code).toBe('invalid-argument');
    expect((await errorOf(client('admin').call('refundOrder', { orderId, lines: [{ lineId: 0, quantity: 0 }], idempotencyKey: key() }))).code).toBe('invalid-argument');
    expect((await errorOf(client('admin').call('refundOrder', { orderId: 'o_missing', idempotencyKey: key() }))).code).toBe('not-found');
    expect(await database.db.select().from(orderRefunds).where(eq(orderRefunds.orderId, orderId))).toHaveLength(0);
  });

  it('a refund racing fulfilment: either both happen, or the refunded order is not shipped', async () => {
    for (let round = 0; round < 6; round += 1) {
      const orderId = await walletOrder([{ id: capId, qty: 1, unitCents: 1999 }]);
      const calls = [client('admin').call('markOrderFulfilled', { orderId }), client('admin2').call('refundOrder', { orderId, idempotencyKey: key() })];
      const settled = await Promise.allSettled(calls);
      const fulfil = settled[0]!;
      const refund = settled[1]!;
      expect(refund.status).toBe('fulfilled');
      const [row] = await database.db.select().from(orders).where(eq(orders.id, orderId));
      expect(row!.refundStatus).toBe('refunded');
      if (fulfil.status === 'rejected') {
        expect((fulfil.reason as FunctionsError).message).toBe(REFUND_MESSAGES.refundedCannotFulfil);
        expect(row!.orderFulfilled).toBe(false);
      } else {
        expect(row!.orderFulfilled).toBe(true);
      }
      const kinds = (await database.db.select().from(orderEvents).where(eq(orderEvents.orderId, orderId))).map((e) => e.kind);
      expect(kinds.filter((k) => k === 'refunded')).toHaveLength(1);
      expect(kinds.filter((k) => k === 'fulfilled')).toHaveLength(fulfil.status === 'fulfilled' ? 1 : 0);
    }
    await expectLedgerConsistent();
  });
});

describe('card refunds against a local fake Stripe', () => {
  const WEBHOOK_SECRET = 'whsec_refund_secret';
  let fake: http.Server;
  let stripeShop: TestApp;
  let stripeBase: string;
  let sessions = 0;
  /** Stripe's idempotency: a key seen before answers the first refund again. */
  type FakeRefund = { id: string; amount: number; payment_intent: string; metadata: Record<string, string>; status: string; failure_reason?: string };
  const refundsByKey = new Map<string, FakeRefund>();
  const refundRequests: string[] = [];
  const failOnce = new Set<string>();
  const refuse = new Set<string>();
  /** Payment intents whose next refund Stripe fails before the API call has answered (the event overtakes the answer). */
  const failBeforeAnswer = new Set<string>();
  let eventCount = 0;

  /**
   * Stripe fails a refund it accepted (docs.stripe.com/refunds#failed-refunds): the refund's status
   * becomes failed, the charge's refunded total drops, and it sends refund.failed and
   * charge.refund.updated (status failed) - in either order, each perhaps more than once.
   */
  function failAtStripe(refund: FakeRefund, reason = 'expired_or_canceled_card') {
    const previous = { status: refund.status };
    Object.assign(refund, { status: 'failed', failure_reason: reason });
    const object = { ...refund, object: 'refund', currency: 'usd', failure_balance_transaction: `txn_fail_${refund.id}` };
    eventCount += 1;
    return {
      refundFailed: { id: `evt_rf_${eventCount}_${key()}`, object: 'event', type: 'refund.failed', created: Math.floor(Date.now() / 1000), data: { object } },
      chargeRefundUpdated: {
        id: `evt_cru_${eventCount}_${key()}`,
        object: 'event',
        type: 'charge.refund.updated',
        created: Math.floor(Date.now() / 1000),
        data: { object, previous_attributes: previous },
      },
    };
  }
  /** charge.refunded as Stripe would send it now: the charge's refunded total counts refunds that did not fail. */
  function chargeRefunded(paymentIntent: string, amount: number) {
    const refunded = [...refundsByKey.values()].filter((r) => r.payment_intent === paymentIntent && r.status !== 'failed').reduce((sum, r) => sum + r.amount, 0);
    return {
      id: `evt_cr_${key()}`,
      object: 'event',
      type: 'charge.refunded',
      data: { object: { id: `ch_${paymentIntent}`, object: 'charge', payment_intent: paymentIntent, amount, amount_refunded: refunded } },
    };
  }

  beforeAll(async () => {
    fake = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        const form = new URLSearchParams(body);
        if (req.method === 'POST' && req.url === '/v1/checkout/sessions') {
          sessions += 1;
          const id = `cs_refund_${sessions}`;
          res.end(JSON.stringify({ id, object: 'checkout.session', url: `https://pay.example.test/${id}` }));
        } else if (req.method === 'POST' && req.url === '/v1/refunds') {
          const idempotencyKey = String(req.headers['idempotency-key']);
          refundRequests.push(idempotencyKey);
          const paymentIntent = form.get('payment_intent')!;
          if (refuse.has(paymentIntent)) {
            res.statusCode = 400;
            res.end(JSON.stringify({ error: { type: 'invalid_request_error', message: 'Charge has already been refunded.' } }));
            return;
          }
          if (failOnce.delete(idempotencyKey) || (failOnce.has(paymentIntent) && failOnce.delete(paymentIntent))) {
            res.statusCode = 500;
            res.end(JSON.stringify({ error: { type: 'api_error', message: 'try again' } }));
            return;
          }
          let refund = refundsByKey.get(idempotencyKey);
          const answer = (fake: FakeRefund, status: string) => res.end(JSON.stringify({ ...fake, object: 'refund', status, currency: 'usd' }));
          if (refund) {
            answer(refund, 'succeeded'); // the first answer again, as Stripe's idempotency does
            return;
          }
          const metadata = Object.fromEntries([...form.entries()].filter(([name]) => name.startsWith('metadata[')).map(([name, value]) => [name.slice(9, -1), value]));
          refund = { id: `re_fake_${refundsByKey.size + 1}`, amount: Number(form.get('amount')), payment_intent: paymentIntent, metadata, status: 'succeeded' };
          refundsByKey.set(idempotencyKey, refund);
          if (failBeforeAnswer.delete(paymentIntent)) {
            // The failure's webhook arrives while the refund call is still waiting for its answer.
            const { refundFailed } = failAtStripe(refund);
            void deliver(refundFailed).then(() => answer(refund!, 'succeeded'));
            return;
          }
          answer(refund, 'succeeded');
        } else {
          res.statusCode = 404;
          res.end(JSON.stringify({ error: { message: 'not found' } }));
        }
      });
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    const fakePort = (fake.address() as { port: number }).port;
    // A second process on the same database and settings, with Stripe (a fake API) for payments.
    const { PORT: _port, PUBLIC_URL: _publicUrl, ...settings } = config;
    stripeShop = await startTestApp({
      database,
      config: { ...settings, PAYMENT_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET },
      build: (stripeConfig) => ({
        payments: {
          provider: createStripeProvider({
            secretKey: 'sk_test_x',
            webhookSecret: WEBHOOK_SECRET,
            publicUrl: `http://127.0.0.1:${stripeConfig.PORT}`,
            api: { host: '127.0.0.1', port: fakePort, protocol: 'http' },
          }),
          local: null,
        },
      }),
    });
    ({ baseUrl: stripeBase } = stripeShop);
  });

  afterAll(async () => {
    await stripeShop?.close();
    await new Promise((resolve) => fake?.close(resolve));
  });

  const webhooks = new Stripe('sk_test_x').webhooks;
  const deliver = (event: object) => {
    const payload = JSON.stringify(event);
    return fetch(`${stripeBase}/webhooks/stripe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }) },
      body: payload,
    });
  };
  const completed = (eventId: string, sessionId: string, checkoutId: string, paymentIntent: string) => ({
    id: eventId,
    object: 'event',
    type: 'checkout.session.completed',
    data: { object: { id: sessionId, object: 'checkout.session', payment_status: 'paid', payment_intent: paymentIntent, metadata: { checkoutId } } },
  });

  /** A card + wallet checkout of one tee by the card user; the order comes from its webhook. */
  async function cardCheckout(walletUsd: string, useWallet = true) {
    if (walletUsd !== '0') await grantCredits(database.db, 'card@example.org', walletUsd, key());
    const link = await client('card', stripeBase).call('createPaymentLinkStreetFlavorMerch', { items: [{ id: teeId, qty: 1 }], useWallet, contact, shipping });
    return { sessionId: link.url.split('/').pop()!, checkoutId: link.checkoutId, paymentIntent: `pi_${key()}` };
  }
  async function paidCardOrder(walletUsd: string, useWallet = true) {
    const checkout = await cardCheckout(walletUsd, useWallet);
    expect((await deliver(completed(`evt_${key()}`, checkout.sessionId, checkout.checkoutId, checkout.paymentIntent))).status).toBe(200);
    const [order] = await database.db.select().from(orders).where(eq(orders.checkoutId, checkout.checkoutId));
    return order!;
  }

  it('20 concurrent full refunds with a retried provider call: one Stripe refund of exactly the card part, the wallet part once', async () => {
    const order = await paidCardOrder('5');
    const buyer = order.userId;
    const before = await getBalance(database.db, buyer);
    failOnce.add(order.paymentIntentId); // the first call gets a 500: the SDK retries with the same key
    const click = key();
    const attempts = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => client(i % 2 ? 'admin' : 'admin2', stripeBase).call('refundOrder', { orderId: order.id, idempotencyKey: i < 10 ? click : key() })),
    );
    expect(attempts.filter((a) => a.status === 'fulfilled').length).toBeGreaterThanOrEqual(1);
    const atStripe = [...refundsByKey.values()].filter((r) => r.payment_intent === order.paymentIntentId);
    expect(atStripe).toEqual([expect.objectContaining({ amount: order.chargedCents })]);
    const rows = await database.db.select().from(orderRefunds).where(eq(orderRefunds.orderId, order.id));
    expect(rows).toEqual([
      expect.objectContaining({ status: 'succeeded', cardCents: order.chargedCents, walletCents: order.walletAppliedCents, providerRefundId: atStripe[0]!.id }),
    ]);
    expect(refundRequests.filter((k) => k === `refund-${rows[0]!.id}`).length).toBeGreaterThanOrEqual(2);
    expect(await getBalance(database.db, buyer)).toEqual({ ...before, balanceCents: before.balanceCents + order.walletAppliedCents });
    const [after] = await database.db.select().from(orders).where(eq(orders.id, order.id));
    expect([after!.refundStatus, after!.refundedCardCents, after!.refundedWalletCents]).toEqual(['refunded', order.chargedCents, order.walletAppliedCents]);

    // Stripe then tells us about it, three times: recorded once, counted nothing twice.
    const event = {
      id: `evt_${key()}`,
      object: 'event',
      type: 'charge.refunded',
      data: { object: { id: 'ch_1', object: 'charge', payment_intent: order.paymentIntentId, amount: order.chargedCents, amount_refunded: order.chargedCents } },
    };
    const responses = await Promise.all([deliver(event), deliver(event), deliver(event)]);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(await database.db.select().from(processedEvents).where(eq(processedEvents.eventId, event.id))).toHaveLength(1);
    const [still] = await database.db.select().from(orders).where(eq(orders.id, order.id));
    expect(still!.refundedCardCents).toBe(order.chargedCents);
    await expectLedgerConsistent();
  });

  it('a refund the provider refuses changes nothing and can be tried again', async () => {
    const order = await paidCardOrder('0');
    refuse.add(order.paymentIntentId);
    expect((await errorOf(client('admin', stripeBase).call('refundOrder', { orderId: order.id, idempotencyKey: key() }))).message).toBe(REFUND_MESSAGES.cardFailed);
    const [row] = await database.db.select().from(orders).where(eq(orders.id, order.id));
    expect([row!.refundedCardCents, row!.refundStatus]).toEqual([0, null]);
    refuse.delete(order.paymentIntentId);
    await client('admin', stripeBase).call('refundOrder', { orderId: order.id, idempotencyKey: key() });
    const [after] = await database.db.select().from(orders).where(eq(orders.id, order.id));
    expect([after!.refundedCardCents, after!.refundStatus]).toEqual([order.chargedCents, 'refunded']);
  });

  it('a refund made in the Stripe dashboard (charge.refunded) shows as Partially refunded', async () => {
    const order = await paidCardOrder('0');
    const event = {
      id: `evt_${key()}`,
      object: 'event',
      type: 'charge.refunded',
      data: { object: { id: 'ch_2', object: 'charge', payment_intent: order.paymentIntentId, amount: order.chargedCents, amount_refunded: 500 } },
    };
    await deliver(event);
    const [after] = await database.db.select().from(orders).where(eq(orders.id, order.id));
    expect([after!.refundedCardCents, after!.refundStatus]).toEqual([500, 'partially_refunded']);
    const refund = await client('admin', stripeBase).call('refundOrder', { orderId: order.id, idempotencyKey: key() });
    expect(refund.refund.cardCents).toBe(order.chargedCents - 500);
  });

  /** The refund's ledger credits (the wallet part goes back once, whatever happens to the card part). */
  const walletCredits = async (refundId: string) =>
    (
      await database.db.execute(
        sql`SELECT count(*)::int AS n, coalesce(sum(available_delta_cents), 0)::int AS cents FROM ledger_entry WHERE kind = 'refund' AND reference = ${`refund:${refundId}`}`,
      )
    ).rows[0] as { n: number; cents: number };
  const failureEvents = async (orderId: string) =>
    (await database.db.select().from(orderEvents).where(eq(orderEvents.orderId, orderId))).filter((event) => event.kind === 'refund-failed');

  it('a card refund Stripe fails after accepting it: failed with Retry for the admin, not Refunded to the buyer, every event once; the Retry refunds the card once more and the wallet not again', async () => {
    const order = await paidCardOrder('5');
    const before = await getBalance(database.db, order.userId);
    const { refund } = await client('admin', stripeBase).call('refundOrder', { orderId: order.id, idempotencyKey: key() });
    expect(refund).toMatchObject({ status: 'succeeded', cardCents: order.chargedCents, walletCents: order.walletAppliedCents });
    const first = [...refundsByKey.entries()].find(([k]) => k === `refund-${refund.id}`)![1];
    expect(first.metadata).toEqual({ orderId: order.id, refundId: refund.id, round: '1' });
    // Stripe's charge.refunded for it comes first (it counts the refund), then the refund fails.
    const stale = chargeRefunded(order.paymentIntentId, order.chargedCents);
    expect((await deliver(stale)).status).toBe(200);

    const buyerStream = await openSse(`${stripeBase}/api/live?topics=orders`, { authorization: `Bearer ${tokens.card}` });
    const { refundFailed, chargeRefundUpdated } = failAtStripe(first);
    // Both event types for one failure, each delivered twice and at once: applied once.
    const responses = await Promise.all([deliver(refundFailed), deliver(chargeRefundUpdated), deliver(refundFailed), deliver(chargeRefundUpdated)]);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const results = (await Promise.all(responses.map((r) => r.json()))) as { result: string }[];
    expect(results.filter((r) => r.result === 'applied')).toHaveLength(1);
    await buyerStream.waitFor((event) => event.event === 'orders' && event.data.includes(order.id));
    await buyerStream.close();
    expect(
      await database.db
        .select()
        .from(processedEvents)
        .where(sql`${processedEvents.eventId} IN (${refundFailed.id}, ${chargeRefundUpdated.id})`),
    ).toHaveLength(2);
    expect(await failureEvents(order.id)).toHaveLength(1);
    // The buyer, mailed that the card part was refunded, is told once that it did not arrive.
    await smtp.waitForText('card@example.org', `The ${formatUsd(order.chargedCents)} we refunded to your card for order ${order.id} did not reach it`);

    const failed = await client('admin', stripeBase).call('getOrder', { orderId: order.id });
    const reason = 'the card has expired or was canceled';
    expect(failed.refunds).toEqual([
      expect.objectContaining({ id: refund.id, status: 'pending', failure: REFUND_MESSAGES.cardFailedAtProvider(reason), retry: expect.objectContaining({ gaveUp: true }) }),
    ]);
    // Nothing is shown as refunded to the card; the wallet part did go back, once.
    expect(failed.order).toMatchObject({ refundStatus: 'partially_refunded', refundPending: true, refunded: { walletCents: order.walletAppliedCents, cardCents: 0 } });
    const [mine] = (await client('card', stripeBase).call('listMyOrders', { limit: 100 })).items.filter((o) => o.id === order.id);
    expect(mine).toMatchObject({ refundStatus: 'partially_refunded', refundPending: true, refunded: { walletCents: order.walletAppliedCents, cardCents: 0 } });
    expect(await walletCredits(refund.id)).toEqual({ n: 1, cents: order.walletAppliedCents });
    // The card part stays reserved: no second refund of it while this one waits for its Retry.
    expect((await errorOf(client('admin2', stripeBase).call('refundOrder', { orderId: order.id, idempotencyKey: key() }))).message).toBe(REFUND_MESSAGES.nothingLeft);
    // The charge.refunded sent before the failure, delivered again late, marks nothing refunded.
    await deliver({ ...stale, id: `evt_${key()}` });
    const [held] = await database.db.select().from(orders).where(eq(orders.id, order.id));
    expect(held!.refundStatus).toBe('partially_refunded');

    // The admin's Retry: a new Stripe refund (the failed one is final there), the wallet not again.
    const retried = await client('admin2', stripeBase).call('retryRefund', { orderId: order.id, refundId: refund.id });
    expect(retried.refund).toMatchObject({ status: 'succeeded', failure: null });
    const second = refundsByKey.get(`refund-${refund.id}-2`)!;
    expect(second).toMatchObject({ amount: order.chargedCents, metadata: { orderId: order.id, refundId: refund.id, round: '2' }, status: 'succeeded' });
    const [row] = await database.db.select().from(orderRefunds).where(eq(orderRefunds.id, refund.id));
    expect(row).toMatchObject({ status: 'succeeded', cardRound: 2, providerRefundId: second.id });
    const done = await client('admin', stripeBase).call('getOrder', { orderId: order.id });
    expect(done.order).toMatchObject({ refundStatus: 'refunded', refundPending: false, refunded: { walletCents: order.walletAppliedCents, cardCents: order.chargedCents } });
    expect(await getBalance(database.db, order.userId)).toEqual({ ...before, balanceCents: before.balanceCents + order.walletAppliedCents });
    expect(await walletCredits(refund.id)).toEqual({ n: 1, cents: order.walletAppliedCents });
    // The buyer's second email tells of the card only: the wallet part went back with the first.
    const refundMails = async () => smtp.mailsTo('card@example.org').filter((mail) => mail.decoded.includes(`refunded your order ${order.id}`));
    await expect.poll(async () => (await refundMails()).length, { timeout: 10_000 }).toBe(2);
    const [firstMail, secondMail] = await refundMails();
    expect(firstMail!.decoded).toContain('back to your wallet');
    expect(secondMail!.decoded).toContain('back to your card');
    expect(secondMail!.decoded).not.toContain('back to your wallet');

    // The first round's failure, delivered again under new event ids (Stripe retries a webhook it
    // thinks was missed), after the Retry succeeded: changes nothing.
    const late = failAtStripe(first);
    for (const event of [late.chargeRefundUpdated, late.refundFailed]) expect(await (await deliver(event)).json()).toEqual({ received: true, result: 'ignored' });
    const [after] = await database.db.select().from(orderRefunds).where(eq(orderRefunds.id, refund.id));
    expect(after).toMatchObject({ status: 'succeeded', cardRound: 2 });
    expect(await failureEvents(order.id)).toHaveLength(1);
    expect(smtp.mailsTo('card@example.org').filter((mail) => mail.decoded.includes(`for order ${order.id} did not reach it`))).toHaveLength(1);
    await expectLedgerConsistent();
  });

  it("a failure event that overtakes the refund call's answer: the refund is not completed by the late answer, the wallet part waits, and the Retry completes both once", async () => {
    const order = await paidCardOrder('4');
    const before = await getBalance(database.db, order.userId);
    failBeforeAnswer.add(order.paymentIntentId);
    const click = key();
    const error = await errorOf(client('admin', stripeBase).call('refundOrder', { orderId: order.id, idempotencyKey: click }));
    expect(error.message).toBe(REFUND_MESSAGES.cardFailedAtProvider('the card has expired or was canceled'));
    const [row] = await database.db.select().from(orderRefunds).where(eq(orderRefunds.orderId, order.id));
    expect(row).toMatchObject({ status: 'pending', cardRound: 2, walletRefundedAt: null, providerRefundId: null });
    expect(row!.gaveUpAt).not.toBeNull();
    // Nothing went back yet: not the wallet part, not the card part; the buyer sees a refund in progress.
    expect(await walletCredits(row!.id)).toEqual({ n: 0, cents: 0 });
    expect(await getBalance(database.db, order.userId)).toEqual(before);
    const [mine] = (await client('card', stripeBase).call('listMyOrders', { limit: 100 })).items.filter((o) => o.id === order.id);
    expect(mine).toMatchObject({ refundStatus: null, refundPending: true, refunded: { walletCents: 0, cardCents: 0 } });
    // The same click again is the admin's Retry: a new Stripe refund, both parts back once.
    const { refund } = await client('admin', stripeBase).call('refundOrder', { orderId: order.id, idempotencyKey: click });
    expect(refund).toMatchObject({ id: row!.id, status: 'succeeded' });
    expect([...refundsByKey.keys()].filter((k) => k.startsWith(`refund-${row!.id}`)).sort()).toEqual([`refund-${row!.id}`, `refund-${row!.id}-2`]);
    expect(await walletCredits(row!.id)).toEqual({ n: 1, cents: order.walletAppliedCents });
    const [after] = await database.db.select().from(orders).where(eq(orders.id, order.id));
    expect([after!.refundStatus, after!.refundedCardCents, after!.refundedWalletCents]).toEqual(['refunded', order.chargedCents, order.walletAppliedCents]);
    await expectLedgerConsistent();
  });

  it('a Retry that Stripe refuses after the wallet part went back: the refund keeps waiting for a Retry (never failed, so nothing is given back twice), then completes once', async () => {
    const order = await paidCardOrder('5');
    const before = await getBalance(database.db, order.userId);
    const { refund } = await client('admin', stripeBase).call('refundOrder', { orderId: order.id, idempotencyKey: key() });
    await deliver(failAtStripe(refundsByKey.get(`refund-${refund.id}`)!).refundFailed);
    refuse.add(order.paymentIntentId);
    const refused = await errorOf(client('admin', stripeBase).call('retryRefund', { orderId: order.id, refundId: refund.id }));
    expect(refused.message).toBe(REFUND_MESSAGES.cardFailedAtProvider('Charge has already been refunded'));
    const [row] = await database.db.select().from(orderRefunds).where(eq(orderRefunds.id, refund.id));
    expect(row).toMatchObject({ status: 'pending', cardRound: 3 });
    expect(row!.gaveUpAt).not.toBeNull();
    const [held] = await database.db.select().from(orders).where(eq(orders.id, order.id));
    // Still reserved (a refusal of a refund whose wallet part went back does not release it).
    expect([held!.refundedWalletCents, held!.refundedCardCents, held!.refundStatus]).toEqual([order.walletAppliedCents, order.chargedCents, 'partially_refunded']);
    refuse.delete(order.paymentIntentId);
    const retried = await client('admin', stripeBase).call('retryRefund', { orderId: order.id, refundId: refund.id });
    expect(retried.refund.status).toBe('succeeded');
    expect(refundsByKey.get(`refund-${refund.id}-3`)).toMatchObject({ amount: order.chargedCents, status: 'succeeded' });
    expect(await walletCredits(refund.id)).toEqual({ n: 1, cents: order.walletAppliedCents });
    expect(await getBalance(database.db, order.userId)).toEqual({ ...before, balanceCents: before.balanceCents + order.walletAppliedCents });
    const [after] = await database.db.select().from(orders).where(eq(orders.id, order.id));
    expect(after!.refundStatus).toBe('refunded');
    await expectLedgerConsistent();
  });

  it('a card-only refund Stripe fails after accepting it: held, it keeps a full refund from shipping; a Retry Stripe refuses fails it and gives the reservation back', async () => {
    const order = await paidCardOrder('0', false);
    const { refund } = await client('admin', stripeBase).call('refundOrder', { orderId: order.id, idempotencyKey: key() });
    expect(refund).toMatchObject({ status: 'succeeded', walletCents: 0, cardCents: order.chargedCents });
    expect((await deliver(failAtStripe(refundsByKey.get(`refund-${refund.id}`)!).refundFailed)).status).toBe(200);
    const [held] = await database.db.select().from(orders).where(eq(orders.id, order.id));
    // The buyer is shown nothing refunded, but the refund still gives all of it back: not shipped.
    expect([held!.refundStatus, held!.refundedCardCents]).toEqual([null, order.chargedCents]);
    expect((await errorOf(client('admin2', stripeBase).call('markOrderFulfilled', { orderId: order.id }))).message).toBe(REFUND_MESSAGES.refundedCannotFulfil);

    refuse.add(order.paymentIntentId);
    await errorOf(client('admin', stripeBase).call('retryRefund', { orderId: order.id, refundId: refund.id }));
    refuse.delete(order.paymentIntentId);
    // Nothing of it stayed given back, so it fails for good: the card amount can be refunded again.
    const [row] = await database.db.select().from(orderRefunds).where(eq(orderRefunds.id, refund.id));
    expect(row).toMatchObject({ status: 'failed', walletRefundedAt: null });
    const [released] = await database.db.select().from(orders).where(eq(orders.id, order.id));
    expect([released!.refundStatus, released!.refundedCardCents, released!.refundedWalletCents]).toEqual([null, 0, 0]);
    const again = await client('admin2', stripeBase).call('refundOrder', { orderId: order.id, idempotencyKey: key() });
    expect(again.refund).toMatchObject({ status: 'succeeded', cardCents: order.chargedCents });
    const [after] = await database.db.select().from(orders).where(eq(orders.id, order.id));
    expect([after!.refundStatus, after!.refundedCardCents]).toEqual(['refunded', order.chargedCents]);
    await expectLedgerConsistent();
  });

  it('a failed refund that is not ours (made in the dashboard) is written to the history and changes no refund', async () => {
    const order = await paidCardOrder('0');
    const dashboard: FakeRefund = { id: `re_dash_${key()}`, amount: 300, payment_intent: order.paymentIntentId, metadata: {}, status: 'succeeded' };
    const { refundFailed } = failAtStripe(dashboard, 'lost_or_stolen_card');
    expect(await (await deliver(refundFailed)).json()).toEqual({ received: true, result: 'applied' });
    expect(await (await deliver(refundFailed)).json()).toEqual({ received: true, result: 'duplicate' });
    expect((await failureEvents(order.id)).map((event) => event.detail)).toEqual([
      { providerRefundId: dashboard.id, reason: 'the card was reported lost or stolen', cardCents: 300 },
    ]);
    const [after] = await database.db.select().from(orders).where(eq(orders.id, order.id));
    expect([after!.refundStatus, after!.refundedCardCents]).toEqual([null, 0]);
  });

  it('a dashboard refund that charge.refunded counted, then failed: no longer shown as refunded, and the admin can refund it in the shop', async () => {
    const order = await paidCardOrder('0', false);
    const dashboard: FakeRefund = { id: `re_dash_${key()}`, amount: 300, payment_intent: order.paymentIntentId, metadata: {}, status: 'succeeded' };
    const counted = {
      id: `evt_${key()}`,
      object: 'event',
      type: 'charge.refunded',
      data: { object: { id: `ch_${key()}`, object: 'charge', payment_intent: order.paymentIntentId, amount: order.chargedCents, amount_refunded: 300 } },
    };
    await deliver(counted);
    const [partly] = await database.db.select().from(orders).where(eq(orders.id, order.id));
    expect([partly!.refundStatus, partly!.refundedCardCents]).toEqual(['partially_refunded', 300]);
    // The failure comes as both event types: counted once.
    const { chargeRefundUpdated, refundFailed } = failAtStripe(dashboard, 'lost_or_stolen_card');
    expect(await (await deliver(chargeRefundUpdated)).json()).toEqual({ received: true, result: 'applied' });
    expect(await (await deliver(refundFailed)).json()).toEqual({ received: true, result: 'ignored' });
    expect(await failureEvents(order.id)).toHaveLength(1);
    const [after] = await database.db.select().from(orders).where(eq(orders.id, order.id));
    expect([after!.refundStatus, after!.refundedCardCents]).toEqual([null, 0]);
    const { refund } = await client('admin', stripeBase).call('refundOrder', { orderId: order.id, idempotencyKey: key() });
    expect(refund).toMatchObject({ status: 'succeeded', cardCents: order.chargedCents });
  });

  it('a late payment whose wallet part was spent meanwhile ends in one full card refund and no order (decision 044)', async () => {
    const buyer = await userId('card@example.org');
    const checkout = await cardCheckout('3');
    // The checkout expires (hold released) and the buyer spends that credit elsewhere.
    await deliver({
      id: `evt_${key()}`,
      object: 'event',
      type: 'checkout.session.expired',
      data: { object: { id: checkout.sessionId, object: 'checkout.session', metadata: { checkoutId: checkout.checkoutId } } },
    });
    const spent = (await getBalance(database.db, buyer)).balanceCents;
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`UPDATE wallet SET balance_cents = balance_cents - ${spent} WHERE user_id = ${buyer}`);
      await tx.insert(ledgerEntries).values({ userId: buyer, kind: 'debit', availableDeltaCents: -spent, reference: `spent-${key()}` });
    });
    const late = completed(`evt_${key()}`, checkout.sessionId, checkout.checkoutId, checkout.paymentIntent);
    // Delivered three times, two at once: one outcome.
    await Promise.all([deliver(late), deliver(late)]);
    await deliver(late);
    // An order whose wallet part was never collected would undercharge: the card payment is given back instead.
    expect(await database.db.select().from(orders).where(eq(orders.checkoutId, checkout.checkoutId))).toHaveLength(0);
    const [closed] = await database.db.select().from(checkouts).where(eq(checkouts.id, checkout.checkoutId));
    expect(closed!.status).toBe('refunded');
    expect(await database.db.select().from(paymentRefunds).where(eq(paymentRefunds.checkoutId, checkout.checkoutId))).toMatchObject([
      { reason: 'late payment: wallet credit gone' },
    ]);
    expect((await getBalance(database.db, buyer)).balanceCents).toBe(0);
    await expectLedgerConsistent();
  });

  // Decision 050 (issue 29 item 2): refunds by amount and of the shipping, split in proportion to what each part has left.
  it('40 concurrent refunds of $5 by two admins: never more than each part paid, each split between card and wallet, every card part at Stripe once, every email with its split', async () => {
    const order = await paidCardOrder('5');
    const paid = order.walletAppliedCents + order.chargedCents;
    const before = await getBalance(database.db, order.userId);
    const attempts = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) => client(i % 2 ? 'admin' : 'admin2', stripeBase).call('refundOrder', { orderId: order.id, amountCents: 500, idempotencyKey: key() })),
    );
    const done = attempts.flatMap((attempt) => (attempt.status === 'fulfilled' ? [attempt.value.refund] : []));
    // Exactly as many $5 refunds as fit in what was paid; the rest are refused with the reason.
    expect(done).toHaveLength(Math.floor(paid / 500));
    for (const attempt of attempts) {
      if (attempt.status === 'rejected') expect([REFUND_MESSAGES.amountTooLarge(paid % 500), REFUND_MESSAGES.nothingLeft]).toContain((attempt.reason as FunctionsError).message);
    }
    for (const refund of done) {
      expect(refund).toMatchObject({ status: 'succeeded', shippingCents: 0, lines: [] });
      expect(refund.cardCents + refund.walletCents).toBe(500);
      // Not the card part first: each small refund takes from both parts.
      expect(refund.cardCents).toBeGreaterThan(0);
      expect(refund.walletCents).toBeGreaterThan(0);
    }
    const card = done.reduce((sum, refund) => sum + refund.cardCents, 0);
    const wallet = done.reduce((sum, refund) => sum + refund.walletCents, 0);
    const [after] = await database.db.select().from(orders).where(eq(orders.id, order.id));
    expect([after!.refundedCardCents, after!.refundedWalletCents, after!.refundStatus]).toEqual([card, wallet, 'partially_refunded']);
    expect(card).toBeLessThanOrEqual(order.chargedCents);
    expect(wallet).toBeLessThanOrEqual(order.walletAppliedCents);
    const atStripe = [...refundsByKey.values()].filter((refund) => refund.payment_intent === order.paymentIntentId);
    expect(atStripe.map((refund) => refund.amount).sort()).toEqual(done.map((refund) => refund.cardCents).sort());
    expect((await getBalance(database.db, order.userId)).balanceCents).toBe(before.balanceCents + wallet);
    // One email per refund (sent by the job queue, so polled), each with that refund's split.
    const mails = () => smtp.mailsTo('card@example.org').filter((mail) => mail.decoded.includes(`partly refunded your order ${order.id}`));
    await expect.poll(() => mails().length, { timeout: 15_000 }).toBe(done.length);
    const unmatched = mails().map((mail) => mail.decoded);
    for (const refund of done) {
      const index = unmatched.findIndex(
        (text) => text.includes(`${formatUsd(refund.cardCents)} back to your card`) && text.includes(`${formatUsd(refund.walletCents)} back to your wallet`),
      );
      expect(index, `${refund.cardCents}/${refund.walletCents}`).toBeGreaterThanOrEqual(0);
      unmatched.splice(index, 1);
    }

    // The rest, by amount: both parts end exactly at what they paid; the buyer sees Refunded and the same parts.
    const rest = paid - card - wallet;
    const last = await client('admin', stripeBase).call('refundOrder', { orderId: order.id, amountCents: rest, idempotencyKey: key() });
    expect(last.refund.cardCents + last.refund.walletCents).toBe(rest);
    const [final] = await database.db.select().from(orders).where(eq(orders.id, order.id));
    expect([final!.refundedCardCents, final!.refundedWalletCents, final!.refundStatus]).toEqual([order.chargedCents, order.walletAppliedCents, 'refunded']);
    const mine = (await client('card', stripeBase).call('listMyOrders', null)).items.find((item) => item.id === order.id);
    expect(mine).toMatchObject({ refundStatus: 'refunded', refunded: { walletCents: order.walletAppliedCents, cardCents: order.chargedCents } });
    expect((await errorOf(client('admin', stripeBase).call('refundOrder', { orderId: order.id, amountCents: 1, idempotencyKey: key() }))).message).toBe(
      REFUND_MESSAGES.nothingLeft,
    );
    await expectLedgerConsistent();
  });

  it('the shipping goes back once, however many admins ask at once; the desk previews the split the server makes', async () => {
    const order = await paidCardOrder('5');
    const detail = await client('admin', stripeBase).call('getOrder', { orderId: order.id });
    expect(detail.refundable).toMatchObject({ shippingCents: 999 + 92, shippingRefunded: false, walletPaidCents: order.walletAppliedCents, cardPaidCents: order.chargedCents });
    const previewed = planRefund(detail.refundable, { shipping: true });
    const attempts = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) => client(i % 2 ? 'admin' : 'admin2', stripeBase).call('refundOrder', { orderId: order.id, shipping: true, idempotencyKey: key() })),
    );
    const done = attempts.flatMap((attempt) => (attempt.status === 'fulfilled' ? [attempt.value.refund] : []));
    expect(done).toEqual([expect.objectContaining({ status: 'succeeded', shippingCents: 1091, cardCents: previewed.cardCents, walletCents: previewed.walletCents })]);
    expect(previewed.cardCents + previewed.walletCents).toBe(1091);
    expect(previewed.walletCents).toBeGreaterThan(0);
    for (const attempt of attempts) {
      if (attempt.status === 'rejected') expect((attempt.reason as FunctionsError).message).toBe(REFUND_MESSAGES.shippingAlreadyRefunded);
    }
    expect((await client('admin', stripeBase).call('getOrder', { orderId: order.id })).refundable.shippingRefunded).toBe(true);
    // My Orders and the email say the same split.
    const mine = (await client('card', stripeBase).call('listMyOrders', null)).items.find((item) => item.id === order.id);
    expect(mine).toMatchObject({ refundStatus: 'partially_refunded', refunded: { walletCents: previewed.walletCents, cardCents: previewed.cardCents } });
    const mail = await smtp.waitForText('card@example.org', `partly refunded your order ${order.id}`);
    expect(mail.decoded).toContain(`${formatUsd(previewed.cardCents)} back to your card (it can take 5 to 10 days to appear)`);
    expect(mail.decoded).toContain(`${formatUsd(previewed.walletCents)} back to your wallet, available now`);
    // A refund by line after it: the lines' goods and tax, split the same way; the shipping is not offered again.
    const line = await client('admin', stripeBase).call('refundOrder', { orderId: order.id, lines: [{ lineId: 0, quantity: 1 }], idempotencyKey: key() });
    expect(line.refund.cardCents + line.refund.walletCents).toBe(2500 + 231);
    expect(line.refund.shippingCents).toBe(0);
    await expectLedgerConsistent();
  });
});
