import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import type { Config } from '../../src/config.ts';
import { defineTestFunction } from '../../src/functions/registry.ts';
import { startTestApp, type TestApp } from '../app.ts';
import type { TestDatabase } from '../database.ts';
import { startSmtpPeer } from '../smtp.ts';
import { openSse } from '../sse.ts';
import { spawnServer, stopAllServers, waitUntilReady } from './processes.ts';

/**
 * Hardening (issue 7, point 6): security headers, session cookies, cross-site request
 * refusal, auth rate limits shared by every process, and 5xx bodies that say nothing.
 */
const PUBLIC_URL = 'https://shop.example';
const PRODUCTION = {
  env: { NODE_ENV: 'production', PUBLIC_URL, AUTH_SECRET: 'x'.repeat(40), SMTP_URL: 'smtp://127.0.0.1:2525', PAYMENT_PROVIDER: 'local', ALLOW_TEST_PAYMENTS: '1' },
};
/** Another process on the test's database, driven with inject (the shop's address is PUBLIC_URL). */
const startOnDatabase = (options: Omit<Parameters<typeof startTestApp>[0] & object, 'database' | 'listen'>) => startTestApp({ ...options, database, listen: false });

const shops: TestApp[] = [];
let database: TestDatabase;
let prodApp: FastifyInstance;
let devApp: FastifyInstance;

// Functions that fail the way a real bug would: a database error carrying SQL, and a plain throw.
const failing = [
  defineTestFunction({
    name: 'failWithSql',
    access: 'public',
    input: z.unknown(),
    handler: async (_input, { db }) => db.execute(sql`SELECT secret_column FROM no_such_table WHERE password = 'hunter2'`),
  }),
  defineTestFunction({
    name: 'failWithStack',
    access: 'public',
    input: z.unknown(),
    handler: async () => {
      throw new TypeError('Cannot read properties of undefined (reading /srv/app/internal.ts)');
    },
  }),
];

async function signUp(shop: { db: TestDatabase['db']; config: Config }, email: string) {
  await createAccount(
    shop.db,
    shop.config,
    { email, username: email.split('@')[0]!.replace(/\W/g, ''), name: 'N', password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true },
    { emailVerified: true },
  );
}

/** Signs in through the app and returns its Set-Cookie headers. */
async function signInCookies(app: FastifyInstance, email: string, origin: string, ip = '203.0.113.10'): Promise<string[]> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/auth/sign-in/email',
    headers: { 'content-type': 'application/json', origin },
    remoteAddress: ip,
    payload: { email, password: 'pass words' },
  });
  expect(response.statusCode, response.body).toBe(200);
  return [response.headers['set-cookie'] ?? []].flat();
}

const cookieHeader = (cookies: string[]) => cookies.map((cookie) => cookie.split(';')[0]).join('; ');

beforeAll(async () => {
  const dev = await startTestApp({
    listen: false,
    config: { env: { SIGNUP_RATE_LIMIT: '1000' } },
    build: { functions: failing },
    async seed(shop) {
      for (const email of ['prod@example.org', 'dev@example.org', 'csrf@example.org']) await signUp(shop, email);
    },
  });
  shops.push(dev);
  ({ database, app: devApp } = dev);
  const prod = await startOnDatabase({ config: PRODUCTION, build: { functions: failing } });
  shops.push(prod);
  prodApp = prod.app;
});

afterAll(async () => {
  await stopAllServers();
  // The first owns the database: it closes last.
  for (const shop of shops.reverse()) await shop.close();
});

describe('security headers', () => {
  // The OpenID discovery document is written by the provider itself, on a hijacked reply.
  it.each(['/healthz', '/home', '/api/products', '/fn/listHistory', '/oidc/.well-known/openid-configuration'])(
    '%s carries a strict CSP, nosniff, a referrer policy and HSTS in production',
    async (url) => {
      const response = await prodApp.inject({ method: url.startsWith('/fn/') ? 'POST' : 'GET', url, ...(url.startsWith('/fn/') ? { payload: { data: {} } } : {}) });
      const csp = String(response.headers['content-security-policy']);
      const directives = Object.fromEntries(
        csp
          .split(';')
          .map((d) => d.trim().split(/\s+/))
          .map(([name, ...values]) => [name, values]),
      );
      expect(directives['script-src']).toEqual(["'self'"]);
      expect(csp).not.toMatch(/script-src[^;]*unsafe-(inline|eval)/);
      expect(directives['default-src']).toEqual(["'self'"]);
      expect(directives['frame-ancestors']).toEqual(["'none'"]);
      expect(directives['object-src']).toEqual(["'none'"]);
      expect(directives['base-uri']).toEqual(["'self'"]);
      expect(csp).toContain('upgrade-insecure-requests');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
      expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(response.headers['strict-transport-security']).toMatch(/^max-age=31536000; includeSubDomains/);
      expect(response.headers['x-powered-by']).toBeUndefined();
    },
  );

  it('are on a stream a route writes itself (the live SSE stream, a hijacked reply)', async () => {
    const base = await devApp.listen({ port: 0, host: '127.0.0.1' });
    const stream = await openSse(`${base}/api/live`);
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(stream.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(stream.headers.get('x-content-type-options')).toBe('nosniff');
      expect(stream.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    } finally {
      await stream.close();
    }
  });

  it('sends no HSTS outside production (plain http on localhost)', async () => {
    const response = await devApp.inject({ method: 'GET', url: '/healthz' });
    expect(response.headers['strict-transport-security']).toBeUndefined();
    expect(String(response.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
  });
});

describe('session cookies', () => {
  it('are HttpOnly, SameSite=Lax and Secure (with the __Secure- prefix) behind https in production', async () => {
    const cookies = await signInCookies(prodApp, 'prod@example.org', PUBLIC_URL);
    const session = cookies.find((cookie) => cookie.includes('session_token='));
    expect(session).toMatch(/^__Secure-/);
    expect(session).toMatch(/; HttpOnly/i);
    expect(session).toMatch(/; SameSite=Lax/i);
    expect(session).toMatch(/; Secure/i);
    expect(session).toMatch(/; Path=\//i);
    for (const cookie of cookies) expect(cookie).toMatch(/; HttpOnly/i);
  });

  it('are HttpOnly and SameSite=Lax on plain http in development, where Secure would lose them', async () => {
    const cookies = await signInCookies(devApp, 'dev@example.org', 'http://localhost:3999');
    const session = cookies.find((cookie) => cookie.includes('session_token='))!;
    expect(session).toMatch(/; HttpOnly/i);
    expect(session).toMatch(/; SameSite=Lax/i);
    expect(session).not.toMatch(/; Secure/i);
  });
});

describe('cross-site requests with a session cookie', () => {
  let cookie: string;
  beforeAll(async () => {
    cookie = cookieHeader(await signInCookies(prodApp, 'csrf@example.org', PUBLIC_URL));
  });
  const signedIn = async (origin?: string) =>
    (
      await prodApp.inject({
        method: 'GET',
        url: '/api/me',
        headers: { cookie, ...(origin ? { origin } : {}) },
      })
    ).json<{ user: { email: string } | null }>().user?.email;

  it('the cookie works from the shop’s own pages', async () => {
    expect(await signedIn()).toBe('csrf@example.org');
    const response = await prodApp.inject({ method: 'POST', url: '/fn/getWallet', headers: { cookie, origin: PUBLIC_URL }, payload: { data: null } });
    expect(response.statusCode).toBe(200);
  });

  it.each([
    ['POST /fn/getProfile', '/fn/getProfile', 'application/json', JSON.stringify({ data: null })],
    ['POST /fn/recordDeviceToken', '/fn/recordDeviceToken', 'application/json', JSON.stringify({ data: { token: 'x' } })],
    ['POST /pay/<id> (a form post)', '/pay/someone_checkout', 'application/x-www-form-urlencoded', 'card=4242424242424242'],
    ['POST /payouts/onboard (a form post)', '/payouts/onboard', 'application/x-www-form-urlencoded', ''],
    ['DELETE a stored object', '/v0/b/storefront/o/products%2Fx.png', undefined, undefined],
  ])('%s from a foreign Origin is refused with 403 before it does anything', async (_name, url, contentType, payload) => {
    const before = (await database.pool.query('SELECT count(*)::int AS n FROM payout_account')).rows[0];
    const response = await prodApp.inject({
      method: url.startsWith('/v0/') ? 'DELETE' : 'POST',
      url,
      headers: { cookie, origin: 'https://evil.example', ...(contentType ? { 'content-type': contentType } : {}) },
      ...(payload === undefined ? {} : { payload }),
    });
    expect(response.statusCode).toBe(403);
    expect(response.json<{ error: { message: string } }>().error.message).toMatch(/cross-site/i);
    expect((await database.pool.query('SELECT count(*)::int AS n FROM payout_account')).rows[0]).toEqual(before);
  });

  it('a cross-site sign-out is refused, and the session survives', async () => {
    const response = await prodApp.inject({
      method: 'POST',
      url: '/api/auth/sign-out',
      headers: { cookie, origin: 'https://evil.example', 'content-type': 'application/json' },
      payload: {},
    });
    expect(response.statusCode).toBe(403);
    expect(await signedIn()).toBe('csrf@example.org');
  });

  it('a text/plain body (what a cross-site form can send without a preflight) is not taken as JSON', async () => {
    const response = await devApp.inject({ method: 'POST', url: '/fn/getProfile', headers: { 'content-type': 'text/plain' }, payload: '{"data":null}' });
    expect(response.statusCode).toBe(400);
  });

  it('bearer-token clients (no cookie) are not affected by the Origin they send', async () => {
    const token = (
      await prodApp.inject({
        method: 'POST',
        url: '/api/auth/sign-in/email',
        headers: { 'content-type': 'application/json', origin: PUBLIC_URL },
        remoteAddress: '203.0.113.11',
        payload: { email: 'csrf@example.org', password: 'pass words' },
      })
    ).headers['set-auth-token'];
    const response = await prodApp.inject({
      method: 'POST',
      url: '/fn/getWallet',
      headers: { authorization: `Bearer ${String(token)}`, origin: 'https://partner.example' },
      payload: { data: null },
    });
    expect(response.statusCode).toBe(200);
  });
});

describe('auth rate limits hold across server processes', () => {
  it('11 sign-in attempts from one address split across two apps on one database: the 11th gets 429', async () => {
    const { app: second, close } = await startOnDatabase({ config: PRODUCTION });
    try {
      // Each attempt names another email: the per-account limit (decision 043) would also
      // answer 429 after 10 wrong passwords for one email and hide the address limit.
      const attempt = (app: FastifyInstance, ip: string, n: number) =>
        app.inject({
          method: 'POST',
          url: '/api/auth/sign-in/email',
          headers: { 'content-type': 'application/json', origin: PUBLIC_URL },
          remoteAddress: ip,
          payload: { email: `prod${n}@example.org`, password: 'wrong password' },
        });
      const statuses: number[] = [];
      for (let i = 0; i < 11; i += 1) statuses.push((await attempt(i % 2 === 0 ? prodApp : second, '198.51.100.7', i)).statusCode);
      expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
      expect(statuses[10]).toBe(429);
      // The limit is per address (and path): another client is not locked out.
      expect((await attempt(second, '198.51.100.8', 0)).statusCode).toBe(401);
    } finally {
      await close();
    }
  });

  it('signups (createAccount) are limited across processes too', async () => {
    const limited = { env: { SIGNUP_RATE_LIMIT: '3' } };
    const [a, b] = await Promise.all([startOnDatabase({ config: limited }), startOnDatabase({ config: limited })]);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i += 1) {
        const form = { email: `many${i}@example.org`, username: `many${i}`, name: 'M', password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true };
        statuses.push((await (i % 2 === 0 ? a : b).app.inject({ method: 'POST', url: '/fn/createAccount', payload: { data: form } })).statusCode);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('5xx responses in production', () => {
  it.each(['failWithSql', 'failWithStack'])('%s answers 500 “Internal error.” with no SQL, stack or message', async (name) => {
    const response = await prodApp.inject({ method: 'POST', url: `/fn/${name}`, payload: { data: null } });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ error: { status: 'INTERNAL', message: 'Internal error.', requestId: expect.any(String) } });
    expect(response.body).not.toMatch(/no_such_table|hunter2|SELECT|internal\.ts|\bat\s|TypeError/);
  });

  it('malformed JSON gets a 400 that does not echo parser internals', async () => {
    const response = await prodApp.inject({ method: 'POST', url: '/fn/listHistory', headers: { 'content-type': 'application/json' }, payload: '{"data": ' });
    expect(response.statusCode).toBe(400);
    expect(response.body).not.toMatch(/\bat\s|node_modules/);
  });
});

describe('a real production process (NODE_ENV=production, where Better Auth runs its own Origin checks)', () => {
  it('refuses a cookie-carrying auth POST with no Origin, and a sign-in posted from another site', async () => {
    const smtp = await startSmtpPeer();
    try {
      const server = await spawnServer({
        NODE_ENV: 'production',
        PAYMENT_PROVIDER: 'local',
        ALLOW_TEST_PAYMENTS: '1',
        DATABASE_URL: database.connectionString,
        PUBLIC_URL,
        AUTH_SECRET: 'y'.repeat(40),
        SMTP_URL: smtp.url,
      });
      await waitUntilReady(server);
      const signIn = (origin: string) =>
        fetch(`${server.base}/api/auth/sign-in/email`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin },
          body: JSON.stringify({ email: 'prod@example.org', password: 'pass words' }),
        });
      const foreign = await signIn('https://evil.example');
      expect(foreign.status).toBe(403);
      expect(((await foreign.json()) as { code: string }).code).toBe('INVALID_ORIGIN');

      const own = await signIn(PUBLIC_URL);
      expect(own.status).toBe(200);
      const cookie = cookieHeader(own.headers.getSetCookie());
      expect(own.headers.get('strict-transport-security')).toMatch(/^max-age=31536000/);

      const noOrigin = await fetch(`${server.base}/api/auth/sign-out`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: '{}' });
      expect(noOrigin.status).toBe(403);
      expect(((await noOrigin.json()) as { code: string }).code).toBe('MISSING_OR_NULL_ORIGIN');
      const me = await fetch(`${server.base}/api/me`, { headers: { cookie } });
      expect(((await me.json()) as { user: { email: string } | null }).user?.email).toBe('prod@example.org');
    } finally {
      await stopAllServers();
      await smtp.close();
    }
  });
});
