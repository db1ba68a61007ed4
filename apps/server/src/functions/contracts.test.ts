import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionContracts } from '@storefront/domain/contracts/index.ts';
import { createAuthClient } from '@storefront/sdk/auth.ts';
import { createFunctionsClient } from '@storefront/sdk/callable.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import type { TestDatabase } from '../../test/database.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import { releaseProduct } from '../catalog/catalog.service.ts';
import { checkouts, users } from '../db/schema/index.ts';

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
