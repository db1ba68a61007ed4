import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { loadConfig } from '../config.ts';

/** CORS for the sister products' web apps (issue 19 item 6, decision 029). */
let shop: TestApp;
let app: FastifyInstance;
const LISTED = 'https://music.example';
const OTHER = 'https://evil.example';

beforeAll(async () => {
  shop = await startTestApp({ listen: false, config: { env: { CORS_ORIGINS: `${LISTED}, http://localhost:5174` } } });
  app = shop.app;
});

afterAll(async () => {
  await shop?.close();
});

const preflight = (url: string, origin: string, method = 'POST') =>
  app.inject({
    method: 'OPTIONS',
    url,
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type, x-goog-upload-protocol' },
  });

describe('CORS_ORIGINS', () => {
  it('answers preflights of listed origins on /fn, /v0 and /api/live with credentials', async () => {
    for (const url of [
      '/fn/quoteCheckout',
      '/v0/b/storefront/o?name=products%2Fa.png',
      '/v0/b/storefront/o/products%2Fa.png',
      '/api/live?topics=products',
      // firebase/auth's signInWithCustomToken and token refresh (decision 035).
      '/identitytoolkit.googleapis.com/v1/accounts:signInWithCustomToken?key=unused',
      '/securetoken.googleapis.com/v1/token?key=unused',
    ]) {
      const response = await preflight(url, LISTED, url.startsWith('/v0/b/storefront/o/') ? 'PATCH' : 'POST');
      expect(response.statusCode, url).toBe(204);
      expect(response.headers).toMatchObject({
        'access-control-allow-origin': LISTED,
        'access-control-allow-credentials': 'true',
        'access-control-allow-headers': 'authorization, content-type, x-goog-upload-protocol',
        vary: 'Origin',
      });
      expect(response.headers['access-control-allow-methods']).toContain('PATCH');
    }
  });

  it('names a listed origin on real responses and exposes the upload headers', async () => {
    const response = await app.inject({ method: 'POST', url: '/fn/noSuchFunction', headers: { origin: LISTED, 'content-type': 'application/json' }, payload: { data: null } });
    expect(response.statusCode).toBe(404);
    expect(response.headers['access-control-allow-origin']).toBe(LISTED);
    expect(response.headers['access-control-allow-credentials']).toBe('true');
    expect(response.headers['access-control-expose-headers']).toContain('x-goog-upload-url');
    // The request id, for a sister product's bug report (issue 24 item 8).
    expect(response.headers['access-control-expose-headers']).toContain('x-request-id');
  });

  it('gives other origins and other paths nothing', async () => {
    const other = await preflight('/fn/quoteCheckout', OTHER);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    expect(other.headers['access-control-allow-credentials']).toBeUndefined();
    expect(other.statusCode).not.toBe(204);
    const otherGet = await app.inject({ method: 'GET', url: '/v0/b/storefront/o/products%2Fa.png', headers: { origin: OTHER } });
    expect(otherGet.headers['access-control-allow-origin']).toBeUndefined();
    // Accounts, payments, service writes: never cross-origin.
    for (const url of ['/api/auth/sign-in/email', '/api/service/wallet-credits', '/pay/x']) {
      const response = await preflight(url, LISTED);
      expect(response.headers['access-control-allow-origin'], url).toBeUndefined();
    }
  });

  it('lets a listed origin’s cookie-carrying writes through the cross-site check, and no other', async () => {
    const call = (origin: string) =>
      app.inject({
        method: 'POST',
        url: '/fn/quoteCheckout',
        headers: { origin, cookie: 'x=1', 'content-type': 'application/json' },
        payload: { data: { items: [], useWallet: false } },
      });
    expect((await call(OTHER)).statusCode).toBe(403);
    // Not refused as cross-site: it reaches the function, which wants a signed-in caller.
    expect((await call(LISTED)).json()).toMatchObject({ error: { status: 'UNAUTHENTICATED' } });
  });
});

describe('CORS_ORIGINS parsing', () => {
  const secret = 'x'.repeat(40);
  it('keeps origins and refuses paths or other schemes', () => {
    expect(loadConfig({ AUTH_SECRET: secret, CORS_ORIGINS: 'https://a.example, http://localhost:5174' }).CORS_ORIGINS).toEqual(['https://a.example', 'http://localhost:5174']);
    expect(loadConfig({ AUTH_SECRET: secret }).CORS_ORIGINS).toEqual([]);
    expect(() => loadConfig({ AUTH_SECRET: secret, CORS_ORIGINS: 'https://a.example/app' })).toThrow(/CORS_ORIGINS/);
    expect(() => loadConfig({ AUTH_SECRET: secret, CORS_ORIGINS: 'ftp://a.example' })).toThrow(/CORS_ORIGINS/);
  });
});
