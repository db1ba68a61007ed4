import fc from 'fast-check';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { buildApp } from '../../src/app.ts';
import { releaseProduct } from '../../src/catalog/catalog.service.ts';
import { SERVICE_WRITES } from '../../src/service/service.writes.ts';
import { createServiceToken } from '../../src/service/service.tokens.ts';
import { grantCredits } from '../../src/wallet/wallet.commands.ts';
import { createTestDatabase, testConfig, type TestDatabase } from '../database.ts';
import { startSmtpPeer } from '../smtp.ts';

/**
 * Hostile input (issue 7, point 2): random and malformed payloads for every callable
 * function and service API route get a 4xx with a clear message, never a 5xx, and a
 * refused call changes no row. Runs are seeded (FUZZ_SEED to vary) and bounded
 * (FUZZ_RUNS per function, 50 by default). Upload abuse is covered by
 * src/storage/storage.test.ts.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 50);
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_122);

// Counters that count attempts by design (signup and Better Auth rate limits).
const COUNTERS = ['rate_limit', 'rate_limit_window'];

let database: TestDatabase;
let app: FastifyInstance;
let adminToken: string;
let serviceToken: string;
let productId: string;
let checksumSql: string;
/** Answers by status class, for the summary in docs/reliability.md. */
const tally: Record<string, number> = {};
const count = (status: number) => (tally[`${String(status).slice(0, 1)}xx`] = (tally[`${String(status).slice(0, 1)}xx`] ?? 0) + 1);

async function checksum(): Promise<string> {
  const { rows } = await database.pool.query<{ sum: string }>(checksumSql);
  return rows[0]!.sum;
}

/** One query that fingerprints every row of every public table (but the counters). */
async function buildChecksumSql(): Promise<string> {
  const { rows } = await database.pool.query<{ name: string }>(
    `SELECT quote_ident(c.relname) AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition AND NOT c.relname = ANY($1) ORDER BY 1`,
    [COUNTERS],
  );
  const parts = rows.map(({ name }) => `SELECT '${name}:' || count(*) || ':' || coalesce(md5(string_agg(t::text, E'\\n' ORDER BY t::text)), '') AS x FROM public.${name} t`);
  return `SELECT md5(string_agg(x, ',' ORDER BY x)) AS sum FROM (${parts.join(' UNION ALL ')}) s`;
}

// ---- payloads -------------------------------------------------------------------------

/** An object with an own `__proto__` (or `constructor`) key, as JSON.parse makes one. */
const pollution = fc.constantFrom(
  JSON.parse('{"__proto__": {"polluted": true}}') as unknown,
  JSON.parse('{"constructor": {"prototype": {"polluted": true}}}') as unknown,
  JSON.parse('{"a": {"__proto__": {"isAdmin": true}}}') as unknown,
);

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    null, true, false, 0, -0, -1, 0.5, -0.5, 1.5, 99.99, -2_147_483_649, 2 ** 53 + 1, 1e21, 1e308, -1e308,
    '', ' ', '0', '-1', '1e3', 'NaN', 'null', 'true', '[]', '{}',
    '<script>alert(1)</script>', "'; DROP TABLE \"order\"; --", '../../etc/passwd', '%00', '\u0000', 'a\u0000b', '\ud800', '\u202e', '🎵'.repeat(500),
    'x'.repeat(100_000), [], {}, [null], [[[]]],
  ),
  fc.integer(),
  fc.double(),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.string({ unit: 'grapheme', maxLength: 50 }),
  fc.jsonValue({ maxDepth: 3 }),
  pollution,
);

const hostileKey = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'isAdmin', 'userId', 'role', '', ' ', '$where'), fc.string({ maxLength: 20 }));

type Json = unknown;
/** Every path (list of keys) into a JSON value, the root included. */
function pathsOf(value: Json, prefix: (string | number)[] = []): (string | number)[][] {
  const here = [prefix];
  if (Array.isArray(value)) return here.concat(...value.map((item, i) => pathsOf(item, [...prefix, i])));
  if (value && typeof value === 'object') return here.concat(...Object.entries(value).map(([key, item]) => pathsOf(item, [...prefix, key])));
  return here;
}

/** A copy of `example` with one hostile change: a value replaced, a key added or one removed. */
function mutate(example: Json, path: (string | number)[], op: 'replace' | 'add' | 'remove', value: unknown, key: string): Json {
  if (path.length === 0 && op === 'replace') return value;
  const copy = structuredClone(example) as Record<string | number, unknown>;
  let parent: Record<string | number, unknown> = copy;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
  const last = path.at(-1);
  const target = last === undefined ? copy : (parent[last] as Record<string | number, unknown>);
  if (op === 'add' && target && typeof target === 'object') {
    // defineProperty: a plain assignment to `__proto__` would set the prototype, not a key.
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else if (op === 'remove' && last !== undefined) {
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete parent[last];
  } else if (last !== undefined) {
    parent[last] = value;
  } else {
    return value;
  }
  return copy;
}

/** Bodies built around `example`; `wrap` puts a value in the route's envelope. */
function payloads(example: Json, wrap: (value: unknown) => string = (value) => JSON.stringify({ data: value })): fc.Arbitrary<string> {
  const paths = pathsOf(example);
  const mutated = fc
    .tuple(fc.nat({ max: paths.length - 1 }), fc.constantFrom('replace', 'add', 'remove' as const), hostileValue, hostileKey)
    .map(([index, op, value, key]) => wrap(mutate(example, paths[index]!, op as 'replace' | 'add' | 'remove', value, key)));
  const whole = hostileValue.map(wrap);
  const raw = fc.oneof(
    hostileValue.map((value) => JSON.stringify(value) ?? 'null'),
    fc.string({ maxLength: 200 }),
    fc.constantFrom('', '{', '{"data":', '{"data": 1,}', '[1,2', 'null', '"data"', '{"data": NaN}', '{"data": 1e999}', `{"data": ${'['.repeat(5000)}${']'.repeat(5000)}}`),
  );
  return fc.oneof({ weight: 6, arbitrary: mutated }, { weight: 2, arbitrary: whole }, { weight: 1, arbitrary: raw });
}

// ---- the checks -----------------------------------------------------------------------

/** A refusal that a person can act on: 4xx, JSON, a message that is not the 5xx one. */
function expectClearRefusal(response: LightMyRequestResponse, sent: string) {
  const where = `${response.statusCode} ${response.body.slice(0, 300)} for ${sent.slice(0, 300)}`;
  expect(response.statusCode, where).toBeGreaterThanOrEqual(400);
  expect(response.statusCode, where).toBeLessThan(500);
  const body = response.json<{ error?: { message?: string }; message?: string }>();
  const message = body.error?.message ?? '';
  expect(message.length, where).toBeGreaterThan(5);
  expect(message, where).not.toBe('Internal error.');
}

async function fuzz(url: string, authorization: string, example: Json) {
  await fc.assert(
    fc.asyncProperty(payloads(example), async (body) => {
      const before = await checksum();
      const response = await app.inject({ method: 'POST', url, headers: { authorization, 'content-type': 'application/json' }, payload: body });
      count(response.statusCode);
      expect(response.statusCode, `${response.body.slice(0, 300)} for ${body.slice(0, 300)}`).toBeLessThan(500);
      if (response.statusCode >= 400) {
        expectClearRefusal(response, body);
        expect(await checksum(), `a refused call changed rows: ${body.slice(0, 300)}`).toBe(before);
      }
    }),
    { numRuns: RUNS, seed: SEED, endOnFailure: true },
  );
}

let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;

beforeAll(async () => {
  database = await createTestDatabase();
  // Mail leaves through SMTP as in production, so a mail the worker delivers later for an
  // accepted signup (every signup queues one) is not a dev-mailbox row a refusal "changed".
  smtp = await startSmtpPeer();
  const config = testConfig({ env: { PORT: '3998', SIGNUP_RATE_LIMIT: '1000000', SMTP_URL: smtp.url } });
  await createAccount(database.db, config, { email: 'admin@example.org', username: 'admin', name: 'Admin', password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true }, { emailVerified: true, role: 'admin', allowReservedUsername: true });
  await grantCredits(database.db, 'admin@example.org', '500', 'fuzz-grant');
  productId = await releaseProduct(database.db, { name: 'Tee', description: 'Tee', priceCents: 2500, images: ['/content/covers/cover-01.svg'] });
  app = await buildApp({ config, db: database.db, logger: false });
  const signIn = await app.inject({ method: 'POST', url: '/api/auth/sign-in/email', headers: { 'content-type': 'application/json' }, payload: { email: 'admin@example.org', password: 'pass words' } });
  adminToken = `Bearer ${String(signIn.headers['set-auth-token'])}`;
  serviceToken = `Bearer ${(await createServiceToken(database.db, 'fuzz')).token}`;
  checksumSql = await buildChecksumSql();
});

afterAll(async () => {
  console.log(`hostile input: ${Object.values(tally).reduce((a, b) => a + b, 0)} generated requests, by status: ${JSON.stringify(tally)} (seed ${SEED}, ${RUNS} runs each)`);
  await app?.close();
  await smtp?.close();
  await database?.close();
});

const contact = { name: 'Ann Buyer', email: 'ann@example.org', phone: '555' };
const shipping = { name: 'Ann Buyer', line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };
const items = () => [{ id: productId, qty: 1 }];
const quote = { subtotalCents: 2500, shippingCents: 500, taxCents: 278, walletAppliedCents: 3278, totalCents: 3278 };

/** A valid call of each function: the fuzzer changes one thing in it at a time. */
const FUNCTION_EXAMPLES: Record<string, () => Json> = {
  listHistory: () => ({ orderBy: [{ field: 'year', direction: 'desc' }], limit: 10 }),
  createAccount: () => ({ email: 'new.fan@example.org', password: 'pass words', confirmPassword: 'pass words', name: 'New Fan', username: 'newfan', city: 'Oslo', country: 'NO', acceptedTerms: true }),
  getAssetsSummary: () => null,
  getProfile: () => null,
  recordDeviceToken: () => ({ deviceToken: 'device-token-1' }),
  quoteCheckout: () => ({ items: items(), useWallet: true }),
  completeWalletOnlyOrderStreetFlavor: () => ({ items: items(), contact, shipping, quote, checkoutId: 'fuzz-checkout-1' }),
  createPaymentLinkStreetFlavorMerch: () => ({ items: items(), useWallet: false, contact, shipping, redirectUrl: '/order-confirmation', checkoutId: 'fuzz-link-1' }),
  listMyOrders: () => ({ limit: 10, after: '1775044800123456|o_fuzz' }),
  getMyOrder: () => ({ paymentIntentId: 'wallet_x' }),
  getWallet: () => null,
  getDat: () => ({ id: 'dat-1' }),
  createOrRetrieveAccount: () => ({ email: 'admin@example.org' }),
  createStripeOnboardingLinkIOS: () => null,
  getCashout: () => null,
  requestPayout: () => ({ amountCents: 100 }),
  releaseBizarreProduct: () => ({ name: 'Fuzz Tee', description: 'A tee', priceCents: 1999, images: ['/content/covers/cover-02.svg'], category: 'music' }),
  editBizarreProduct: () => ({ id: productId, name: 'Tee', description: 'Tee', priceCents: 2500, images: ['/content/covers/cover-01.svg'], order: 1, isActive: true, category: 'bundles' }),
  listOpenOrders: () => ({ limit: 10, after: '1775044800123456|o_fuzz' }),
  markOrderFulfilled: () => ({ orderId: 'o_missing' }),
};

const SERVICE_EXAMPLES: Record<keyof typeof SERVICE_WRITES, () => Json> = {
  'wallet-credits': () => ({ externalId: 'fuzz-credit-1', email: 'admin@example.org', cents: 100, note: 'fuzz' }),
  dats: () => ({
    externalId: 'fuzz-dat-1',
    asset: { id: 'asset-1', creatorId: 'c1', creatorUsername: 'creator', songName: 'Song', artistName: 'Artist', artworkUrl: 'https://cdn.example/a.png', releasedAt: '2024-01-01T00:00:00Z' },
    edition: 1,
    sold: 2,
    royaltiesCents: 10,
    earningsCents: 20,
    email: 'admin@example.org',
  }),
  metrics: () => ({ externalId: 'fuzz-metrics-1', utilitySoldCents: 5, poolCents: 6, circulating: 7 }),
  'utility-spend': () => ({ externalId: 'fuzz-spend-1', email: 'admin@example.org', addCents: 5, awarded: 1 }),
  'credit-strings': () => ({ externalId: 'fuzz-credits-1', email: 'admin@example.org', currentCredits: '1.50', earnedCredits: '2', streamEarningsCents: 3, salesEarningsCents: 4 }),
  'reward-tokens': () => ({ externalId: 'fuzz-reward-1', email: 'admin@example.org', qty: 3 }),
  'wallet-entries': () => ({ externalId: 'fuzz-entry-1', email: 'admin@example.org', entryId: 'entry-1', priceCents: 100, qty: 1, rewards: 0.5, rebate: 0.1 }),
};

describe('hostile input to callable functions', () => {
  it('covers every function the server serves', () => {
    expect(Object.keys(FUNCTION_EXAMPLES).sort()).toEqual(app.callableFunctions.map((fn) => fn.name).sort());
  });

  it.each(Object.keys(FUNCTION_EXAMPLES))('%s: never a 5xx; a refusal is clear and changes no row', async (name) => {
    await fuzz(`/fn/${name}`, adminToken, FUNCTION_EXAMPLES[name]!());
  });
});

describe('hostile input to the service API', () => {
  it('covers every service route', () => {
    expect(Object.keys(SERVICE_EXAMPLES).sort()).toEqual(Object.keys(SERVICE_WRITES).sort());
  });

  it.each(Object.keys(SERVICE_EXAMPLES) as (keyof typeof SERVICE_WRITES)[])('%s: never a 5xx; a refusal is clear and changes no row', async (kind) => {
    // The envelope of the service API is the body itself, not {"data": ...}.
    await fc.assert(
      fc.asyncProperty(payloads(SERVICE_EXAMPLES[kind](), (value) => JSON.stringify(value) ?? 'null'), async (body) => {
        const before = await checksum();
        const response = await app.inject({ method: 'POST', url: `/api/service/${kind}`, headers: { authorization: serviceToken, 'content-type': 'application/json' }, payload: body });
        count(response.statusCode);
        expect(response.statusCode, `${response.body.slice(0, 300)} for ${body.slice(0, 300)}`).toBeLessThan(500);
        if (response.statusCode >= 400) {
          expectClearRefusal(response, body);
          expect(await checksum(), `a refused write changed rows: ${body.slice(0, 300)}`).toBe(before);
        }
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  });
});

describe('hostile input to the shop list (GET /api/products, issue 17)', () => {
  const text = fc.oneof(
    hostileValue.map((value) => (typeof value === 'string' ? value : JSON.stringify(value) ?? '')),
    fc.constantFrom('merch', 'music', 'bundles', '24', '60', '61', '0', '-1', '1.5', '%', '_', '\\', '%%%', "' OR 1=1 --", 'x'.repeat(101)),
    fc.base64String({ maxLength: 80 }).map((value) => value.replaceAll('+', '-').replaceAll('/', '_').replaceAll('=', '')),
    fc.jsonValue({ maxDepth: 2 }).map((value) => Buffer.from(JSON.stringify(value) ?? 'null').toString('base64url')),
  );
  const key = fc.oneof(fc.constantFrom('q', 'category', 'after', 'limit'), hostileKey);
  const query = fc.array(fc.tuple(key, text), { maxLength: 5 }).map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'));

  it('never a 5xx; a refusal is clear and changes no row', async () => {
    await fc.assert(
      fc.asyncProperty(query, async (search) => {
        const before = await checksum();
        const response = await app.inject({ method: 'GET', url: `/api/products?${search}` });
        count(response.statusCode);
        expect(response.statusCode, `${response.body.slice(0, 300)} for ?${search.slice(0, 300)}`).toBeLessThan(500);
        if (response.statusCode >= 400) expectClearRefusal(response, search);
        else expect(response.json<{ products: unknown[] }>().products).toBeInstanceOf(Array);
        expect(await checksum()).toBe(before);
      }),
      { numRuns: RUNS * 4, seed: SEED, endOnFailure: true },
    );
  });

  it('a cursor of the right shape with values Postgres would refuse is a 400', async () => {
    for (const tuple of [[2 ** 31, 'a', 'p'], [1.5, 'a', 'p'], [1, 'a\u0000', 'p'], [1, 'a', ''], [1, 'a', 'x'.repeat(65)], [1, 'a', 'p', 4], { 0: 1 }]) {
      const response = await app.inject({ method: 'GET', url: `/api/products?after=${Buffer.from(JSON.stringify(tuple)).toString('base64url')}` });
      expectClearRefusal(response, JSON.stringify(tuple));
    }
  });
});

describe('hostile bodies and requests', () => {
  it('a 10 MB body is refused as too large, and changes nothing', async () => {
    const before = await checksum();
    const huge = JSON.stringify({ data: { items: [{ id: 'x'.repeat(10 * 1024 * 1024), qty: 1 }], useWallet: true } });
    for (const url of ['/fn/quoteCheckout', '/fn/createAccount', '/api/service/wallet-credits']) {
      const response = await app.inject({ method: 'POST', url, headers: { authorization: url.startsWith('/api/') ? serviceToken : adminToken, 'content-type': 'application/json' }, payload: huge });
      expectClearRefusal(response, 'a 10 MB body');
      expect(response.json<{ error: { message: string } }>().error.message).toBe('The request body is too large.');
    }
    expect(await checksum()).toBe(before);
  });

  it.each([
    ['text/plain', '{"data":null}'],
    ['application/x-www-form-urlencoded', 'data=1'],
    ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="data"\r\n\r\n1\r\n--x--'],
    ['application/xml', '<data/>'],
  ])('a %s body is refused with a 4xx', async (type, payload) => {
    const response = await app.inject({ method: 'POST', url: '/fn/getWallet', headers: { authorization: adminToken, 'content-type': type }, payload });
    expectClearRefusal(response, type);
  });

  it('invalid UTF-8 and unknown or path-like function names get a 4xx', async () => {
    const bad = await app.inject({ method: 'POST', url: '/fn/getWallet', headers: { authorization: adminToken, 'content-type': 'application/json' }, payload: Buffer.from([0x7b, 0x22, 0x64, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]) });
    expect(bad.statusCode).toBe(400);
    for (const url of ['/fn/..%2f..%2fetc%2fpasswd', '/fn/constructor', '/fn/__proto__', '/fn/toString', `/fn/${'a'.repeat(5000)}`]) {
      const response = await app.inject({ method: 'POST', url, headers: { authorization: adminToken, 'content-type': 'application/json' }, payload: '{"data":null}' });
      expect(response.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(response.statusCode, url).toBeLessThan(500);
    }
  });

  it('left no prototype polluted in the server process', () => {
    const probe = {} as Record<string, unknown>;
    expect(probe.polluted).toBeUndefined();
    expect(probe.isAdmin).toBeUndefined();
    expect(Object.keys(Object.prototype)).toEqual([]);
  });
});
