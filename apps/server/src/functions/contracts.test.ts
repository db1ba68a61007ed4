import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { functionContracts } from '@storefront/domain/contracts/index.ts';
import { strictly } from '@storefront/domain/contracts/strict.ts';
import { jsonSchemaOf } from '@storefront/domain/openapi.ts';
import { createAuthClient } from '@storefront/sdk/auth.ts';
import { createFunctionsClient } from '@storefront/sdk/callable.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { expectConsoleError } from '../../test/console.ts';
import type { TestDatabase } from '../../test/database.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import { releaseProduct } from '../catalog/catalog.service.ts';
import { checkouts, productVariants, users } from '../db/schema/index.ts';
import { grantCredits } from '../wallet/wallet.commands.ts';
import { defineTestFunction } from './registry.ts';

/**
 * Decision 025: every callable function has one contract, and the Firebase SDK's nulls
 * (issue 19: `{"data": null}` for a call without arguments, null for an optional field
 * left undefined) are accepted wherever a value is optional.
 */
let shop: TestApp;
let database: TestDatabase;
let app: FastifyInstance;
let base: string;
let token: string;
let teeId: string;

beforeAll(async () => {
  shop = await startTestApp({
    config: { env: { SIGNUP_RATE_LIMIT: '1000' } },
    async seed({ db, config }) {
      await createAccount(
        db,
        config,
        { email: 'nulls@example.org', username: 'Nulls', name: 'Nulls', password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true },
        { emailVerified: true },
      );
      teeId = await releaseProduct(db, { name: 'Null Tee', description: 'Tee', priceCents: 2500, images: ['/content/covers/cover-01.svg'] });
    },
  });
  ({ app, database, baseUrl: base } = shop);
  token = (await createAuthClient({ baseUrl: base, functions: createFunctionsClient({ baseUrl: base }) }).signIn('nulls@example.org', 'pass words')).token!;
});

afterAll(async () => {
  await shop?.close();
});

/** The request a Firebase SDK sends, raw: no client of ours in between. */
async function post(name: string, data: unknown, signedIn = true) {
  const response = await fetch(`${base}/fn/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(signedIn ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ data }),
  });
  return { status: response.status, body: (await response.json()) as { data?: { entries?: unknown[]; checkoutId?: string }; error?: { status: string; message: string } } };
}

describe('the contract table', () => {
  it('has exactly the functions the server registers, with the access each declares', () => {
    const registered = Object.fromEntries(app.callableFunctions.map((fn) => [fn.name, fn.access]));
    const contracted = Object.fromEntries(Object.entries(functionContracts).map(([name, contract]) => [name, contract.access]));
    expect(registered).toEqual(contracted);
  });
});

describe('null where a value is optional (issue 19)', () => {
  it('listHistory() with data null is the default query', async () => {
    const { status, body } = await post('listHistory', null, false);
    expect(status).toBe(200);
    expect(Array.isArray(body.data?.entries)).toBe(true);
    const nulls = await post('listHistory', { orderBy: null, limit: null, limitToLast: null, startAfter: null, endBefore: null }, false);
    expect(nulls.status).toBe(200);
  });

  it('calls without arguments take data null', async () => {
    for (const name of ['getWallet', 'getCashout', 'getProfile', 'listMyOrders']) {
      const { status } = await post(name, null);
      expect(status, name).toBe(200);
    }
    expect((await post('listMyOrders', { limit: null, after: null })).status).toBe(200);
    expect((await post('getAssetsSummary', null, false)).status).toBe(200);
  });

  it('a card checkout with contact.phone, line2, state, redirectUrl and checkoutId null stores them as left out', async () => {
    const { status, body } = await post('createPaymentLinkStreetFlavorMerch', {
      items: [{ id: teeId, qty: 1 }],
      useWallet: false,
      contact: { name: 'Nulls', email: 'nulls@example.org', phone: null },
      // A country without states (a US address needs its state since issue 26).
      shipping: { name: 'Nulls', line1: '1 Record Row', line2: null, city: 'London', state: null, postal_code: 'N1 9GU', country: 'GB' },
      redirectUrl: null,
      checkoutId: null,
      shippingMethodId: null,
      quote: null,
    });
    expect(status).toBe(200);
    const [row] = await database.db.select().from(checkouts).where(eq(checkouts.id, body.data!.checkoutId!));
    expect(row!.contact.phone).toBe('');
    expect(row!.shipping.line2).toBe('');
  });

  it('optional numbers and flags may be null: requestPayout reaches its own rule', async () => {
    const { status, body } = await post('requestPayout', { amountCents: null });
    expect(status).toBe(400);
    expect(body.error).toEqual({ status: 'FAILED_PRECONDITION', message: 'Connect a payout account first.', requestId: expect.any(String) });
  });

  it('signup takes null for the optional city, country, state and account type', async () => {
    const form = { email: 'nullsignup@example.org', password: 'pass words', confirmPassword: 'pass words', name: 'Null Signup', username: 'NullSignup', acceptedTerms: true };
    const { status } = await post('createAccount', { ...form, city: null, country: null, state: null, accountType: null }, false);
    expect(status).toBe(200);
    const [user] = await database.db.select().from(users).where(eq(users.email, 'nullsignup@example.org'));
    expect(user).toMatchObject({ city: '', country: null, accountType: 'Fan' });
  });

  it('a required value stays required: getDat with data null is refused', async () => {
    const { status, body } = await post('getDat', null);
    expect(status).toBe(400);
    expect(body.error?.status).toBe('INVALID_ARGUMENT');
  });
});

describe('answers parsed strictly by their output contracts (issue 40 item 11)', () => {
  it('every contract’s output closes its objects as the OpenAPI document does', () => {
    for (const [name, contract] of Object.entries(functionContracts)) {
      const strict = strictly(contract.output);
      // An unknown key on the answer's top level is refused wherever the answer is an object.
      const schema = jsonSchemaOf(contract.output, 'output');
      if (schema.type === 'object' && schema.additionalProperties === false) {
        const sample = strict.safeParse({ __unlisted: 1 });
        expect(sample.success, name).toBe(false);
      }
    }
  });

  it('the order answers (listMyOrders, getMyOrder, listOpenOrders) carry variantId, which their contract lists', async () => {
    await grantCredits(database.db, 'nulls@example.org', '100', 'strict-answers');
    const variantProduct = await releaseProduct(database.db, {
      name: 'Strict Tee',
      description: 'Tee',
      priceCents: 1500,
      images: ['/content/covers/cover-01.svg'],
      variants: [{ options: [], sku: 'STRICT-TEE', priceCents: null, stock: 5, perCustomerLimit: null }],
    });
    const [variant] = await database.db.select({ id: productVariants.id }).from(productVariants).where(eq(productVariants.productId, variantProduct));
    const items = [{ id: variantProduct, variantId: variant!.id, qty: 1 }];
    const shipping = { name: 'Nulls', line1: '1 Record Row', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };
    const quote = await post('quoteCheckout', { items, useWallet: true, destination: { country: 'US', state: 'IL', postal_code: '62701' } });
    expect(quote.status).toBe(200);
    const placed = (await post('completeWalletOnlyOrderStreetFlavor', {
      items,
      contact: { name: 'Nulls', email: 'nulls@example.org', phone: '' },
      shipping,
      quote: quote.body.data,
      checkoutId: 'strict-answers-1',
    })) as { status: number; body: { data?: { paymentIntentId: string } } };
    expect(placed.status).toBe(200);
    await database.db.update(users).set({ role: 'admin' }).where(eq(users.email, 'nulls@example.org'));
    const answers = {
      listMyOrders: await post('listMyOrders', null),
      getMyOrder: await post('getMyOrder', { paymentIntentId: placed.body.data!.paymentIntentId }),
      listOpenOrders: await post('listOpenOrders', null),
    };
    for (const [name, answer] of Object.entries(answers)) {
      // Answered at all: the server parses every answer strictly in tests (functions.routes.ts) and a stray field is a 500.
      expect(answer.status, name).toBe(200);
      const contract = functionContracts[name as keyof typeof answers];
      expect(strictly(contract.output).safeParse(answer.body.data).success, name).toBe(true);
      expect(JSON.stringify(answer.body.data), name).toContain(`"variantId":"${variant!.id}"`);
    }
  });

  it('an answer with a field its contract does not list is refused in tests, naming the function and the field', async () => {
    const stray = defineTestFunction({
      name: 'strayField',
      access: 'public',
      input: z.unknown(),
      handler: async () => ({ ok: true, lines: [{ id: 'x', secret: 'kept' }] }),
    });
    const strict = await startTestApp({
      database,
      listen: false,
      build: { functions: [{ ...stray, output: z.object({ ok: z.boolean(), lines: z.array(z.object({ id: z.string() })) }) }] },
    });
    try {
      const logged = expectConsoleError();
      const response = await strict.app.inject({ method: 'POST', url: '/fn/strayField', payload: { data: null } });
      expect(response.statusCode).toBe(500);
      expect(String(logged.mock.calls.at(-1)?.[0])).toMatch(/^strayField answered outside its output contract: [\s\S]*secret/);
    } finally {
      await strict.close();
    }
  });
});
