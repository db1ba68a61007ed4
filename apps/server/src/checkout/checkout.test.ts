import http from 'node:http';
import { eq, sql } from 'drizzle-orm';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_MESSAGES, quote as priceQuote } from '@storefront/domain/pricing.ts';
import { createFunctionsClient, type FunctionsError } from '@storefront/sdk/callable.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import type { TestDatabase } from '../../test/database.ts';
import { expectConsoleError } from '../../test/console.ts';
import { startSmtpPeer } from '../../test/smtp.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import { releaseProduct } from '../catalog/catalog.service.ts';
import type { Config } from '../config.ts';
import { checkouts, ledgerEntries, needsAttention, orders, wallets } from '../db/schema/index.ts';
import { startJobQueue } from '../jobs/queue.ts';
import { createStripeProvider } from '../payments/stripe.provider.ts';
import { grantCredits } from '../wallet/wallet.commands.ts';
import { getBalance } from '../wallet/wallet.service.ts';
import { TEST_MODE_TEXT } from '../http/test-mode.ts';

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

function client(who: string) {
  return createFunctionsClient({ baseUrl: base, getAuthToken: () => tokens[who] });
}
async function errorOf(promise: Promise<unknown>) {
  return (await promise.then(
    () => undefined,
    (e: unknown) => e,
  )) as FunctionsError;
}
async function userId(email: string) {
  const result = await database.db.execute(sql`SELECT id FROM "user" WHERE email = ${email}`);
  return (result.rows[0] as { id: string }).id;
}

/** Ledger sums equal every balance; nothing negative. */
async function expectLedgerConsistent() {
  const rows = await database.db.execute(sql`
    SELECT w.user_id, w.balance_cents, w.held_cents,
           COALESCE(SUM(l.available_delta_cents), 0)::bigint AS available_sum,
           COALESCE(SUM(l.held_delta_cents), 0)::bigint AS held_sum
    FROM wallet w LEFT JOIN ledger_entry l ON l.user_id = w.user_id
    GROUP BY w.user_id, w.balance_cents, w.held_cents`);
  for (const row of rows.rows as { balance_cents: string; held_cents: string; available_sum: string; held_sum: string }[]) {
    expect(Number(row.available_sum)).toBe(Number(row.balance_cents));
    expect(Number(row.held_sum)).toBe(Number(row.held_cents));
    expect(Number(row.balance_cents)).toBeGreaterThanOrEqual(0);
  }
}

beforeAll(async () => {
  smtp = await startSmtpPeer();
  shop = await startTestApp({ database: { max: 30 }, config: { env: { SIGNUP_RATE_LIMIT: '1000', SMTP_URL: smtp.url } } });
  ({ database, config, baseUrl: base } = shop);
  for (const [email, username, role] of [
    ['fan@example.org', 'FanOne', 'user'],
    ['other@example.org', 'Other', 'user'],
    ['card@example.org', 'Carder', 'user'],
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
  capId = await releaseProduct(database.db, { name: 'Cap', description: 'Cap', priceCents: 1999, images: ['/content/covers/cover-02.svg'] });
  await grantCredits(database.db, 'card@example.org', '10', 'card-user');
  for (const [who, email] of [
    ['fan', 'fan@example.org'],
    ['other', 'other@example.org'],
    ['card', 'card@example.org'],
    ['admin', 'boss@example.org'],
  ]) {
    tokens[who!] = await shop.signIn(email!);
  }
});

afterAll(async () => {
  await shop?.close();
  await smtp?.close();
});

describe('quoteCheckout', () => {
  it('prices from the database and the caller’s own balance', async () => {
    await grantCredits(database.db, 'fan@example.org', '10', 'quote-test');
    const quote = await client('fan').call('quoteCheckout', {
      items: [
        { id: teeId, qty: 2 },
        { id: capId, qty: 1 },
      ],
      useWallet: true,
    });
    const expected = priceQuote(
      [
        { unitCents: 2500, qty: 2 },
        { unitCents: 1999, qty: 1 },
      ],
      1000,
      true,
    );
    // The answer is the contract's: the per-line tax parts stay the server's (issue 40 item 11).
    const { taxParts: _serverOnly, ...answer } = expected;
    expect(quote).toMatchObject(answer);
    expect(quote).not.toHaveProperty('taxParts');
    expect(quote.lines.map((l) => l.unitCents)).toEqual([2500, 1999]);
  });

  it('names unknown items and refuses anonymous callers and bad quantities', async () => {
    const unknown = await errorOf(client('fan').call('quoteCheckout', { items: [{ id: 'p_gone', qty: 1 }], useWallet: false }));
    expect([unknown.code, unknown.message]).toEqual(['failed-precondition', expect.stringContaining('p_gone')]);
    expect((await errorOf(createFunctionsClient({ baseUrl: base }).call('quoteCheckout', { items: [{ id: teeId, qty: 1 }], useWallet: false }))).code).toBe('unauthenticated');
    for (const qty of [0, -1, 1.5, 100, '2']) {
      expect((await errorOf(client('fan').callUntyped('quoteCheckout', { items: [{ id: teeId, qty }], useWallet: false }))).code).toBe('invalid-argument');
    }
    expect((await errorOf(client('fan').call('quoteCheckout', { items: [], useWallet: false }))).message).toBe(CHECKOUT_MESSAGES.emptyCart);
  });
});

describe('wallet-only orders', () => {
  let items: { id: string; qty: number }[];
  beforeAll(() => {
    items = [{ id: teeId, qty: 1 }];
  });
  const orderQuote = () => priceQuote([{ unitCents: 2500, qty: 1 }], 10_000_000, true);

  it('makes exactly 10 orders from 50 concurrent ones when the balance covers 10, ending at exactly 0', async () => {
    const buyer = await userId('other@example.org');
    const total = orderQuote().totalCents;
    await grantCredits(database.db, 'other@example.org', ((total * 10) / 100).toFixed(2), 'ten-orders');
    const attempts = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) =>
        client('other').call('completeWalletOnlyOrderStreetFlavor', { items: [{ id: teeId, qty: 1 }], contact, shipping, quote: orderQuote(), checkoutId: `concurrent-${i}` }),
      ),
    );
    expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(10);
    for (const failed of attempts.filter((a) => a.status === 'rejected')) {
      expect((failed as PromiseRejectedResult).reason.code).toBe('failed-precondition');
    }
    expect(await getBalance(database.db, buyer)).toEqual({ balanceCents: 0, heldCents: 0 });
    const made = await database.db.select().from(orders).where(eq(orders.userId, buyer));
    expect(made).toHaveLength(10);
    const debits = await database.db.select().from(ledgerEntries).where(eq(ledgerEntries.userId, buyer));
    const spent = -debits.filter((e) => e.kind === 'debit').reduce((sum, e) => sum + e.availableDeltaCents, 0);
    expect(spent).toBe(made.reduce((sum, o) => sum + o.subtotalCents + o.shippingCents + o.taxCents, 0));
    await expectLedgerConsistent();
  });

  it('gives one order for one checkout id sent 20 times at once, charging once', async () => {
    const buyer = await userId('fan@example.org');
    await grantCredits(database.db, 'fan@example.org', '1000', 'idempotency');
    const before = await getBalance(database.db, buyer);
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        client('fan').call('completeWalletOnlyOrderStreetFlavor', {
          items,
          contact,
          shipping,
          quote: { ...orderQuote(), walletAppliedCents: orderQuote().totalCents },
          checkoutId: 'same-checkout-id',
        }),
      ),
    );
    expect(new Set(results.map((r) => r.orderId)).size).toBe(1);
    expect(results[0]!.redirectUrl).toMatch(/^\/order-confirmation\?payment_intent=wallet_.+&redirect_status=succeeded$/);
    const after = await getBalance(database.db, buyer);
    expect(before.balanceCents - after.balanceCents).toBe(orderQuote().totalCents);
    await expectLedgerConsistent();
    // One receipt, received by a real SMTP peer.
    await smtp.waitForText('fan@example.org', `Thank you for your order ${results[0]!.orderId}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(smtp.mailsTo('fan@example.org').filter((m) => m.decoded.includes(results[0]!.orderId))).toHaveLength(1);
  });

  it('refuses a tampered quote and changes nothing', async () => {
    const buyer = await userId('fan@example.org');
    const before = await getBalance(database.db, buyer);
    const count = (await database.db.select().from(orders)).length;
    const tampered = { ...orderQuote(), subtotalCents: 1, totalCents: 1000, walletAppliedCents: 1000 };
    const error = await errorOf(client('fan').call('completeWalletOnlyOrderStreetFlavor', { items, contact, shipping, quote: tampered, checkoutId: 'tampered-1' }));
    expect([error.code, error.message]).toEqual(['failed-precondition', CHECKOUT_MESSAGES.quoteChanged]);
    expect(await getBalance(database.db, buyer)).toEqual(before);
    expect(await database.db.select().from(orders)).toHaveLength(count);
  });

  it('checks contact and shipping with the spec’s messages', async () => {
    const cases: [object, string][] = [
      [{ contact: { ...contact, name: '  ' } }, CHECKOUT_MESSAGES.fullName],
      [{ contact: { ...contact, email: 'nope' } }, CHECKOUT_MESSAGES.email],
      [{ items: [] }, CHECKOUT_MESSAGES.emptyCart],
    ];
    for (const [override, message] of cases) {
      const error = await errorOf(
        client('fan').call('completeWalletOnlyOrderStreetFlavor', { items, contact, shipping, quote: orderQuote(), checkoutId: 'checks-1', ...override }),
      );
      expect(error.message.endsWith(message)).toBe(true);
    }
  });
});

describe('card checkouts (local provider)', () => {
  async function startCardCheckout(who: string, checkoutId: string) {
    return client(who).call('createPaymentLinkStreetFlavorMerch', {
      items: [{ id: capId, qty: 3 }],
      useWallet: true,
      contact,
      shipping,
      redirectUrl: '/order-confirmation',
      checkoutId,
    });
  }

  it('holds the wallet part, takes the card on /pay, and makes one order capturing the hold', async () => {
    const buyer = await userId('card@example.org');
    const before = await getBalance(database.db, buyer);
    const link = await startCardCheckout('card', 'card-ok-1');
    expect(link.url).toBe(`/pay/${link.checkoutId}`);
    const [checkout] = await database.db.select().from(checkouts).where(eq(checkouts.id, link.checkoutId));
    expect((await getBalance(database.db, buyer)).heldCents).toBe(before.heldCents + checkout!.walletHeldCents);

    const page = await fetch(`${base}${link.url}`, { headers: { authorization: `Bearer ${tokens.card}` } });
    const pageHtml = await page.text();
    expect(pageHtml).toMatch(/Card number[\s\S]*>Pay \$/);
    // Fake cards: the payment page says TEST MODE (issue 13).
    expect(pageHtml).toContain(TEST_MODE_TEXT);
    expect((await fetch(`${base}${link.url}`, { headers: { authorization: `Bearer ${tokens.other}` } })).status).toBe(404);

    const declined = await fetch(`${base}${link.url}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { authorization: `Bearer ${tokens.card}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'card=4000+0000+0000+0002',
    });
    const declinedHtml = await declined.text();
    expect(declinedHtml).toContain(CHECKOUT_MESSAGES.cardDeclined);
    expect(declinedHtml).toContain(TEST_MODE_TEXT);
    expect(await database.db.select().from(orders).where(eq(orders.checkoutId, link.checkoutId))).toHaveLength(0);

    const paid = await fetch(`${base}${link.url}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { authorization: `Bearer ${tokens.card}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'card=4242+4242+4242+4242',
    });
    expect(paid.status).toBe(302);
    expect(paid.headers.get('location')).toMatch(/^\/order-confirmation\?payment_intent=pi_local_.+&redirect_status=succeeded$/);
    const made = await database.db.select().from(orders).where(eq(orders.checkoutId, link.checkoutId));
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ walletAppliedCents: checkout!.walletHeldCents, chargedCents: checkout!.chargeCents });
    expect((await getBalance(database.db, buyer)).heldCents).toBe(before.heldCents);
    await expectLedgerConsistent();
  });

  it('releases the hold of a checkout whose payment session expired', async () => {
    const buyer = await userId('card@example.org');
    await grantCredits(database.db, 'card@example.org', '3', 'expire-test');
    const before = await getBalance(database.db, buyer);
    const link = await startCardCheckout('card', 'card-expire-1');
    expect((await getBalance(database.db, buyer)).balanceCents).toBeLessThan(before.balanceCents);
    const { reconcileCheckouts } = await import('./reconcile.flow.ts');
    const { paymentProviderFor } = await import('../payments/payment-provider.factory.ts');
    const result = await reconcileCheckouts(
      { db: database.db, jobs: undefined as never, provider: paymentProviderFor(config).provider, publicUrl: base },
      new Date(Date.now() + 60 * 60 * 1000),
    );
    expect(result.expired).toBeGreaterThanOrEqual(1);
    const [checkout] = await database.db.select().from(checkouts).where(eq(checkouts.id, link.checkoutId));
    expect(checkout!.status).toBe('expired');
    expect(await getBalance(database.db, buyer)).toEqual(before);
    await expectLedgerConsistent();
  });
});

describe('stripe provider against a local fake Stripe', () => {
  const WEBHOOK_SECRET = 'whsec_test_secret';
  let fake: http.Server;
  let stripeShop: TestApp;
  let stripeBase: string;
  const sessions = new Map<string, { checkoutId: string; amount: number }>();
  // How the fake's sessions stand (unset: paid, as asked after a completed payment), and when each may be paid until.
  const sessionStates = new Map<string, 'open' | 'paid' | 'expired'>();
  const sessionExpiresAt = new Map<string, number>();
  const expireCalls: string[] = [];
  const paymentIntents = new Map<string, string>();
  let fakePort = 0;

  beforeAll(async () => {
    fake = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        if (req.method === 'POST' && req.url === '/v1/checkout/sessions') {
          const form = new URLSearchParams(body);
          const id = `cs_test_${sessions.size + 1}`;
          let amount = 0;
          for (let i = 0; form.has(`line_items[${i}][quantity]`); i += 1) {
            amount += Number(form.get(`line_items[${i}][quantity]`)) * Number(form.get(`line_items[${i}][price_data][unit_amount]`));
          }
          sessions.set(id, { checkoutId: form.get('metadata[checkoutId]')!, amount });
          sessionExpiresAt.set(id, Number(form.get('expires_at')));
          res.end(JSON.stringify({ id, object: 'checkout.session', url: `https://pay.example.test/${id}`, amount_total: amount }));
        } else if (req.method === 'POST' && /^\/v1\/checkout\/sessions\/[^/]+\/expire$/.test(req.url ?? '')) {
          // As Stripe: only an open session can be expired.
          const id = req.url!.split('/')[4]!;
          expireCalls.push(id);
          if ((sessionStates.get(id) ?? 'paid') !== 'open') {
            res.statusCode = 400;
            res.end(JSON.stringify({ error: { type: 'invalid_request_error', message: 'Only Checkout Sessions with a status in ["open"] can be expired.' } }));
            return;
          }
          sessionStates.set(id, 'expired');
          res.end(JSON.stringify({ id, object: 'checkout.session', payment_status: 'unpaid', status: 'expired', payment_intent: null }));
        } else if (req.method === 'GET' && req.url?.startsWith('/v1/checkout/sessions/')) {
          const id = req.url.split('/').pop()!;
          const state = sessionStates.get(id) ?? 'paid';
          const stripeState = { open: ['unpaid', 'open'], paid: ['paid', 'complete'], expired: ['unpaid', 'expired'] }[state];
          res.end(
            JSON.stringify({
              id,
              object: 'checkout.session',
              payment_status: stripeState[0],
              status: stripeState[1],
              payment_intent: state === 'paid' ? (paymentIntents.get(id) ?? 'pi_fake_1') : null,
            }),
          );
        } else {
          res.statusCode = 404;
          res.end(JSON.stringify({ error: { message: 'not found' } }));
        }
      });
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    fakePort = (fake.address() as { port: number }).port;
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

  function completedEvent(eventId: string, sessionId: string, checkoutId: string, amount: number) {
    return JSON.stringify({
      id: eventId,
      object: 'event',
      type: 'checkout.session.completed',
      data: { object: { id: sessionId, object: 'checkout.session', payment_status: 'paid', payment_intent: 'pi_fake_1', amount_total: amount, metadata: { checkoutId } } },
    });
  }
  const webhook = (payload: string, signature: string) =>
    fetch(`${stripeBase}/webhooks/stripe`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': signature }, body: payload });

  it('creates a session for the charge, and one order from a webhook delivered 10 times at once and out of order', async () => {
    const fn = createFunctionsClient({ baseUrl: stripeBase, getAuthToken: () => tokens.other });
    await grantCredits(database.db, 'other@example.org', '5', 'stripe-partial');
    const link = await fn.call('createPaymentLinkStreetFlavorMerch', { items: [{ id: teeId, qty: 2 }], useWallet: true, contact, shipping });
    expect(link.url).toMatch(/^https:\/\/pay\.example\.test\/cs_test_/);
    const sessionId = link.url.split('/').pop()!;
    const [checkout] = await database.db.select().from(checkouts).where(eq(checkouts.id, link.checkoutId));
    expect(sessions.get(sessionId)).toEqual({ checkoutId: link.checkoutId, amount: checkout!.chargeCents });

    const webhooks = new Stripe('sk_test_x').webhooks;
    const payloads = [
      ...Array.from({ length: 8 }, () => completedEvent('evt_same', sessionId, link.checkoutId, checkout!.chargeCents)),
      completedEvent('evt_redelivered_as_new', sessionId, link.checkoutId, checkout!.chargeCents),
      JSON.stringify({ id: 'evt_unrelated', object: 'event', type: 'payment_intent.created', data: { object: { id: 'pi_fake_1' } } }),
    ].reverse();
    const responses = await Promise.all(payloads.map((payload) => webhook(payload, webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }))));
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(await database.db.select().from(orders).where(eq(orders.checkoutId, link.checkoutId))).toHaveLength(1);
    const captures = await database.db.select().from(ledgerEntries).where(eq(ledgerEntries.reference, link.checkoutId));
    expect(captures.filter((e) => e.kind === 'capture')).toHaveLength(1);
    await expectLedgerConsistent();

    const back = await fetch(`${stripeBase}/pay/return?session_id=${sessionId}`, { redirect: 'manual' });
    expect(back.headers.get('location')).toBe('/order-confirmation?payment_intent=pi_fake_1&redirect_status=succeeded');
  });

  it("holds for CHECKOUT_HOLD_MINUTES, keeps the session payable for Stripe's 30 minutes, and expires it through the API when the hold ends", async () => {
    const { expireCheckout } = await import('./payment.flow.ts');
    const provider = createStripeProvider({
      secretKey: 'sk_test_x',
      webhookSecret: WEBHOOK_SECRET,
      publicUrl: stripeBase,
      api: { host: '127.0.0.1', port: fakePort, protocol: 'http' },
    });
    const jobs = await startJobQueue(database.db.$client, () => undefined);
    const deps = { db: database.db, jobs, provider, publicUrl: stripeBase };
    const fn = createFunctionsClient({ baseUrl: stripeBase, getAuthToken: () => tokens.other });
    await grantCredits(database.db, 'other@example.org', '5', 'stripe-hold-1');
    const started = Date.now();
    const unpaid = await fn.call('createPaymentLinkStreetFlavorMerch', { items: [{ id: teeId, qty: 1 }], useWallet: true, contact, shipping });
    const unpaidSession = unpaid.url.split('/').pop()!;
    const [held] = await database.db.select().from(checkouts).where(eq(checkouts.id, unpaid.checkoutId));
    // Our hold: 10 minutes (the default). Stripe's page: at least 30.
    expect(held!.expiresAt.getTime() - started).toBeGreaterThanOrEqual(10 * 60_000 - 1000);
    expect(held!.expiresAt.getTime() - started).toBeLessThan(11 * 60_000);
    expect(sessionExpiresAt.get(unpaidSession)! * 1000 - started).toBeGreaterThanOrEqual(30 * 60_000);
    sessionStates.set(unpaidSession, 'open');
    // Not due yet: nothing happens.
    expect(await expireCheckout(deps, unpaid.checkoutId)).toBe('not-due');
    const deadline = new Date(held!.expiresAt.getTime() + 1000);
    expect(await expireCheckout(deps, unpaid.checkoutId, deadline)).toBe('expired');
    expect(expireCalls).toContain(unpaidSession);
    expect(sessionStates.get(unpaidSession)).toBe('expired');
    expect((await database.db.select().from(checkouts).where(eq(checkouts.id, unpaid.checkoutId)))[0]!.status).toBe('expired');
    expect((await getBalance(database.db, await userId('other@example.org'))).heldCents).toBe(0);

    // Paid just before the deadline, the webhook not yet here: Stripe refuses the expiry, and the payment is applied.
    await grantCredits(database.db, 'other@example.org', '5', 'stripe-hold-2');
    const paidLink = await fn.call('createPaymentLinkStreetFlavorMerch', { items: [{ id: teeId, qty: 1 }], useWallet: true, contact, shipping });
    paymentIntents.set(paidLink.url.split('/').pop()!, 'pi_fake_hold_2');
    const [paidRow] = await database.db.select().from(checkouts).where(eq(checkouts.id, paidLink.checkoutId));
    expect(await expireCheckout(deps, paidLink.checkoutId, new Date(paidRow!.expiresAt.getTime() + 1000))).toBe('paid');
    expect(await database.db.select().from(orders).where(eq(orders.checkoutId, paidLink.checkoutId))).toHaveLength(1);
    await expectLedgerConsistent();
    await jobs.stop();
  });

  it('refuses a forged signature and changes nothing', async () => {
    const before = (await database.db.select().from(orders)).length;
    const payload = completedEvent('evt_forged', 'cs_test_x', 'nope', 100);
    const forged = new Stripe('sk_test_x').webhooks.generateTestHeaderString({ payload, secret: 'whsec_wrong' });
    expect((await webhook(payload, forged)).status).toBe(400);
    expect((await webhook(payload, 't=1,v1=deadbeef')).status).toBe(400);
    expect(await database.db.select().from(orders)).toHaveLength(before);
  });

  it('reports a checkout change the transition table refuses as needing attention, and leaves the checkout as it was (issue 34)', async () => {
    const { reconcileCheckouts } = await import('./reconcile.flow.ts');
    const provider = createStripeProvider({
      secretKey: 'sk_test_x',
      webhookSecret: WEBHOOK_SECRET,
      publicUrl: stripeBase,
      api: { host: '127.0.0.1', port: fakePort, protocol: 'http' },
    });
    const jobs = await startJobQueue(database.db.$client, () => undefined);
    const deps = { db: database.db, jobs, provider, publicUrl: stripeBase };
    const fn = createFunctionsClient({ baseUrl: stripeBase, getAuthToken: () => tokens.other });
    await grantCredits(database.db, 'other@example.org', '5', 'stripe-refused-transition');
    const link = await fn.call('createPaymentLinkStreetFlavorMerch', { items: [{ id: teeId, qty: 1 }], useWallet: true, contact, shipping });
    // Paid at Stripe, the webhook lost: the reconciler asks about the quiet checkout and applies the payment.
    paymentIntents.set(link.url.split('/').pop()!, 'pi_fake_refused');
    const [before] = await database.db.select().from(checkouts).where(eq(checkouts.id, link.checkoutId));
    const buyer = await userId('other@example.org');
    const wallet = await getBalance(database.db, buyer);
    expect(before!.walletHeldCents).toBeGreaterThan(0);
    // Something outside the table (a hand-run SQL fix, say) refunds the checkout while its payment is captured:
    // the change to paid then starts from refunded, which the table refuses.
    await database.db.execute(
      sql.raw(`CREATE FUNCTION refund_behind_the_table() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN UPDATE checkout SET status = 'refunded' WHERE id = NEW.reference; RETURN NEW; END $$`),
    );
    await database.db.execute(
      sql.raw(`CREATE TRIGGER refund_behind_the_table AFTER INSERT ON ledger_entry FOR EACH ROW
        WHEN (NEW.kind = 'capture' AND NEW.reference = '${link.checkoutId}') EXECUTE FUNCTION refund_behind_the_table()`),
    );
    const quietSince = new Date(before!.createdAt.getTime() + 6 * 60_000);
    const errors = expectConsoleError();
    try {
      const report = await reconcileCheckouts(deps, quietSince);
      expect(report.failed).toBeGreaterThanOrEqual(1);
      expect(errors.mock.calls.map((call) => String(call[0]))).toContain(`Reconciling checkout ${link.checkoutId} failed (tried again next run):`);
    } finally {
      await database.db.execute(sql.raw('DROP TRIGGER refund_behind_the_table ON ledger_entry; DROP FUNCTION refund_behind_the_table()'));
    }
    const [attention] = await database.db.select().from(needsAttention).where(eq(needsAttention.subject, link.checkoutId));
    expect(attention).toMatchObject({ kind: 'checkout-transition', resolvedAt: null });
    expect(attention!.detail).toContain(`Checkout ${link.checkoutId} cannot change from refunded to paid.`);
    // The refusal rolled the whole payment back: the row, the hold and the orders are as they were.
    const [after] = await database.db.select().from(checkouts).where(eq(checkouts.id, link.checkoutId));
    expect(after).toEqual(before);
    expect(await getBalance(database.db, buyer)).toEqual(wallet);
    expect(await database.db.select().from(orders).where(eq(orders.checkoutId, link.checkoutId))).toHaveLength(0);

    // Nothing refuses it any more: the next run applies the payment.
    await reconcileCheckouts(deps, quietSince);
    expect((await database.db.select().from(checkouts).where(eq(checkouts.id, link.checkoutId)))[0]!.status).toBe('paid');
    expect(await database.db.select().from(orders).where(eq(orders.checkoutId, link.checkoutId))).toHaveLength(1);
    await expectLedgerConsistent();
    await jobs.stop();
  });
});

describe('orders: reading and fulfilment', () => {
  it('shows users only their own orders, newest first', async () => {
    const mine = await client('fan').call('listMyOrders', { limit: 100 });
    const fan = await userId('fan@example.org');
    expect(mine.items.length).toBeGreaterThan(0);
    expect(mine.items.every((o) => o.uid === fan)).toBe(true);
    const dates = mine.items.map((o) => o.createdAt);
    expect([...dates].sort().reverse()).toEqual(dates);
    const othersOrder = (
      await database.db
        .select()
        .from(orders)
        .where(eq(orders.userId, await userId('other@example.org')))
    )[0]!;
    expect(await client('fan').call('getMyOrder', { paymentIntentId: othersOrder.paymentIntentId })).toEqual({ order: null });
  });

  it('lets only admins mark an order fulfilled; it becomes shipped and leaves the open list', async () => {
    const [order] = await database.db.select().from(orders).where(eq(orders.orderFulfilled, false)).limit(1);
    expect((await errorOf(client('fan').call('markOrderFulfilled', { orderId: order!.id }))).code).toBe('permission-denied');
    expect((await errorOf(client('admin').call('markOrderFulfilled', { orderId: 'o_missing' }))).message).toBe(CHECKOUT_MESSAGES.orderNotFound);
    expect((await errorOf(client('admin').call('markOrderFulfilled', { orderId: order!.id, maxAttempts: 0 }))).code).toBe('invalid-argument');
    await client('admin').call('markOrderFulfilled', { orderId: order!.id });
    const buyerEmail = (await database.db.execute(sql`SELECT email FROM "user" WHERE id = ${order!.userId}`)).rows[0]!.email as string;
    await smtp.waitForText(buyerEmail, `${order!.id} has shipped`);
    const [after] = await database.db.select().from(orders).where(eq(orders.id, order!.id));
    expect([after!.orderFulfilled, after!.orderStatus]).toEqual([true, 'shipped']);
    const open = await client('admin').call('listOpenOrders', { limit: 100 });
    expect(open.items.map((o) => o.id)).not.toContain(order!.id);
    expect((await errorOf(client('fan').call('listOpenOrders', null))).code).toBe('permission-denied');
    await expectLedgerConsistent();
    void wallets;
  });
});
