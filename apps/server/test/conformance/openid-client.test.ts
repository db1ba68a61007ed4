import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import type { Config } from '../../src/config.ts';
import { createOAuthClient } from '../../src/oidc/oidc.clients.ts';
import { sealKeyFor } from '../../src/oidc/oidc.provider.ts';
import { startTestApp, type TestApp } from '../app.ts';
import type { TestDatabase } from '../database.ts';
import { CookieJar, ssoFlow } from '../oidc-flow.ts';

/**
 * Conformance (issue 19 item 7, decision 029): `openid-client` 6, unchanged, against a
 * running shop: discovery, the authorization-code flow with PKCE, ID token validation,
 * userinfo, refresh tokens (offline_access) with rotation, revocation, and refresh tokens
 * ending with "sign out everywhere" and a password reset.
 */
let shop: TestApp;
let database: TestDatabase;
let config: Config;
let base: string;
let issuer: string;
let registered: { clientId: string; clientSecret: string };
const REDIRECT = 'http://127.0.0.1:4999/callback';

const { signIn, follow, browse } = ssoFlow(() => ({ base, issuer, client: registered, redirect: REDIRECT }));

beforeAll(async () => {
  shop = await startTestApp({
    async seed({ db, config }) {
      for (const name of ['alice', 'bob', 'carol']) {
        await createAccount(
          db,
          config,
          { email: `${name}@example.org`, username: `${name}Beats`, name, password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true },
          { emailVerified: true },
        );
      }
    },
  });
  ({ database, config, baseUrl: base } = shop);
  issuer = `${base}/oidc`;
  registered = await createOAuthClient(database.db, sealKeyFor(config.AUTH_SECRET), { name: 'SPN Music', redirectUris: [REDIRECT] });
});

afterAll(async () => {
  await shop?.close();
});

/** A sister product's sign-in with offline_access; `jar` is the user's browser, signed in to the shop. */
async function signInWithShop(jar: CookieJar) {
  // --- snippet: openid-client (README "Using the shop from another app") ---
  const configuration = await oidc.discovery(new URL(issuer), registered.clientId, undefined, oidc.ClientSecretBasic(registered.clientSecret), {
    execute: [oidc.allowInsecureRequests], // only because the test shop is plain http
  });
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const authorizationUrl = oidc.buildAuthorizationUrl(configuration, {
    redirect_uri: REDIRECT,
    scope: 'openid profile email offline_access',
    prompt: 'consent', // OpenID Connect gives offline_access only with it; the shop shows no screen
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
  });
  // ... the browser goes to authorizationUrl and comes back to REDIRECT ...
  const callbackUrl = await follow(jar, authorizationUrl.href);
  const tokens = await oidc.authorizationCodeGrant(configuration, callbackUrl, { pkceCodeVerifier: codeVerifier, expectedState: state });
  // --- end snippet ---
  return { configuration, tokens };
}

describe('openid-client 6 against the shop', () => {
  it('publishes only the code flow and refresh tokens in discovery', async () => {
    const configuration = await oidc.discovery(new URL(issuer), registered.clientId, undefined, oidc.ClientSecretBasic(registered.clientSecret), {
      execute: [oidc.allowInsecureRequests],
    });
    const metadata = configuration.serverMetadata();
    expect(metadata.response_types_supported).toEqual(['code']);
    expect(metadata.grant_types_supported).not.toContain('implicit');
    expect(metadata.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
    expect(metadata.scopes_supported).toContain('offline_access');
  });

  it('signs in, validates the ID token, reads userinfo, refreshes with rotation and revokes', async () => {
    const jar = new CookieJar();
    await signIn(jar, 'alice@example.org');
    const { configuration, tokens } = await signInWithShop(jar);
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({ iss: issuer, aud: registered.clientId, preferred_username: 'aliceBeats', email: 'alice@example.org' });
    expect(tokens.refresh_token).toBeTruthy();

    // --- snippet: openid-client-refresh ---
    const userinfo = await oidc.fetchUserInfo(configuration, tokens.access_token, claims.sub);
    const refreshed = await oidc.refreshTokenGrant(configuration, tokens.refresh_token!);
    // --- end snippet ---
    expect(userinfo).toMatchObject({ sub: claims.sub, email: 'alice@example.org' });
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    // Rotation: a new refresh token, and the old one is spent.
    expect(refreshed.refresh_token).toBeTruthy();
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect((await oidc.fetchUserInfo(configuration, refreshed.access_token, claims.sub)).sub).toBe(claims.sub);
    await expect(oidc.refreshTokenGrant(configuration, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    // Presenting a spent one again revoked the grant (reuse detection): the newer one is gone too.
    await expect(oidc.refreshTokenGrant(configuration, refreshed.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });

    // Revocation of a fresh refresh token.
    const again = await signInWithShop(jar);
    await oidc.tokenRevocation(again.configuration, again.tokens.refresh_token!);
    await expect(oidc.refreshTokenGrant(again.configuration, again.tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('gives no refresh token without offline_access', async () => {
    const jar = new CookieJar();
    await signIn(jar, 'alice@example.org');
    const configuration = await oidc.discovery(new URL(issuer), registered.clientId, undefined, oidc.ClientSecretBasic(registered.clientSecret), {
      execute: [oidc.allowInsecureRequests],
    });
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: REDIRECT,
      scope: 'openid profile',
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    });
    const tokens = await oidc.authorizationCodeGrant(configuration, await follow(jar, url.href), { pkceCodeVerifier: codeVerifier });
    expect(tokens.refresh_token).toBeUndefined();
  });

  it('ends refresh tokens when the user signs out everywhere', async () => {
    const jar = new CookieJar();
    await signIn(jar, 'bob@example.org');
    const { configuration, tokens } = await signInWithShop(jar);
    const out = await browse(jar, '/api/auth/revoke-sessions', { method: 'POST', headers: { 'content-type': 'application/json', origin: base }, body: '{}' });
    expect(out.status).toBe(200);
    await expect(oidc.refreshTokenGrant(configuration, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('ends refresh tokens when the password is reset', async () => {
    const jar = new CookieJar();
    await signIn(jar, 'carol@example.org');
    const { configuration, tokens } = await signInWithShop(jar);
    // The reset itself (mail, link) is tested in accounts; here its hook: the OIDC revocation.
    const { revokeOidcForAccount } = await import('../../src/oidc/oidc.adapter.ts');
    await revokeOidcForAccount(database.db, tokens.claims()!.sub);
    await expect(oidc.refreshTokenGrant(configuration, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });
});
