import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/app.ts';
import type { TestDatabase } from '../../test/database.ts';
import { CookieJar, ssoFlow } from '../../test/oidc-flow.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import { commands } from '../cli.ts';
import type { Config } from '../config.ts';
import { oauthClients, oidcSigningKeys } from '../db/schema/index.ts';
import { createOAuthClient, revokeOAuthClient } from './oidc.clients.ts';
import { sealKeyFor } from './oidc.provider.ts';

/**
 * A sister product (music) signs its users in with their shop account: the
 * authorization-code flow with PKCE against a running server, the ID token verified with
 * `jose` against the published keys, as any OpenID Connect client library would.
 */
let shop: TestApp;
let database: TestDatabase;
let config: Config;
let base: string;
let issuer: string;
let client: { clientId: string; clientSecret: string };
const REDIRECT = 'http://127.0.0.1:4999/callback';
const users: Record<string, string> = {};

const { browse, signIn, pkce, authorizeUrl, follow, redeem, codeFor } = ssoFlow(() => ({ base, issuer, client, redirect: REDIRECT }));

beforeAll(async () => {
  shop = await startTestApp();
  ({ database, config, baseUrl: base } = shop);
  issuer = `${base}/oidc`;
  for (const [name, accountType] of [
    ['alice', 'Artist'],
    ['bob', 'Fan'],
  ] as const) {
    const account = await createAccount(
      database.db,
      config,
      { email: `${name}@example.org`, username: `${name}Beats`, name, password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true, accountType },
      { emailVerified: true },
    );
    users[name] = account.userId;
  }
  client = await createOAuthClient(database.db, sealKeyFor(config.AUTH_SECRET), { name: 'SPN Music', redirectUris: [REDIRECT] });
});

afterAll(async () => {
  await shop?.close();
});

describe('single sign-on for the sister products', () => {
  it('publishes discovery and signing keys', async () => {
    const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(discovery).toMatchObject({
      issuer,
      authorization_endpoint: `${issuer}/auth`,
      token_endpoint: `${issuer}/token`,
      jwks_uri: `${issuer}/jwks`,
      code_challenge_methods_supported: ['S256'],
    });
    const jwks = (await (await fetch(`${issuer}/jwks`)).json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys).toHaveLength(1);
    // Public parts only.
    expect(Object.keys(jwks.keys[0]!).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    // Stored sealed, not as a readable private key.
    const [stored] = await database.db.select().from(oidcSigningKeys);
    expect(stored!.privateJwkSealed).toMatch(/^v1\./);
    expect(stored!.privateJwkSealed).not.toContain('"d"');
  });

  it('signs a shop user in to a sister product without a consent screen; the ID token verifies with jose', async () => {
    const jar = new CookieJar();
    await signIn(jar, 'alice@example.org');
    const { verifier, challenge } = pkce();
    const code = await codeFor(jar, challenge, { nonce: 'n-alice' });

    const response = await redeem(code, verifier);
    expect(response.status).toBe(200);
    const tokens = (await response.json()) as { id_token: string; access_token: string; token_type: string };
    expect(tokens.token_type).toBe('Bearer');

    const { jwks_uri } = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as { jwks_uri: string };
    const { payload, protectedHeader } = await jwtVerify(tokens.id_token, createRemoteJWKSet(new URL(jwks_uri)), { issuer, audience: client.clientId, algorithms: ['RS256'] });
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload).toMatchObject({
      sub: users.alice,
      username: 'aliceBeats',
      preferred_username: 'aliceBeats',
      account_type: 'Artist',
      email: 'alice@example.org',
      email_verified: true,
      nonce: 'n-alice',
    });

    const userinfo = await fetch(`${issuer}/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(userinfo.status).toBe(200);
    expect(await userinfo.json()).toMatchObject({ sub: users.alice, username: 'aliceBeats', account_type: 'Artist' });
  });

  it('a code is redeemed once, even by ten requests at the same moment', async () => {
    const jar = new CookieJar();
    await signIn(jar, 'bob@example.org');
    const { verifier, challenge } = pkce();
    const code = await codeFor(jar, challenge);
    const answers = await Promise.all(Array.from({ length: 10 }, () => redeem(code, verifier)));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    for (const answer of answers.filter((a) => a.status !== 200)) {
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as { error: string }).error).toBe('invalid_grant');
    }
    // And once more afterwards.
    expect((await redeem(code, verifier)).status).toBe(400);
  });

  it('refuses a wrong PKCE verifier, a wrong client secret and a revoked client', async () => {
    const jar = new CookieJar();
    await signIn(jar, 'bob@example.org');
    const first = pkce();
    const wrongVerifier = await redeem(await codeFor(jar, first.challenge), pkce().verifier);
    expect(wrongVerifier.status).toBe(400);
    expect(((await wrongVerifier.json()) as { error: string }).error).toBe('invalid_grant');

    const second = pkce();
    const wrongSecret = await redeem(await codeFor(jar, second.challenge), second.verifier, 'not-the-secret');
    expect(wrongSecret.status).toBe(401);
    expect(((await wrongSecret.json()) as { error: string }).error).toBe('invalid_client');

    const doomed = await createOAuthClient(database.db, sealKeyFor(config.AUTH_SECRET), { name: 'SPN Video', redirectUris: [REDIRECT] });
    expect(await revokeOAuthClient(database.db, doomed.clientId)).toBe(true);
    const refused = await browse(jar, authorizeUrl({ challenge: second.challenge, clientId: doomed.clientId }));
    expect(refused.status).toBe(400);
    expect(refused.headers.get('location')).toBeNull();
    expect(await refused.text()).toContain('Sign-in could not be completed');
  });

  it('never sends a code to a redirect URI that was not registered', async () => {
    const jar = new CookieJar();
    await signIn(jar, 'alice@example.org');
    const response = await browse(jar, authorizeUrl({ challenge: pkce().challenge, redirectUri: 'https://evil.example/callback' }));
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
  });

  it('requires PKCE', async () => {
    const jar = new CookieJar();
    await signIn(jar, 'alice@example.org');
    const url = new URL(authorizeUrl({ challenge: 'x' }));
    url.searchParams.delete('code_challenge');
    url.searchParams.delete('code_challenge_method');
    const landing = await follow(jar, url.href);
    expect(landing.origin + landing.pathname).toBe(REDIRECT);
    expect(landing.searchParams.get('error')).toBe('invalid_request');
    expect(landing.searchParams.get('code')).toBeNull();
  });

  it('sends a signed-out visitor through the shop login, then on to the sister product', async () => {
    const jar = new CookieJar();
    const { verifier, challenge } = pkce();
    const atLogin = await follow(jar, authorizeUrl({ challenge }));
    expect(atLogin.pathname).toBe('/login');
    const uid = atLogin.searchParams.get('sso')!;
    expect(uid).toMatch(/^[A-Za-z0-9_-]+$/);

    await signIn(jar, 'bob@example.org');
    // The login page sends the browser back to the sign-in step it came from.
    const landing = await follow(jar, `/sso/interaction/${uid}`);
    expect(landing.origin + landing.pathname).toBe(REDIRECT);
    const tokens = (await (await redeem(landing.searchParams.get('code')!, verifier)).json()) as { id_token: string };
    const { payload } = await jwtVerify(tokens.id_token, createRemoteJWKSet(new URL(`${issuer}/jwks`)), { issuer, audience: client.clientId });
    expect(payload).toMatchObject({ sub: users.bob, username: 'bobBeats', account_type: 'Fan' });
  });

  it('follows the shop session: signed out of the shop is signed out of single sign-on, and prompt=none says so', async () => {
    const jar = new CookieJar();
    await signIn(jar, 'alice@example.org');
    await codeFor(jar, pkce().challenge);
    // Sign out of the shop only; the provider's own cookies stay in the browser.
    const signOut = await browse(jar, '/api/auth/sign-out', { method: 'POST', headers: { origin: base, 'content-type': 'application/json' }, body: '{}' });
    expect(signOut.status).toBe(200);
    const silent = await follow(jar, authorizeUrl({ challenge: pkce().challenge, prompt: 'none' }));
    expect(silent.origin + silent.pathname).toBe(REDIRECT);
    expect(silent.searchParams.get('error')).toBe('login_required');
    expect((await follow(jar, authorizeUrl({ challenge: pkce().challenge }))).pathname).toBe('/login');

    // Another account signing in to the shop in the same browser gets its own identity.
    await signIn(jar, 'bob@example.org');
    const { verifier, challenge } = pkce();
    const tokens = (await (await redeem(await codeFor(jar, challenge), verifier)).json()) as { id_token: string };
    const { payload } = await jwtVerify(tokens.id_token, createRemoteJWKSet(new URL(`${issuer}/jwks`)), { issuer, audience: client.clientId });
    expect(payload.sub).toBe(users.bob);
    expect(decodeProtectedHeader(tokens.id_token).kid).toBeTruthy();
  });

  it("answers with the shop's security headers, so the provider's self-posting form runs under its CSP", async () => {
    for (const url of [`${issuer}/.well-known/openid-configuration`, `${issuer}/auth?client_id=nobody`, `${base}/sso/interaction/x`]) {
      const response = await fetch(url, { redirect: 'manual' });
      expect(response.headers.get('content-security-policy'), url).toContain("script-src 'self'");
      expect(response.headers.get('content-security-policy'), url).toContain("frame-ancestors 'none'");
      expect(response.headers.get('x-content-type-options'), url).toBe('nosniff');
    }
  });

  it('an expired or foreign sign-in step gets a clear page', async () => {
    const response = await fetch(`${base}/sso/interaction/not-a-real-one`);
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('This sign-in link has expired or was opened in another browser.');
  });

  it('survives an AUTH_SECRET rotation: a new signing key, and clients must be registered again', async () => {
    const { app: rotated, close } = await startTestApp({ database, listen: false, config: { ...config, AUTH_SECRET: 'another-secret-another-secret-another-0123' } });
    try {
      const jwks = (await (await rotated.inject({ url: '/oidc/jwks' })).json()) as { keys: { kid: string }[] };
      const before = (await (await fetch(`${issuer}/jwks`)).json()) as { keys: { kid: string }[] };
      expect(jwks.keys).toHaveLength(1);
      expect(jwks.keys[0]!.kid).not.toBe(before.keys[0]!.kid);
      // The old client's secret is unreadable under the new secret: it is unknown now.
      const refused = await rotated.inject({ url: authorizeUrl({ challenge: pkce().challenge }).replace(base, '') });
      expect(refused.statusCode).toBe(400);
      expect(refused.body).toContain('client is invalid');
    } finally {
      await close();
    }
  });

  it('registers clients with the CLI; the secret is kept sealed', async () => {
    const output = await commands['create-oauth-client']!.run(['SPN Video', 'https://video.example/callback', 'spnvideo://auth'], { db: database.db, config });
    const clientId = /client_id:\s+(\S+)/.exec(output)![1]!;
    const secret = /client_secret:\s+(\S+)/.exec(output)![1]!;
    expect(output).toContain(`${issuer}/.well-known/openid-configuration`);
    const rows = await database.db.select().from(oauthClients);
    const row = rows.find((r) => r.clientId === clientId)!;
    expect(row.redirectUris).toEqual(['https://video.example/callback', 'spnvideo://auth']);
    expect(row.secretSealed).not.toContain(secret);
    // A shell without PUBLIC_URL does not print a localhost issuer as if it were the shop's (issue 24 item 6).
    const unset = await commands['create-oauth-client']!.run(['SPN Radio', 'https://radio.example/callback'], { db: database.db, config: { ...config, PUBLIC_URL: undefined } });
    expect(unset).toMatch(/issuer: +<the shop's PUBLIC_URL>\/oidc +\(PUBLIC_URL is not set/);
    expect(unset).not.toMatch(/issuer: +http:\/\/localhost/);
    await expect(commands['create-oauth-client']!.run(['Bad', 'http://evil.example/cb'], { db: database.db, config })).rejects.toThrow('must use https');
    await expect(commands['create-oauth-client']!.run(['Bad', 'https://x.example/cb#frag'], { db: database.db, config })).rejects.toThrow('fragment');
    await expect(commands['create-oauth-client']!.run(['Bad'], { db: database.db, config })).rejects.toThrow('Usage');
    expect(await commands['revoke-oauth-client']!.run([clientId], { db: database.db, config })).toContain('revoked');
    await expect(commands['revoke-oauth-client']!.run([clientId], { db: database.db, config })).rejects.toThrow('No live single sign-on client');
  });

  it('registers a back-channel logout URI and token-exchange scopes with the CLI, and only sound ones', async () => {
    const run = (args: string[]) => commands['create-oauth-client']!.run(args, { db: database.db, config });
    const output = await run(['SPN Music', 'https://music.example/callback', '--backchannel-logout-uri', 'https://music.example/sso/logout', '--exchange-scope', 'shop_api']);
    expect(output).toContain('back-channel logout URI: https://music.example/sso/logout');
    expect(output).toContain('token exchange scopes:   shop_api');
    const clientId = /client_id:\s+(\S+)/.exec(output)![1]!;
    const row = (await database.db.select().from(oauthClients)).find((r) => r.clientId === clientId)!;
    expect([row.backchannelLogoutUri, row.exchangeScopes]).toEqual(['https://music.example/sso/logout', ['shop_api']]);
    // Neither by default.
    const plain = await run(['SPN Radio', 'https://radio.example/callback']);
    expect(plain).toContain('(none: this client cannot exchange tokens)');
    await expect(run(['Bad', 'https://x.example/cb', '--backchannel-logout-uri', 'http://evil.example/logout'])).rejects.toThrow('must use https');
    await expect(run(['Bad', 'https://x.example/cb', '--backchannel-logout-uri', 'spnmusic://logout'])).rejects.toThrow('must use https');
    await expect(run(['Bad', 'https://x.example/cb', '--exchange-scope', 'openid'])).rejects.toThrow('--exchange-scope is one of: shop_api');
    await expect(run(['Bad', 'https://x.example/cb', '--exchange-scope'])).rejects.toThrow('needs a value');
    await expect(run(['Bad', 'https://x.example/cb', '--sideways'])).rejects.toThrow('Usage');
  });
});
