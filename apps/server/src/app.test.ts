import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectConsoleError } from '../test/console.ts';
import { startTestApp, type TestApp } from '../test/app.ts';
import { makeTempDir, testConfig } from '../test/database.ts';
import { createAccount } from './accounts/accounts.service.ts';
import { TEST_MODE_BANNER } from './http/test-mode.ts';
import { contentSeeder, runSeeds } from './seed/seed.ts';

const INDEX_HTML = '<!doctype html><html><head><title>Shop</title></head><body><div id="root"></div></body></html>';
const APP_JS = 'console.log("app");';

let shop: TestApp;
let app: FastifyInstance;
let webDist: { dir: string; remove(): void };

beforeAll(async () => {
  webDist = makeTempDir('web-dist');
  fs.writeFileSync(path.join(webDist.dir, 'index.html'), INDEX_HTML);
  fs.mkdirSync(path.join(webDist.dir, 'assets'));
  fs.writeFileSync(path.join(webDist.dir, 'assets', 'app-abc123.js'), APP_JS);
  fs.writeFileSync(path.join(webDist.dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');

  shop = await startTestApp({ listen: false, config: { webDistDir: webDist.dir }, seed: ({ db, config }) => runSeeds(db, { config, log: () => undefined }, [contentSeeder]) });
  app = shop.app;
});

afterAll(async () => {
  await shop?.close();
  webDist?.remove();
});

describe('health', () => {
  it('GET /healthz -> 200', async () => {
    const response = await app.inject('/healthz');
    expect([response.statusCode, response.json()]).toEqual([200, { ok: true }]);
  });

  it('GET /readyz -> 200 while the database answers', async () => {
    const response = await app.inject('/readyz');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ ok: true });
  });

  it('GET /readyz -> 503 UNAVAILABLE once the database is gone', async () => {
    const { app: lonely, database: other } = await startTestApp({ listen: false });
    try {
      expect((await lonely.inject('/readyz')).statusCode).toBe(200);
      await other.pool.end();
      const response = await lonely.inject('/readyz');
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual({ error: { status: 'UNAVAILABLE', message: 'The database is not reachable.', requestId: expect.any(String) } });
      // Liveness does not depend on the database.
      expect((await lonely.inject('/healthz')).statusCode).toBe(200);
    } finally {
      await lonely.close().catch(() => undefined);
      await other.close();
    }
  });
});

describe('/api/me during a database outage', () => {
  it('answers 503 UNAVAILABLE, never "signed out"', async () => {
    const { app: lonely, database: other, config } = await startTestApp({ listen: false });
    try {
      const password = 'pass words';
      await createAccount(
        other.db,
        config,
        { email: 'outage@example.com', username: 'outage', name: 'Outage', password, confirmPassword: password, acceptedTerms: true },
        { emailVerified: true },
      );
      const signIn = await lonely.inject({ method: 'POST', url: '/api/auth/sign-in/email', payload: { email: 'outage@example.com', password } });
      const token = signIn.headers['set-auth-token'] as string;
      const me = () => lonely.inject({ url: '/api/me', headers: { authorization: `Bearer ${token}` } });
      expect((await me()).json()).toMatchObject({ user: { email: 'outage@example.com' } });

      await other.pool.end();
      expectConsoleError(); // Better Auth logs the failed query itself
      const response = await me();
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual({
        error: { status: 'UNAVAILABLE', message: 'Your account could not be loaded right now. Please try again in a moment.', requestId: expect.any(String) },
      });
    } finally {
      await lonely.close().catch(() => undefined);
      await other.close();
    }
  });
});

describe('unknown API addresses answer JSON 404s, never the web app', () => {
  it.each<[string, string]>([
    ['GET', '/fn/x'],
    ['GET', '/fn'],
    ['GET', '/api/x'],
    ['GET', '/api/x?y=1'],
    ['DELETE', '/api/pages/about'],
    ['POST', '/api'],
    ['POST', '/shop'],
  ])('%s %s -> 404 NOT_FOUND', async (method, url) => {
    const response = await app.inject({ method: method as 'GET', url });
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const pathOnly = url.split('?')[0];
    expect(response.json()).toEqual({ error: { status: 'NOT_FOUND', message: `Nothing at ${method} ${pathOnly}.`, requestId: expect.any(String) } });
  });

  it('POST /fn/<unknown> -> 404 NOT_FOUND', async () => {
    const response = await app.inject({ method: 'POST', url: '/fn/x', payload: { data: {} } });
    expect(response.statusCode).toBe(404);
    expect(response.json<{ error: { status: string } }>().error.status).toBe('NOT_FOUND');
  });
});

describe('security headers', () => {
  function directives(csp: string): Map<string, string[]> {
    return new Map(
      csp
        .split(';')
        .map((part) => part.trim().split(/\s+/))
        .filter((words) => words[0])
        .map(([name, ...values]) => [name!, values]),
    );
  }

  it.each([['/healthz'], ['/shop'], ['/api/pages/about'], ['/api/nope']])('are sent on %s', async (url) => {
    const response = await app.inject(url);
    const csp = directives(String(response.headers['content-security-policy']));
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('script-src')).not.toContain("'unsafe-inline'");
    expect(csp.get('default-src')).toEqual(["'self'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(csp.get('object-src')).toEqual(["'none'"]);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
    expect(response.headers['x-powered-by']).toBeUndefined();
  });

  it('outside production there is no HSTS (it would pin http://localhost to https)', async () => {
    expect((await app.inject('/healthz')).headers['strict-transport-security']).toBeUndefined();
  });
});

describe('the web app', () => {
  // The public pages (/, /shop, /product/:id ...) get their own head tags: web/public-pages.test.ts.
  it.each([['/login'], ['/account'], ['/release'], ['/index.html'], ['/shop/some-product'], ['/order-confirmation?payment_intent=pi_1&redirect_status=succeeded']])(
    'GET %s -> index.html, not cached',
    async (url) => {
      const response = await app.inject(url);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.headers['cache-control']).toBe('no-cache');
      // The local provider takes fake payments: every page says so (issue 13).
      expect(response.body).toBe(INDEX_HTML.replace('<body>', `<body>${TEST_MODE_BANNER}`));
      expect(response.body).toContain('TEST MODE');
    },
  );

  it('with real payments (Stripe) the pages carry no TEST MODE banner', async () => {
    const real = await startTestApp({
      listen: false,
      config: { webDistDir: webDist.dir, env: { PAYMENT_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_1', STRIPE_WEBHOOK_SECRET: 'whsec_1' } },
    });
    try {
      for (const url of ['/login', '/release', '/index.html']) {
        const response = await real.app.inject(url);
        expect(response.statusCode).toBe(200);
        expect(response.body).toBe(INDEX_HTML);
      }
      for (const url of ['/', '/shop']) expect((await real.app.inject(url)).body).not.toContain('TEST MODE');
    } finally {
      await real.close();
    }
  });

  it('hashed assets are cached for a year as immutable', async () => {
    const response = await app.inject('/assets/app-abc123.js');
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe(APP_JS);
    expect(response.headers['content-type']).toMatch(/javascript/);
    expect(response.headers['cache-control']).toContain('immutable');
    expect(response.headers['cache-control']).toContain('max-age=31536000');
  });

  it('other files are cached briefly, not as immutable', async () => {
    const response = await app.inject('/favicon.svg');
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).not.toContain('immutable');
  });

  it.each([['/nope.js'], ['/assets/app-old999.js'], ['/images/missing.png']])('a missing file %s -> 404, not index.html', async (url) => {
    const response = await app.inject(url);
    expect(response.statusCode).toBe(404);
    expect(response.body).not.toContain('<div id="root">');
  });

  it('without a build, a page says how to build it', async () => {
    const empty = makeTempDir('web-dist-empty');
    const bare = await startTestApp({ listen: false, config: { webDistDir: empty.dir } });
    try {
      const response = await bare.app.inject('/shop');
      expect(response.statusCode).toBe(503);
      expect(response.body).toContain('npm run build');
    } finally {
      await bare.close();
      empty.remove();
    }
  });
});

describe('content', () => {
  it.each<[string, string]>([
    ['about', 'About'],
    ['home', JSON.parse(fs.readFileSync(path.join(testConfig().contentDir, 'home.json'), 'utf8')).title],
    ['privacy-policy', JSON.parse(fs.readFileSync(path.join(testConfig().contentDir, 'privacy-policy.json'), 'utf8')).title],
  ])('GET /api/pages/%s returns the seeded page titled %j', async (slug, title) => {
    const response = await app.inject(`/api/pages/${slug}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ slug, title });
    expect(response.headers['cache-control']).toBe('no-cache');
  });

  it.each([
    ['missing-page', 404, 'NOT_FOUND'],
    ['Bad_Slug', 400, 'INVALID_ARGUMENT'],
  ] as const)('GET /api/pages/%s -> %i %s', async (slug, status, name) => {
    const response = await app.inject(`/api/pages/${slug}`);
    expect(response.statusCode).toBe(status);
    expect(response.json<{ error: { status: string } }>().error.status).toBe(name);
  });

  it('serves cover art from content/covers', async () => {
    const response = await app.inject('/content/covers/cover-01.svg');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^image\/svg\+xml/);
  });
});
