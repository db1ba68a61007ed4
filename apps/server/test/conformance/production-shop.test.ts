import http from 'node:http';
import { EventSource } from 'eventsource';
import { deleteApp, initializeApp, type FirebaseApp } from 'firebase/app';
import { connectAuthEmulator, getAuth, signInWithCustomToken } from 'firebase/auth';
import { connectStorageEmulator, getBytes, getDownloadURL, getStorage, getStream, ref, uploadBytes, type StorageError } from 'firebase/storage';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthClient } from '@storefront/sdk/auth.ts';
import { createFunctionsClient } from '@storefront/sdk/callable.ts';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { freePort } from '../../src/db/embedded.ts';
import { createOAuthClient } from '../../src/oidc/oidc.clients.ts';
import { sealKeyFor } from '../../src/oidc/oidc.provider.ts';
import { solidImage } from '../../src/storage/testing/images.ts';
import { createTestDatabase, testConfig, type TestDatabase } from '../database.ts';
import { CookieJar, ssoFlow } from '../oidc-flow.ts';
import { spawnServer, stopAllServers, waitUntilReady } from '../reliability/processes.ts';

/**
 * Conformance against a shop in its production configuration (issue 24): a server process
 * with NODE_ENV=production and test settings, so Better Auth runs every check it skips in
 * a test environment (Vitest's NODE_ENV=test and TEST=true are not passed on). The official
 * clients, unchanged: the shop's own sdk and Node's fetch (item 1), `eventsource` 4 from a
 * listed origin (item 2), download URLs and `Vary: Origin` (item 3), the `firebase` 12
 * storage SDK's getBytes/getStream (item 4; getBlob, its browser twin, is in
 * e2e/firebase-sdk.spec.ts), `openid-client` 6 discovery and RP-initiated logout (item 6).
 * Each item's tests failed before its fix (decision 041).
 */
const PASSWORD = 'correct horse';
const AUTH_SECRET = 'production-conformance-secret-'.repeat(2);
let database: TestDatabase;
let origin: string;
/** A sister product's web origin, listed in CORS_ORIGINS; never served: only named. */
let sisterOrigin: string;
const apps: FirebaseApp[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  const config = testConfig();
  for (const [email, username, role] of [
    ['boss@example.org', 'Boss', 'admin'],
    ['fan@example.org', 'FanOne', 'user'],
  ] as const) {
    await createAccount(
      database.db,
      config,
      { email, username, name: username, password: PASSWORD, confirmPassword: PASSWORD, acceptedTerms: true },
      { emailVerified: true, role },
    );
  }
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  sisterOrigin = `http://127.0.0.1:${await freePort()}`;
  const server = await spawnServer(
    {
      NODE_ENV: 'production',
      DATABASE_URL: database.connectionString,
      PUBLIC_URL: origin,
      AUTH_SECRET,
      SMTP_URL: 'smtp://127.0.0.1:9',
      PAYMENT_PROVIDER: 'local',
      ALLOW_TEST_PAYMENTS: '1',
      CORS_ORIGINS: sisterOrigin,
      SIGNIN_RATE_LIMIT: '100',
    },
    port,
  );
  await waitUntilReady(server);
}, 180_000);

afterAll(async () => {
  await Promise.all(apps.map((app) => deleteApp(app)));
  await stopAllServers();
  await database?.close();
}, 60_000);

/** Signs in as a sister product's backend does: the shop's sdk over Node's own fetch. */
async function backendSignIn(email: string): Promise<string> {
  const { token } = await createAuthClient({ baseUrl: origin, functions: createFunctionsClient({ baseUrl: origin }) }).signIn(email, PASSWORD);
  if (!token) throw new Error(`no token for ${email}`);
  return token;
}

const signInBody = JSON.stringify({ email: 'fan@example.org', password: PASSWORD });

describe('item 1: a sister product’s backend signs in; cross-site browser writes stay refused', () => {
  it('signs in through createAuthClient().signIn() and through Node’s fetch (Sec-Fetch-Mode: cors, no Origin)', async () => {
    const token = await backendSignIn('fan@example.org');
    expect(token).toMatch(/\S{20,}/);
    const response = await fetch(`${origin}/api/auth/sign-in/email`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: signInBody });
    expect(response.status).toBe(200);
    expect(response.headers.get('set-auth-token')).toBeTruthy();
    // The token works on a callable.
    const me = await fetch(`${origin}/api/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await me.json()) as { user: { email: string } }).user.email).toBe('fan@example.org');
  });

  it('refuses a browser’s sign-in from another site, with or without an Origin', async () => {
    const crossSite = await fetch(`${origin}/api/auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://evil.example', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' },
      body: signInBody,
    });
    expect(crossSite.status).toBe(403);
    // A browser always sends Sec-Fetch-Site: without an Origin it is still judged, not waved through.
    const noOrigin = await fetch(`${origin}/api/auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' },
      body: signInBody,
    });
    expect(noOrigin.status).toBe(403);
    expect(noOrigin.headers.get('set-auth-token')).toBeNull();
    // A listed sister origin is not the shop: /api/auth stays same-origin (decision 035).
    const sister = await fetch(`${origin}/api/auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: sisterOrigin, 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'cors' },
      body: signInBody,
    });
    expect(sister.status).toBe(403);
  });

  it('refuses a cookie-carrying write from another site, with or without an Origin', async () => {
    const signIn = await fetch(`${origin}/api/auth/sign-in/email`, { method: 'POST', headers: { 'content-type': 'application/json', origin }, body: signInBody });
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers
      .getSetCookie()
      .map((line) => line.split(';')[0])
      .join('; ');
    expect(cookie).toContain('session_token');
    for (const headers of [{ origin: 'http://evil.example' }, {}]) {
      const signOut = await fetch(`${origin}/api/auth/sign-out`, { method: 'POST', headers: { 'content-type': 'application/json', cookie, ...headers }, body: '{}' });
      expect(signOut.status).toBe(403);
    }
    // The session survived both.
    const me = await fetch(`${origin}/api/me`, { headers: { cookie } });
    expect(((await me.json()) as { user: { email: string } | null }).user?.email).toBe('fan@example.org');
  });
});

/** A fetch that judges CORS as a browser does: it sends the page's Origin and refuses an answer that does not allow it. */
function corsFetch(pageOrigin: string, credentials: boolean, seen: Headers[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), origin: pageOrigin } });
    seen.push(response.headers);
    const allowed = response.headers.get('access-control-allow-origin');
    const ok = credentials ? allowed === pageOrigin && response.headers.get('access-control-allow-credentials') === 'true' : allowed === pageOrigin || allowed === '*';
    if (!ok) {
      await response.body?.cancel();
      throw new TypeError('Failed to fetch (CORS)');
    }
    return response;
  };
}

async function firstReady(source: EventSource): Promise<{ signedIn: boolean }> {
  try {
    return await new Promise((resolve, reject) => {
      source.addEventListener('ready', (event) => resolve(JSON.parse(event.data) as { signedIn: boolean }));
      source.addEventListener('error', (event) => reject(new Error(`EventSource error: ${event.message ?? 'closed'}`)));
    });
  } finally {
    source.close();
  }
}

describe('item 2: /api/live from a listed origin', () => {
  it('opens an EventSource without credentials, with its CORS headers', async () => {
    const seen: Headers[] = [];
    const source = new EventSource(`${origin}/api/live?topics=products`, { fetch: corsFetch(sisterOrigin, false, seen) });
    expect(await firstReady(source)).toMatchObject({ signedIn: false });
    expect(seen[0]?.get('access-control-allow-origin')).toBe(sisterOrigin);
    expect(seen[0]?.get('vary')).toMatch(/\bOrigin\b/i);
  });

  it('opens an EventSource withCredentials (the shop token), signed in', async () => {
    const token = await backendSignIn('fan@example.org');
    const seen: Headers[] = [];
    const browserLike = corsFetch(sisterOrigin, true, seen);
    const source = new EventSource(`${origin}/api/live?topics=products,wallet`, {
      withCredentials: true,
      fetch: (input, init) => browserLike(input, { ...init, headers: { ...init?.headers, authorization: `Bearer ${token}` } }),
    });
    expect(await firstReady(source)).toMatchObject({ signedIn: true });
    expect(seen[0]?.get('access-control-allow-credentials')).toBe('true');
  });

  it('gives an origin that is not listed no CORS header', async () => {
    const seen: Headers[] = [];
    const source = new EventSource(`${origin}/api/live`, { fetch: corsFetch('http://evil.example', false, seen) });
    await expect(firstReady(source)).rejects.toThrow(/EventSource error/);
    expect(seen[0]?.get('access-control-allow-origin')).toBeNull();
  });
});

/** Firebase storage pointed at the shop, signed in with `shopToken` (or anonymous). */
async function shopStorage(shopToken?: string) {
  const app = initializeApp({ projectId: 'storefront', apiKey: 'unused', storageBucket: 'storefront' }, `production-${apps.length}`);
  apps.push(app);
  const auth = getAuth(app);
  connectAuthEmulator(auth, origin, { disableWarnings: true });
  if (shopToken) await signInWithCustomToken(auth, shopToken);
  const storage = getStorage(app);
  const { hostname, port } = new URL(origin);
  connectStorageEmulator(storage, hostname, Number(port));
  return storage;
}

async function failure<T extends Error>(promise: Promise<unknown>): Promise<T> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error as T,
  );
}

describe('items 3 and 4: download URLs and the storage SDK’s byte reads', () => {
  let url: string;
  let path: string;
  let stored: Uint8Array;
  let adminToken: string;

  beforeAll(async () => {
    adminToken = await backendSignIn('boss@example.org');
    const storage = await shopStorage(adminToken);
    path = `products/${Date.now()}-production.png`;
    await uploadBytes(ref(storage, path), await solidImage(40, 30), { contentType: 'image/png' });
    url = await getDownloadURL(ref(storage, path));
    stored = new Uint8Array(await (await fetch(url)).arrayBuffer());
  });

  it('sends Vary: Origin on download URLs whatever the Origin, so a cached <img> answer is not reused by fetch()', async () => {
    // An <img> sends no Origin; a fetch() from a listed origin sends it; another origin gets no CORS header.
    for (const headers of [{}, { origin: sisterOrigin }, { origin: 'http://evil.example' }]) {
      const response = await fetch(url, { headers });
      expect(response.status).toBe(200);
      expect(response.headers.get('vary')).toMatch(/\bOrigin\b/i);
      await response.arrayBuffer();
    }
    const metadata = await fetch(`${origin}/v0/b/storefront/o/${encodeURIComponent(path)}`);
    expect(metadata.headers.get('vary')).toMatch(/\bOrigin\b/i);
    // An answer that does not depend on Origin says nothing about it.
    const health = await fetch(`${origin}/healthz`);
    expect(health.headers.get('vary') ?? '').not.toMatch(/\bOrigin\b/i);
  });

  it('getBytes and getStream read an object as an admin, and a public products/ object anonymously', async () => {
    const admin = await shopStorage(adminToken);
    expect(new Uint8Array(await getBytes(ref(admin, path)))).toEqual(stored);
    // getStream is the Node build's getBlob (which is browser-only); both send the same request.
    const streamed = new Uint8Array(await new Response(getStream(ref(admin, path))).arrayBuffer());
    expect(streamed).toEqual(stored);
    // maxDownloadSizeBytes: the SDK asks for a range and keeps that many bytes.
    expect(new Uint8Array(await getBytes(ref(admin, path), 10))).toEqual(stored.slice(0, 10));
    const fan = await shopStorage(await backendSignIn('fan@example.org'));
    expect(new Uint8Array(await getBytes(ref(fan, path)))).toEqual(stored);
    const anonymous = await shopStorage();
    expect(new Uint8Array(await getBytes(ref(anonymous, path)))).toEqual(stored);
  });

  it('keeps the read rules: private folders are admins’ only, missing objects are not found', async () => {
    const fan = await shopStorage(await backendSignIn('fan@example.org'));
    expect((await failure<StorageError>(getBytes(ref(fan, 'private/secret.png')))).code).toBe('storage/unauthorized');
    const anonymous = await shopStorage();
    expect((await failure<StorageError>(getBytes(ref(anonymous, 'private/secret.png')))).code).toBe('storage/unauthenticated');
    const admin = await shopStorage(adminToken);
    expect((await failure<StorageError>(getBytes(ref(admin, 'products/none.png')))).code).toBe('storage/object-not-found');
    // A download URL with a wrong token is still refused.
    const forged = await fetch(url.replace(/token=[^&]+/, 'token=forged'));
    expect(forged.status).toBe(403);
  });
});

/** GET over node:http, which sends the Host header it is given (fetch would send the URL's). */
function getWithHost(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (response) => {
        let body = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

describe('item 6: OpenID Connect discovery (openid-client 6)', () => {
  it('advertises only what is documented and tested: no PAR, no DPoP, client_secret_basic', async () => {
    const client = await createOAuthClient(database.db, sealKeyFor(AUTH_SECRET), { name: 'SPN Music', redirectUris: ['http://127.0.0.1:4999/callback'] });
    const configuration = await oidc.discovery(new URL(`${origin}/oidc`), client.clientId, undefined, oidc.ClientSecretBasic(client.clientSecret), {
      execute: [oidc.allowInsecureRequests],
    });
    const metadata = configuration.serverMetadata();
    expect(metadata.issuer).toBe(`${origin}/oidc`);
    expect(metadata.pushed_authorization_request_endpoint).toBeUndefined();
    expect(metadata.dpop_signing_alg_values_supported).toBeUndefined();
    expect(metadata.token_endpoint_auth_methods_supported).toEqual(['client_secret_basic']);
  });

  it('names the issuer’s own URLs whatever Host and X-Forwarded-Host a client sends', async () => {
    const discovery = `${origin}/oidc/.well-known/openid-configuration`;
    const { status, body } = await getWithHost(discovery, { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' });
    expect(status).toBe(200);
    const metadata = JSON.parse(body) as Record<string, unknown>;
    const urls = Object.entries(metadata).filter(([name, value]) => typeof value === 'string' && (name.endsWith('_endpoint') || name.endsWith('_uri') || name === 'issuer'));
    expect(urls.length).toBeGreaterThan(4);
    for (const [name, value] of urls) expect(`${name}: ${String(value)}`).toMatch(new RegExp(`^${name}: ${origin}/oidc(/|$)`));
  });
});

describe('item 6: RP-initiated logout (openid-client 6 buildEndSessionUrl)', () => {
  const REDIRECT = 'http://127.0.0.1:4998/callback';
  let registered: { clientId: string; clientSecret: string };
  const { signIn, follow, browse } = ssoFlow(() => ({ base: origin, issuer: `${origin}/oidc`, client: registered, redirect: REDIRECT }));

  beforeAll(async () => {
    registered = await createOAuthClient(database.db, sealKeyFor(AUTH_SECRET), { name: 'SPN Video', redirectUris: [REDIRECT] });
  });

  async function signInWithShop(jar: CookieJar, configuration: oidc.Configuration) {
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: REDIRECT,
      scope: 'openid profile email',
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    });
    const callbackUrl = await follow(jar, url.href);
    if (callbackUrl.origin + callbackUrl.pathname !== REDIRECT) return { landing: callbackUrl, tokens: undefined };
    return { landing: callbackUrl, tokens: await oidc.authorizationCodeGrant(configuration, callbackUrl, { pkceCodeVerifier: codeVerifier }) };
  }

  it('asks on the shop’s page, then ends single sign-on and the shop session, and goes back with the state', async () => {
    const configuration = await oidc.discovery(new URL(`${origin}/oidc`), registered.clientId, undefined, oidc.ClientSecretBasic(registered.clientSecret), {
      execute: [oidc.allowInsecureRequests],
    });
    expect(configuration.serverMetadata().end_session_endpoint).toBe(`${origin}/oidc/session/end`);
    const jar = new CookieJar();
    await signIn(jar, 'fan@example.org', PASSWORD);
    const { tokens } = await signInWithShop(jar, configuration);
    expect(tokens?.claims()?.email).toBe('fan@example.org');

    // --- snippet: openid-client-logout ---
    const logoutUrl = oidc.buildEndSessionUrl(configuration, { id_token_hint: tokens!.id_token!, post_logout_redirect_uri: REDIRECT, state: 'bye' });
    // ... the browser goes to logoutUrl, the user confirms on the shop's page, and comes back to REDIRECT?state=bye ...
    // --- end snippet ---
    const page = await browse(jar, logoutUrl.href);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Sign out of Street Flavor Records?');
    expect(html).toContain('SPN Video asks to sign you out.');
    // Browsers hold a form's redirect to the CSP's form-action: the client's origin is allowed there.
    expect(page.headers.get('content-security-policy')).toContain(`form-action 'self' ${new URL(REDIRECT).origin}`);
    const action = /<form id="op.logoutForm" method="post" action="([^"]+)"/.exec(html)![1]!;
    const fields = [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\/>/g)].map(([, name, value]): [string, string] => [name!, value!]);
    const confirmed = await browse(jar, action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
      body: new URLSearchParams([...fields, ['logout', 'yes']]),
    });
    expect(confirmed.status).toBe(303);
    const back = new URL(confirmed.headers.get('location')!);
    expect([back.origin + back.pathname, back.searchParams.get('state')]).toEqual([REDIRECT, 'bye']);

    // Signed out of the shop: no user, and the next single sign-on goes through the shop's login.
    const me = await browse(jar, '/api/me');
    expect(((await me.json()) as { user: unknown }).user).toBeNull();
    const again = await signInWithShop(jar, configuration);
    expect(again.landing.pathname).toBe('/login');
    expect(again.tokens).toBeUndefined();
  });

  it('keeps everything when the user chooses to stay signed in', async () => {
    const configuration = await oidc.discovery(new URL(`${origin}/oidc`), registered.clientId, undefined, oidc.ClientSecretBasic(registered.clientSecret), {
      execute: [oidc.allowInsecureRequests],
    });
    const jar = new CookieJar();
    await signIn(jar, 'fan@example.org', PASSWORD);
    const { tokens } = await signInWithShop(jar, configuration);
    const page = await browse(jar, oidc.buildEndSessionUrl(configuration, { id_token_hint: tokens!.id_token!, post_logout_redirect_uri: REDIRECT }).href);
    const html = await page.text();
    const action = /<form id="op.logoutForm" method="post" action="([^"]+)"/.exec(html)![1]!;
    const fields = [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\/>/g)].map(([, name, value]): [string, string] => [name!, value!]);
    const stayed = await browse(jar, action, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin }, body: new URLSearchParams(fields) });
    expect(stayed.status).toBe(303);
    const me = await browse(jar, '/api/me');
    expect(((await me.json()) as { user: { email: string } | null }).user?.email).toBe('fan@example.org');
  });
});
