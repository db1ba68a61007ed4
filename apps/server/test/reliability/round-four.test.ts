import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISCOUNT_MESSAGES } from '@storefront/domain/discounts.ts';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { getProduct, releaseProduct } from '../../src/catalog/catalog.service.ts';
import { CODE_ATTEMPTS_PER_ACCOUNT, CODE_ATTEMPTS_PER_ADDRESS } from '../../src/checkout/code-attempts.ts';
import { checkouts, discountCodes } from '../../src/db/schema/index.ts';
import { createCode } from '../../src/discounts/discounts.service.ts';
import { grantCredits } from '../../src/wallet/wallet.commands.ts';
import { startTestApp, type TestApp } from '../app.ts';

/**
 * Issue 40 ("Harden, round four"), the attacker's items: each shown closed on two instances
 * sharing one database, as production runs (docs/reliability.md).
 */
let first: TestApp;
let second: TestApp;
const bearer: Record<string, string> = {};
const ids: Record<string, string> = {};
const ACCOUNTS = ['quoter', 'carder', 'neighbour1', 'neighbour2', 'guesser', 'crowd1', 'crowd2', 'crowd3', 'crowd4', 'honest', 'gambler', 'placer'];
const contact = { name: 'Fan', email: 'fan@example.org', phone: '' };
const shipping = { name: 'Fan', line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };
let items: { id: string; variantId: string; qty: number }[];

type Answer<T> = { status: number; body: { data?: T; error?: { message: string; status: string; details?: Record<string, unknown> } } };

/** A callable through one of the two instances, as a client at `address` (the socket's peer: no trusted proxies). */
async function call<T = Record<string, unknown>>(app: FastifyInstance, who: string, name: string, data: unknown, address = '127.0.0.1'): Promise<Answer<T>> {
  const response = await app.inject({
    method: 'POST',
    url: `/fn/${name}`,
    remoteAddress: address,
    headers: { authorization: bearer[who]!, 'content-type': 'application/json' },
    payload: { data },
  });
  return { status: response.statusCode, body: response.json() };
}
/** Alternates between the instances: a limit must hold across them. */
const instance = (i: number) => (i % 2 === 0 ? first.app : second.app);

const quote = (who: string, i: number, address?: string, discountCode?: string) =>
  call<{ discountRefused: string | null; discountCode: string | null; discountCents: number }>(
    instance(i),
    who,
    'quoteCheckout',
    { items, useWallet: false, destination: { country: 'US', state: 'IL' }, ...(discountCode ? { discountCode } : {}) },
    address,
  );
const cardCheckout = (who: string, i: number, address?: string, discountCode?: string) =>
  call(
    instance(i),
    who,
    'createPaymentLinkStreetFlavorMerch',
    { items, useWallet: false, contact, shipping, checkoutId: `c-${who}-${i}`, ...(discountCode ? { discountCode } : {}) },
    address,
  );

beforeAll(async () => {
  // The defaults of config.ts (the test helpers raise them for other tests; here they are the shop's).
  const env = { SIGNIN_RATE_LIMIT: '1000', CHECKOUT_RATE_LIMIT: '10', CHECKOUT_ADDRESS_RATE_LIMIT: '30', QUOTE_RATE_LIMIT: '60', QUOTE_ADDRESS_RATE_LIMIT: '180' };
  first = await startTestApp({
    listen: false,
    config: { env },
    async seed({ db, config }) {
      for (const name of ACCOUNTS) {
        const form = { email: `${name}@example.org`, username: name, name, password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true };
        ids[name] = (await createAccount(db, config, form, { emailVerified: true })).userId;
      }
      await grantCredits(db, 'honest@example.org', '500', 'round-four-honest');
      const productId = await releaseProduct(db, {
        name: 'Round Four Tee',
        description: 'Tee',
        priceCents: 2000,
        images: ['/content/covers/cover-01.svg'],
        variants: [{ options: [], sku: 'R4-TEE', priceCents: null, stock: null, perCustomerLimit: null }],
      });
      const product = await getProduct(db, productId, { includeInactive: false });
      items = [{ id: productId, variantId: product.variants[0]!.id, qty: 1 }];
    },
  });
  second = await startTestApp({ database: first.database, listen: false, config: { env } });
  for (const name of ACCOUNTS) {
    const signIn = await first.app.inject({
      method: 'POST',
      url: '/api/auth/sign-in/email',
      headers: { 'content-type': 'application/json' },
      payload: { email: `${name}@example.org`, password: 'pass words' },
    });
    bearer[name] = `Bearer ${String(signIn.headers['set-auth-token'])}`;
  }
}, 120_000);

afterAll(async () => {
  await second?.close();
  await first?.close();
});

describe('item 7: card checkouts and quotes are limited per account and per address, across instances', () => {
  it('an account gets 60 quotes a minute, then "Too many attempts", whichever instance it asks', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 61; i += 1) statuses.push((await quote('quoter', i, '198.51.100.1')).status);
    expect(statuses.slice(0, 60).every((status) => status === 200)).toBe(true);
    const refused = await quote('quoter', 61, '198.51.100.2');
    expect(statuses[60]).toBe(429);
    expect(refused).toMatchObject({ status: 429, body: { error: { status: 'RESOURCE_EXHAUSTED', message: 'Too many attempts. Please wait a minute and try again.' } } });
  });

  it('an account gets 10 card checkouts a minute: the 11th makes no checkout and calls no provider', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i += 1) statuses.push((await cardCheckout('carder', i, `198.51.100.${10 + i}`)).status);
    expect(statuses).toEqual([...Array<number>(10).fill(200), 429, 429]);
    const made = await first.db.select({ id: checkouts.id }).from(checkouts).where(eq(checkouts.userId, ids.carder!));
    expect(made).toHaveLength(10);
  });

  it('one address gets 30 card checkouts a minute, however many accounts it uses', async () => {
    const address = '203.0.113.30';
    const statuses: number[] = [];
    for (const who of ['neighbour1', 'neighbour2', 'crowd1', 'crowd2']) for (let i = 0; i < 8; i += 1) statuses.push((await cardCheckout(who, i, address)).status);
    // 32 tries of four accounts (8 each, under their own limit of 10): the address stops the last two.
    expect(statuses.filter((status) => status === 200)).toHaveLength(30);
    expect(statuses.slice(30)).toEqual([429, 429]);
    const fromThere = await first.db.execute<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM checkout WHERE user_id IN (${ids.neighbour1}, ${ids.neighbour2}, ${ids.crowd1}, ${ids.crowd2})`,
    );
    expect(fromThere.rows[0]!.n).toBe(30);
    // Another address is not held back by that one.
    expect((await cardCheckout('crowd3', 0, '203.0.113.31')).status).toBe(200);
  });
});

describe('item 2: discount codes answer alike and cannot be guessed quickly', () => {
  it('unknown, stopped, expired, not yet valid, used up, too small a subtotal, nothing it applies to, used by you: one answer', async () => {
    const day = 86_400_000;
    const admin = { operator: 'cli' } as const;
    const base = { kind: 'percent' as const, value: 10, scope: 'order' as const };
    const made = {
      stopped: await createCode(first.db, admin, { ...base, code: 'R4-STOPPED' }),
      expired: await createCode(first.db, admin, {
        ...base,
        code: 'R4-EXPIRED',
        startsAt: new Date(Date.now() - 2 * day).toISOString(),
        endsAt: new Date(Date.now() - day).toISOString(),
      }),
      notYet: await createCode(first.db, admin, { ...base, code: 'R4-LATER', startsAt: new Date(Date.now() + day).toISOString() }),
      usedUp: await createCode(first.db, admin, { ...base, code: 'R4-USEDUP', useLimit: 1 }),
      subtotal: await createCode(first.db, admin, { ...base, code: 'R4-BIG', minSubtotalCents: 99_999_999 }),
      nothing: await createCode(first.db, admin, { ...base, code: 'R4-NOTHING', scope: 'products', productIds: ['no-such-product'] }),
      once: await createCode(first.db, admin, { ...base, code: 'R4-ONCE', oncePerAccount: true }),
    };
    await first.db.update(discountCodes).set({ active: false }).where(eq(discountCodes.id, made.stopped.id));
    await first.db.update(discountCodes).set({ uses: 1 }).where(eq(discountCodes.id, made.usedUp.id));
    // The honest buyer uses the once-per-account code with a wallet order, then tries it again.
    const reviewed = await call<Record<string, unknown>>(
      first.app,
      'honest',
      'quoteCheckout',
      { items, useWallet: true, destination: { country: 'US', state: 'IL', postal_code: '62701' }, discountCode: 'R4-ONCE' },
      '192.0.2.50',
    );
    expect(reviewed.body.data).toMatchObject({ discountCode: 'R4-ONCE', discountRefused: null });
    const order = await call(
      first.app,
      'honest',
      'completeWalletOnlyOrderStreetFlavor',
      { items, contact, shipping, quote: reviewed.body.data, checkoutId: 'r4-once-order', discountCode: 'R4-ONCE' },
      '192.0.2.50',
    );
    expect(order.status, JSON.stringify(order.body)).toBe(200);

    const answers = new Set<string | null | undefined>();
    const typed = ['NO-SUCH-CODE', 'R4-STOPPED', 'R4-EXPIRED', 'R4-LATER', 'R4-USEDUP', 'R4-BIG', 'R4-NOTHING', 'R4-ONCE'];
    for (const [i, code] of typed.entries()) {
      const answer = await quote('honest', i, '192.0.2.51', code);
      expect(answer.body.data).toMatchObject({ discountCode: null, discountCents: 0 });
      answers.add(answer.body.data?.discountRefused);
      // Placing the order with it gets the same sentence (another account: the once-per-account code is the honest buyer's own).
      const placed = await cardCheckout(code === 'R4-ONCE' ? 'honest' : 'placer', 100 + i, '192.0.2.52', code);
      expect(placed.status).toBe(400);
      answers.add(placed.body.error?.message);
    }
    expect(await first.db.select().from(checkouts).where(eq(checkouts.userId, ids.placer!))).toHaveLength(0);
    expect([...answers]).toEqual([DISCOUNT_MESSAGES.notUsable]);
  });

  it(`at most ${CODE_ATTEMPTS_PER_ACCOUNT} code attempts a minute per account: then even a good code is not judged`, async () => {
    const good = await createCode(first.db, { operator: 'cli' }, { code: 'R4-GOOD', kind: 'percent', value: 20, scope: 'order' });
    for (let i = 0; i < CODE_ATTEMPTS_PER_ACCOUNT; i += 1) {
      expect((await quote('guesser', i, `198.51.100.${100 + i}`, `GUESS-${i}`)).body.data?.discountRefused).toBe(DISCOUNT_MESSAGES.notUsable);
    }
    const limited = await quote('guesser', 10, '198.51.100.200', good.code);
    // Still a quote (the cart is priced without the code), with the limit's sentence by the code.
    expect(limited).toMatchObject({
      status: 200,
      body: { data: { discountCode: null, discountCents: 0, discountRefused: 'Too many attempts. Please wait a minute and try again.' } },
    });
    const placed = await cardCheckout('guesser', 11, '198.51.100.201', good.code);
    expect(placed).toMatchObject({ status: 429, body: { error: { status: 'RESOURCE_EXHAUSTED' } } });
    expect(await first.db.select().from(checkouts).where(eq(checkouts.userId, ids.guesser!))).toHaveLength(0);
    // 50 guesses at once are cut at the limit too (the counter is taken before the code is judged).
    const burst = await Promise.all(Array.from({ length: 50 }, (_, i) => quote('gambler', i, `198.51.100.${i}`, i === 49 ? good.code : `BURST-${i}`)));
    const judged = burst.filter((answer) => answer.body.data?.discountRefused !== 'Too many attempts. Please wait a minute and try again.');
    expect(judged.length).toBeLessThanOrEqual(CODE_ATTEMPTS_PER_ACCOUNT);
  });

  it(`at most ${CODE_ATTEMPTS_PER_ADDRESS} code attempts a minute per address, across accounts; a code that applies is not an attempt`, async () => {
    const address = '203.0.113.77';
    const refusals: (string | null | undefined)[] = [];
    for (const who of ['crowd1', 'crowd2', 'crowd3', 'crowd4']) {
      for (let i = 0; i < 8; i += 1) refusals.push((await quote(who, i, address, `ADDR-${who}-${i}`)).body.data?.discountRefused);
    }
    expect(refusals.slice(0, CODE_ATTEMPTS_PER_ADDRESS).every((refusal) => refusal === DISCOUNT_MESSAGES.notUsable)).toBe(true);
    expect(refusals.slice(CODE_ATTEMPTS_PER_ADDRESS)).toEqual(['Too many attempts. Please wait a minute and try again.', 'Too many attempts. Please wait a minute and try again.']);
    // A shopper re-quoting with the code they applied (address form, shipping method) is not limited by it.
    for (let i = 0; i < 15; i += 1) {
      expect((await quote('neighbour1', i, '203.0.113.78', 'R4-GOOD')).body.data).toMatchObject({ discountCode: 'R4-GOOD', discountRefused: null });
    }
  });
});
