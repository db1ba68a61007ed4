import http from 'node:http';
import { exchangedSessionAgent } from '../../src/accounts/exchanged-session.service.ts';
import type { AddressInfo } from 'node:net';
import { deleteApp, initializeApp, type FirebaseApp } from 'firebase/app';
import { connectAuthEmulator, getAuth, signInWithCustomToken } from 'firebase/auth';
import { getFunctions, httpsCallable, type FunctionsError } from 'firebase/functions';
import { connectStorageEmulator, getBytes, getStorage, ref, uploadBytes } from 'firebase/storage';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
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
import { spawnServer, stopAllServers, stopServer, waitUntilReady, type ServerProcess } from '../reliability/processes.ts';

/**
 * Issue 24 items 5 and 6 (decision 049) against a shop in its production configuration
 * (NODE_ENV=production with test settings, a server process), with the official clients
 * unchanged: `openid-client` 6 signs in and exchanges the access token (RFC 8693), the
 * `firebase` 12 SDK calls a function and storage with the result, and a real HTTP receiver
 * takes the back-channel logout tokens and verifies them against the shop's JWKS with jose.
 */
const PASSWORD = 'correct horse';
const AUTH_SECRET = 'sister-sso-conformance-secret-'.repeat(2);
const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';
const MUSIC_REDIRECT = 'http://127.0.0.1:4997/callback';
const VIDEO_REDIRECT = 'http://127.0.0.1:4996/callback';
const LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

let database: TestDatabase;
let origin: string;
let issuer: string;
let server: ServerProcess;
let serverSettings: Record<string, string>;
const userIds = new Map<string, string>();
const apps: FirebaseApp[] = [];

interface Registered {
  clientId: string;
  clientSecret: string;
}
let music: Registered;
let video: Registered;
let plain: Registered;

/** The sister products' back-channel logout endpoint: a real HTTP server that keeps every POST. */
interface Delivery {
  path: string;
  status: number;
  contentType: string | undefined;
  logoutToken: string;
}
/** Every request the receiver answered, in order. */
const attempts: Delivery[] = [];
const waiters: { match: (delivery: Delivery) => boolean; resolve: (delivery: Delivery) => void }[] = [];
/** Statuses to answer with, first first (then 200): lets a test make a delivery fail. */
const failNext: number[] = [];
let receiver: http.Server;
let receiverBase: string;

/** The first request from index `after` on that matches; waits for it when none came yet. */
function nextAttempt(match: (delivery: Delivery) => boolean, after = 0): Promise<Delivery> {
  const found = attempts.slice(after).find(match);
  if (found) return Promise.resolve(found);
  return new Promise((resolve) => waiters.push({ match, resolve }));
}

beforeAll(async () => {
  receiver = http.createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const status = failNext.shift() ?? 200;
      response.writeHead(status, { 'cache-control': 'no-store' }).end();
      const delivery = { path: request.url ?? '', status, contentType: request.headers['content-type'], logoutToken: new URLSearchParams(body).get('logout_token') ?? '' };
      attempts.push(delivery);
      for (const waiter of waiters.splice(0)) {
        if (waiter.match(delivery)) waiter.resolve(delivery);
        else waiters.push(waiter);
      }
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  database = await createTestDatabase();
  const config = testConfig();
  for (const [email, username, role] of [
    ['boss@example.org', 'Boss', 'admin'],
    ['fan@example.org', 'FanOne', 'user'],
    ['carol@example.org', 'CarolBeats', 'user'],
    ['dave@example.org', 'DaveBeats', 'user'],
  ] as const) {
    const created = await createAccount(
      database.db,
      config,
      { email, username, name: username, password: PASSWORD, confirmPassword: PASSWORD, acceptedTerms: true },
      { emailVerified: true, role },
    );
    userIds.set(email, created.userId);
  }
  const sealKey = sealKeyFor(AUTH_SECRET);
  music = await createOAuthClient(database.db, sealKey, {
    name: 'SPN Music',
    redirectUris: [MUSIC_REDIRECT],
    exchangeScopes: ['shop_api'],
    backchannelLogoutUri: `${receiverBase}/music/logout`,
  });
  // The label's own video product, first-party: it may carry an admin's powers (issue 40 item 9).
  video = await createOAuthClient(database.db, sealKey, {
    name: 'SPN Video',
    redirectUris: [VIDEO_REDIRECT],
    exchangeScopes: ['shop_api', 'shop_admin'],
    firstParty: true,
    backchannelLogoutUri: `${receiverBase}/video/logout`,
  });
  plain = await createOAuthClient(database.db, sealKey, { name: 'SPN Radio', redirectUris: [MUSIC_REDIRECT] });

  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  issuer = `${origin}/oidc`;
  serverSettings = {
    NODE_ENV: 'production',
    DATABASE_URL: database.connectionString,
    PUBLIC_URL: origin,
    AUTH_SECRET,
    SMTP_URL: 'smtp://127.0.0.1:9',
    PAYMENT_PROVIDER: 'local',
    ALLOW_TEST_PAYMENTS: '1',
    SIGNIN_RATE_LIMIT: '100',
  };
  server = await spawnServer(serverSettings, port);
  await waitUntilReady(server);
}, 180_000);

afterAll(async () => {
  await Promise.all(apps.map((app) => deleteApp(app)));
  await stopAllServers();
  await database?.close();
  await new Promise((resolve) => receiver?.close(resolve));
}, 60_000);

/** openid-client's configuration for a client (plain http only because the test shop is). */
function discover(client: Registered) {
  return oidc.discovery(new URL(issuer), client.clientId, undefined, oidc.ClientSecretBasic(client.clientSecret), { execute: [oidc.allowInsecureRequests] });
}

/** A user signed in to the shop in a browser, then to a sister product through single sign-on. */
async function ssoSignIn(email: string, client: Registered, redirect: string, scope = 'openid profile email') {
  const jar = new CookieJar();
  const flow = ssoFlow(() => ({ base: origin, issuer, client, redirect }));
  await flow.signIn(jar, email, PASSWORD);
  const configuration = await discover(client);
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(configuration, {
    redirect_uri: redirect,
    scope,
    ...(scope.includes('offline_access') ? { prompt: 'consent' } : {}),
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
  });
  const callbackUrl = await flow.follow(jar, url.href);
  const tokens = await oidc.authorizationCodeGrant(configuration, callbackUrl, { pkceCodeVerifier: codeVerifier });
  return { jar, flow, configuration, tokens };
}

/** The exchange as the README shows it (openid-client 6). */
async function exchange(configuration: oidc.Configuration, accessToken: string, extra: Record<string, string> = {}) {
  // --- snippet: token-exchange ---
  const exchanged = await oidc.genericGrantRequest(configuration, 'urn:ietf:params:oauth:grant-type:token-exchange', {
    subject_token: accessToken, // the user's single sign-on access token
    subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
    scope: 'shop_api',
    ...extra,
  });
  // exchanged.access_token is a shop token: signInWithCustomToken(auth, exchanged.access_token)
  // --- end snippet ---
  return exchanged;
}

async function refusal(promise: Promise<unknown>): Promise<{ error?: string; error_description?: string; code?: string; status?: number; cause?: unknown }> {
  return promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: unknown) => error as { error?: string; error_description?: string; code?: string },
  );
}

/** The firebase SDK pointed at the shop, signed in with a shop token. */
async function firebaseWith(shopToken: string) {
  const app = initializeApp({ projectId: 'storefront', apiKey: 'unused', storageBucket: 'storefront' }, `sister-sso-${apps.length}`);
  apps.push(app);
  const auth = getAuth(app);
  connectAuthEmulator(auth, origin, { disableWarnings: true });
  const functions = getFunctions(app, `${origin}/fn`);
  const storage = getStorage(app);
  connectStorageEmulator(storage, new URL(origin).hostname, Number(new URL(origin).port));
  await signInWithCustomToken(auth, shopToken);
  return { auth, functions, storage };
}

describe('item 5: token exchange (RFC 8693) gives single sign-on users the functions and storage', () => {
  it('refuses the single sign-on access token itself at the functions and at signInWithCustomToken', async () => {
    const { tokens } = await ssoSignIn('fan@example.org', music, MUSIC_REDIRECT);
    const app = initializeApp({ projectId: 'storefront', apiKey: 'unused' }, `sister-sso-raw-${apps.length}`);
    apps.push(app);
    const auth = getAuth(app);
    connectAuthEmulator(auth, origin, { disableWarnings: true });
    expect((await refusal(signInWithCustomToken(auth, tokens.access_token))).code).toBe('auth/invalid-custom-token');
    const call = await fetch(`${origin}/fn/getProfile`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.access_token}` },
      body: '{"data":null}',
    });
    expect(call.status).toBe(401);
  });

  it('music: a fan’s access token becomes a shop token the firebase SDK calls a function with', async () => {
    const { configuration, tokens } = await ssoSignIn('fan@example.org', music, MUSIC_REDIRECT);
    expect(configuration.serverMetadata().grant_types_supported).toContain(EXCHANGE);
    const exchanged = await exchange(configuration, tokens.access_token);
    expect(exchanged).toMatchObject({ issued_token_type: ACCESS_TOKEN, token_type: 'bearer', scope: 'shop_api' });
    // It ends no later than the access token it came from.
    expect(exchanged.expires_in).toBeGreaterThan(0);
    expect(exchanged.expires_in).toBeLessThanOrEqual(tokens.expires_in!);

    const { functions, auth } = await firebaseWith(exchanged.access_token);
    expect(auth.currentUser?.uid).toBe(userIds.get('fan@example.org'));
    const profile = await httpsCallable<unknown, { username: string }>(functions, 'getProfile')();
    expect(profile.data.username).toBe('FanOne');
    // Used, it is not extended: it still ends with the access token.
    const { rows } = await database.pool.query<{ expires_at: Date }>(`SELECT expires_at FROM session WHERE user_id = $1 AND user_agent = $2`, [
      userIds.get('fan@example.org'),
      exchangedSessionAgent(music.clientId, tokens.access_token),
    ]);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.expires_at.getTime()).toBeLessThanOrEqual(Date.now() + 3600_000);
    // A fan is still a fan: admin functions stay closed.
    const denied = await refusal(httpsCallable(functions, 'releaseBizarreProduct')({ name: 'A', description: 'B', priceCents: 1, images: [] }));
    expect((denied as FunctionsError).code).toBe('functions/permission-denied');
  });

  it('video (first-party): an admin who granted shop_admin uploads to storage and reads it back with the firebase SDK', async () => {
    const { configuration, tokens } = await ssoSignIn('boss@example.org', video, VIDEO_REDIRECT, 'openid profile email shop_admin');
    const exchanged = await exchange(configuration, tokens.access_token, { scope: 'shop_api shop_admin' });
    expect(exchanged.scope).toBe('shop_api shop_admin');
    const { storage, functions } = await firebaseWith(exchanged.access_token);
    const path = `products/${Date.now()}-sso.png`;
    const image = await solidImage(20, 20);
    await uploadBytes(ref(storage, path), image, { contentType: 'image/png' });
    expect((await getBytes(ref(storage, path))).byteLength).toBeGreaterThan(0);
    const profile = await httpsCallable<unknown, { username: string }>(functions, 'getProfile')();
    expect(profile.data.username).toBe('Boss');
  });

  it('an admin’s openid-only sign-in gives a sister product no admin powers; shop_admin only for a first-party client the user granted it (issue 40 item 9)', async () => {
    const image = await solidImage(20, 20);
    // Music is not first-party: an admin signed in there is an ordinary user in the shop.
    const atMusic = await ssoSignIn('boss@example.org', music, MUSIC_REDIRECT, 'openid profile email shop_admin');
    expect(await refusal(exchange(atMusic.configuration, atMusic.tokens.access_token, { scope: 'shop_api shop_admin' }))).toMatchObject({ error: 'invalid_scope' });
    const plainToken = await exchange(atMusic.configuration, atMusic.tokens.access_token);
    expect(plainToken.scope).toBe('shop_api');
    const asUser = await firebaseWith(plainToken.access_token);
    expect((await httpsCallable<unknown, { username: string }>(asUser.functions, 'getProfile')()).data.username).toBe('Boss');
    await expect(httpsCallable(asUser.functions, 'listAdmins')()).rejects.toMatchObject({ code: 'functions/permission-denied' });
    await expect(uploadBytes(ref(asUser.storage, `products/${Date.now()}-music.png`), image, { contentType: 'image/png' })).rejects.toMatchObject({ code: 'storage/unauthorized' });
    // Video is first-party, but the user's sign-in asked only openid: no shop_admin to exchange for.
    const openidOnly = await ssoSignIn('boss@example.org', video, VIDEO_REDIRECT);
    expect(await refusal(exchange(openidOnly.configuration, openidOnly.tokens.access_token, { scope: 'shop_api shop_admin' }))).toMatchObject({ error: 'invalid_scope' });
    const withoutAdmin = await firebaseWith((await exchange(openidOnly.configuration, openidOnly.tokens.access_token)).access_token);
    await expect(httpsCallable(withoutAdmin.functions, 'listAdmins')()).rejects.toMatchObject({ code: 'functions/permission-denied' });
    // Granted and asked for: the admin's powers.
    const granted = await ssoSignIn('boss@example.org', video, VIDEO_REDIRECT, 'openid profile email shop_admin');
    const asAdmin = await firebaseWith((await exchange(granted.configuration, granted.tokens.access_token, { scope: 'shop_api shop_admin' })).access_token);
    const admins = await httpsCallable<unknown, { admins: { email: string }[] }>(asAdmin.functions, 'listAdmins')();
    expect(admins.data.admins.map((admin) => admin.email)).toContain('boss@example.org');
    // A fan granted shop_admin is still a fan.
    const fan = await ssoSignIn('fan@example.org', video, VIDEO_REDIRECT, 'openid profile email shop_admin');
    const asFan = await firebaseWith((await exchange(fan.configuration, fan.tokens.access_token, { scope: 'shop_api shop_admin' })).access_token);
    await expect(httpsCallable(asFan.functions, 'listAdmins')()).rejects.toMatchObject({ code: 'functions/permission-denied' });
    // Registering shop_admin needs --first-party.
    await expect(createOAuthClient(database.db, sealKeyFor(AUTH_SECRET), { name: 'Other', redirectUris: [MUSIC_REDIRECT], exchangeScopes: ['shop_admin'] })).rejects.toThrow(
      'Only a first-party client (--first-party) may be given the shop_admin scope.',
    );
  });

  it('refuses another client’s token, a client without the scope, a scope not allowed, and another audience', async () => {
    const { tokens } = await ssoSignIn('fan@example.org', music, MUSIC_REDIRECT);
    const asVideo = await refusal(exchange(await discover(video), tokens.access_token));
    expect(asVideo).toMatchObject({ error: 'invalid_request', error_description: 'subject_token was issued to another client' });
    const asPlain = await refusal(exchange(await discover(plain), tokens.access_token));
    expect(asPlain).toMatchObject({ error: 'invalid_request', error_description: 'requested grant type is not allowed for this client' });
    const musicConfig = await discover(music);
    for (const scope of ['openid', 'shop_api admin', 'offline_access']) {
      expect(await refusal(exchange(musicConfig, tokens.access_token, { scope }))).toMatchObject({ error: 'invalid_scope' });
    }
    expect(await refusal(exchange(musicConfig, tokens.access_token, { audience: 'https://evil.example' }))).toMatchObject({ error: 'invalid_target' });
    expect(await refusal(exchange(musicConfig, tokens.access_token, { subject_token_type: 'urn:ietf:params:oauth:token-type:id_token' }))).toMatchObject({
      error: 'invalid_request',
    });
    // An ID token, or a forged token, is not an access token of the shop.
    expect(await refusal(exchange(musicConfig, tokens.id_token!))).toMatchObject({ error: 'invalid_request' });
    // A wrong client secret: the client is not authenticated.
    const forged = await oidc.discovery(new URL(issuer), music.clientId, undefined, oidc.ClientSecretBasic('wrong'), { execute: [oidc.allowInsecureRequests] });
    const unauthenticated = await refusal(exchange(forged, tokens.access_token));
    expect(unauthenticated).toMatchObject({ status: 401, cause: [{ parameters: { error: 'invalid_client' } }] });
    // The token itself still exchanges for its own client.
    expect((await exchange(musicConfig, tokens.access_token)).access_token).toBeTruthy();
  });

  it('refuses a revoked and an expired access token', async () => {
    const revoked = await ssoSignIn('fan@example.org', music, MUSIC_REDIRECT);
    await oidc.tokenRevocation(revoked.configuration, revoked.tokens.access_token);
    expect(await refusal(exchange(revoked.configuration, revoked.tokens.access_token))).toMatchObject({
      error: 'invalid_request',
      error_description: 'subject_token is not an active access token of the shop',
    });
    const expired = await ssoSignIn('fan@example.org', music, MUSIC_REDIRECT);
    // An hour later, as far as the token is concerned.
    await database.pool.query(`UPDATE oidc_model SET payload = jsonb_set(payload, '{exp}', to_jsonb(extract(epoch FROM now())::int - 1)) WHERE model = 'AccessToken' AND id = $1`, [
      expired.tokens.access_token,
    ]);
    expect(await refusal(exchange(expired.configuration, expired.tokens.access_token))).toMatchObject({ error: 'invalid_request' });
  });

  it('revoking a leaked access token ends the shop sessions exchanged for it at once, and only those (issue 40 item 8)', async () => {
    const leaked = await ssoSignIn('fan@example.org', music, MUSIC_REDIRECT);
    const kept = await ssoSignIn('fan@example.org', music, MUSIC_REDIRECT);
    const fromLeaked = await exchange(leaked.configuration, leaked.tokens.access_token);
    const fromKept = await exchange(kept.configuration, kept.tokens.access_token);
    expect((await call('getProfile', fromLeaked.access_token, null)).status).toBe(200);
    await oidc.tokenRevocation(leaked.configuration, leaked.tokens.access_token);
    expect((await call('getProfile', fromLeaked.access_token, null)).status).toBe(401);
    expect((await call('getProfile', fromKept.access_token, null)).status).toBe(200);
  });
});

/** The logout token checked as a sister product must: signature against the JWKS, issuer, audience, claims. */
async function verifiedLogoutToken(delivery: Delivery, client: Registered): Promise<JWTPayload> {
  expect(delivery.contentType).toBe('application/x-www-form-urlencoded');
  const configuration = await discover(client);
  const jwks = createRemoteJWKSet(new URL(configuration.serverMetadata().jwks_uri!));
  const { payload } = await jwtVerify(delivery.logoutToken, jwks, { issuer, audience: client.clientId, algorithms: ['RS256'] });
  expect(decodeProtectedHeader(delivery.logoutToken)).toMatchObject({ alg: 'RS256', typ: 'logout+jwt' });
  expect(typeof payload.exp).toBe('number');
  expect(payload.events).toEqual({ [LOGOUT_EVENT]: {} });
  expect(payload).not.toHaveProperty('nonce');
  expect(typeof payload.jti).toBe('string');
  expect(typeof payload.iat).toBe('number');
  return payload;
}

/** The claims of a delivered logout token, unverified (only to pick the delivery a test waits for). */
const claimsOf = (delivery: Delivery) => JSON.parse(Buffer.from(delivery.logoutToken.split('.')[1] ?? '', 'base64url').toString() || '{}') as JWTPayload;

/** A delivery (answered 200, or `status`) of a logout token for `sub` (and `sid`, when given) at `path`. */
const forUser =
  (path: string, sub: string | undefined, { status = 200, sid }: { status?: number; sid?: unknown } = {}) =>
  (delivery: Delivery) =>
    delivery.path === path && delivery.status === status && claimsOf(delivery).sub === sub && (sid === undefined || claimsOf(delivery).sid === sid);

async function backendToken(email: string) {
  const { token } = await createAuthClient({ baseUrl: origin, functions: createFunctionsClient({ baseUrl: origin }) }).signIn(email, PASSWORD);
  if (!token) throw new Error(`no token for ${email}`);
  return token;
}

async function call(name: string, token: string, data: unknown) {
  return fetch(`${origin}/fn/${name}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ data }) });
}

describe('item 6: back-channel logout (OpenID Connect Back-Channel Logout 1.0)', () => {
  it('is advertised in discovery', async () => {
    const metadata = (await discover(music)).serverMetadata();
    expect(metadata.backchannel_logout_supported).toBe(true);
    expect(metadata.backchannel_logout_session_supported).toBe(true);
  });

  it('signing out of the shop sends each client the user used a signed logout token, and ends their tokens', async () => {
    const fan = userIds.get('fan@example.org');
    const before = attempts.length;
    const onMusic = await ssoSignIn('fan@example.org', music, MUSIC_REDIRECT, 'openid profile email offline_access');
    const sid = onMusic.tokens.claims()?.sid;
    expect(typeof sid).toBe('string');
    const exchanged = await exchange(onMusic.configuration, onMusic.tokens.access_token);
    expect((await call('getProfile', exchanged.access_token, null)).status).toBe(200);

    const signOut = await onMusic.flow.browse(onMusic.jar, '/api/auth/sign-out', { method: 'POST', headers: { 'content-type': 'application/json', origin }, body: '{}' });
    expect(signOut.status).toBe(200);

    const delivered = await nextAttempt(forUser('/music/logout', fan, { sid }), before);
    const payload = await verifiedLogoutToken(delivered, music);
    expect(payload.sub).toBe(fan);
    expect(payload.sid).toBe(sid);
    // Access, refresh and exchanged tokens of that user are over.
    expect(await refusal(oidc.fetchUserInfo(onMusic.configuration, onMusic.tokens.access_token, fan!))).toBeTruthy();
    expect(await refusal(oidc.refreshTokenGrant(onMusic.configuration, onMusic.tokens.refresh_token!))).toMatchObject({ error: 'invalid_grant' });
    expect((await call('getProfile', exchanged.access_token, null)).status).toBe(401);
    expect(await refusal(exchange(onMusic.configuration, onMusic.tokens.access_token))).toMatchObject({ error: 'invalid_request' });
  });

  it('a sign-out the sister product starts (RP-initiated logout) sends the logout token with its sid (issue 40 item 14)', async () => {
    const fan = userIds.get('fan@example.org');
    const before = attempts.length;
    const onMusic = await ssoSignIn('fan@example.org', music, MUSIC_REDIRECT);
    const sid = onMusic.tokens.claims()?.sid;
    expect(typeof sid).toBe('string');
    // The sister product sends its user to the end-session endpoint; the shop asks, the user confirms.
    const ask = await onMusic.flow.browse(onMusic.jar, oidc.buildEndSessionUrl(onMusic.configuration, { id_token_hint: onMusic.tokens.id_token! }).href);
    const page = await ask.text();
    expect(page).toContain('Sign out of Street Flavor Records?');
    const action = /<form[^>]*id="op.logoutForm"[^>]*action="([^"]+)"|<form[^>]*action="([^"]+)"[^>]*id="op.logoutForm"/.exec(page);
    const fields = [...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\/>/g)].map(([, name, value]): [string, string] => [name!, value!]);
    const confirmed = await onMusic.flow.browse(onMusic.jar, (action?.[1] ?? action?.[2] ?? '').replaceAll('&amp;', '&'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
      body: new URLSearchParams([...fields, ['logout', 'yes']]),
    });
    expect(confirmed.status).toBe(303);
    // The provider ended its session before the shop's sign-out queued the notice: the notice still names it.
    // Picked by its sid: a notice for another of this fan's sessions (the test above signed out
    // of the shop, which tells music of every session) may still arrive after `before` (CI saw it).
    const delivered = await nextAttempt(forUser('/music/logout', fan, { sid }), before);
    const payload = await verifiedLogoutToken(delivered, music);
    expect(payload.sub).toBe(fan);
    expect(payload.sid).toBe(sid);
  });

  it('deleting the account tells every client the user signed in to', async () => {
    const dave = userIds.get('dave@example.org');
    const before = attempts.length;
    await ssoSignIn('dave@example.org', music, MUSIC_REDIRECT);
    await ssoSignIn('dave@example.org', video, VIDEO_REDIRECT);
    const token = await backendToken('dave@example.org');
    expect((await call('deleteAccount', token, { password: PASSWORD, confirm: 'DELETE' })).status).toBe(200);
    const [toMusic, toVideo] = await Promise.all([nextAttempt(forUser('/music/logout', dave), before), nextAttempt(forUser('/video/logout', dave), before)]);
    expect((await verifiedLogoutToken(toMusic, music)).sub).toBe(dave);
    expect((await verifiedLogoutToken(toVideo, video)).sub).toBe(dave);
  });

  it('changing the password sends it too, retried after a failed delivery and across a restart of the shop', async () => {
    const carol = userIds.get('carol@example.org');
    const before = attempts.length;
    const onVideo = await ssoSignIn('carol@example.org', video, VIDEO_REDIRECT);
    const token = await backendToken('carol@example.org');
    // The sister product is down for the first delivery.
    failNext.push(503);
    expect((await call('changePassword', token, { currentPassword: PASSWORD, newPassword: 'a new horse battery' })).status).toBe(200);
    await nextAttempt(forUser('/video/logout', carol, { status: 503 }), before);
    // The shop restarts before the retry: the job is in Postgres, the new process delivers it.
    await stopServer(server);
    // Only a delivery after this point counts: the stopped process did not retry it.
    const stopped = attempts.length;
    server = await spawnServer(serverSettings, server.port);
    await waitUntilReady(server);
    const delivered = await nextAttempt(forUser('/video/logout', carol), stopped);
    const payload = await verifiedLogoutToken(delivered, video);
    expect(payload.sub).toBe(carol);
    expect(payload.sid).toBe(onVideo.tokens.claims()?.sid);
    expect(await refusal(oidc.fetchUserInfo(onVideo.configuration, onVideo.tokens.access_token, carol!))).toBeTruthy();
  }, 120_000);
});
