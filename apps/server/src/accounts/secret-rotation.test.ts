import { createHmac } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { createTestDatabase, type TestDatabase } from '../../test/database.ts';
import { CookieJar, ssoFlow } from '../../test/oidc-flow.ts';
import { commands } from '../cli.ts';
import { ConfigError, loadConfig } from '../config.ts';
import { oauthClients, oidcSigningKeys, users } from '../db/schema/index.ts';
import { createAccount } from './accounts.service.ts';
import { createOAuthClient } from '../oidc/oidc.clients.ts';
import { sealKeyFor } from '../oidc/oidc.provider.ts';
import { unseal } from '../oidc/sealed.ts';

/**
 * AUTH_SECRET rotation (decision 047) on real Postgres and real HTTP: a shop signed and
 * sealed with OLD is restarted with AUTH_SECRET=NEW and AUTH_SECRET_PREVIOUS=OLD (nobody is
 * signed out, sister products keep signing in), `reseal-secrets` moves the sealed single
 * sign-on secrets to NEW, and a shop with OLD retired refuses what only OLD signed.
 */
const OLD = 'old-secret-old-secret-old-secret-0123456';
const NEW = 'new-secret-new-secret-new-secret-6543210';
const REDIRECT = 'http://127.0.0.1:4999/callback';

let shop: TestApp;
let base: string;
let client: { clientId: string; clientSecret: string };
const { signIn, pkce, codeFor, redeem } = ssoFlow(() => ({ base, issuer: `${base}/oidc`, client, redirect: REDIRECT }));

/** The signed-in user's email as /api/me tells it, for a cookie jar or a bearer token; null when signed out. */
async function me(credential: { jar?: CookieJar; token?: string }): Promise<string | null> {
  const headers: Record<string, string> = credential.jar ? { cookie: credential.jar.header() } : { authorization: `Bearer ${credential.token}` };
  const response = await fetch(`${base}/api/me`, { headers });
  expect(response.status).toBe(200);
  return ((await response.json()) as { user: { email: string } | null }).user?.email ?? null;
}

/** An unverified account `<name>@example.org` and its verification link, signed with `secret` as the library does. */
async function verificationLink(name: string, secret: string): Promise<string> {
  const form = { email: `${name}@example.org`, username: name, name, password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true };
  const { userId } = await createAccount(shop.db, shop.config, form, { emailVerified: false });
  const token = await new SignJWT({ email: `${name}@example.org`, userId })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(secret));
  return `${base}/api/auth/verify-email?token=${token}&callbackURL=/`;
}

async function emailVerified(name: string): Promise<boolean> {
  const [row] = await shop.db
    .select({ verified: users.emailVerified })
    .from(users)
    .where(eq(users.email, `${name}@example.org`));
  return row!.verified;
}

/** A restarted shop on the same database, with these secrets. */
async function restart(env: Record<string, string | undefined>) {
  await shop.close();
  shop = await startTestApp({ database, config: { env } });
  base = shop.baseUrl;
}

const browser = new CookieJar();
let bearer: string;
let oldSigningKid: string;
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
  shop = await startTestApp({ database, config: { env: { AUTH_SECRET: OLD } } });
  base = shop.baseUrl;
  await shop.account('alice');
  client = await createOAuthClient(shop.db, sealKeyFor(OLD), { name: 'SPN Music', redirectUris: [REDIRECT] });
  // Under OLD: a browser session, an app's bearer token, and a working single sign-on.
  await signIn(browser, 'alice@example.org');
  bearer = await shop.signIn('alice@example.org');
  const { verifier, challenge } = pkce();
  expect((await redeem(await codeFor(browser, challenge), verifier)).status).toBe(200);
  const [key] = await shop.db.select().from(oidcSigningKeys);
  oldSigningKid = key!.kid;
});

afterAll(async () => {
  await shop?.close();
  await database?.close();
});

describe('AUTH_SECRET rotation', () => {
  it('refuses an old secret that is too short, and drops AUTH_SECRET itself from the old ones', () => {
    expect(() => loadConfig({ NODE_ENV: 'test', AUTH_SECRET: NEW, AUTH_SECRET_PREVIOUS: 'short' })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: 'test', AUTH_SECRET: NEW, AUTH_SECRET_PREVIOUS: 'short' })).toThrow(/AUTH_SECRET_PREVIOUS/);
    expect(loadConfig({ NODE_ENV: 'test', AUTH_SECRET: NEW, AUTH_SECRET_PREVIOUS: ` ${OLD} , ${NEW},${OLD}` }).AUTH_SECRET_PREVIOUS).toEqual([OLD]);
    expect(loadConfig({ NODE_ENV: 'test', AUTH_SECRET: NEW }).AUTH_SECRET_PREVIOUS).toEqual([]);
  });

  it('during the overlap: cookies and bearer tokens signed with the old secret keep working, and single sign-on too', async () => {
    await restart({ AUTH_SECRET: NEW, AUTH_SECRET_PREVIOUS: OLD });
    expect(await me({ jar: browser })).toBe('alice@example.org');
    expect(await me({ token: bearer })).toBe('alice@example.org');
    // A forged signature is still refused.
    const forged = bearer.replace(/\.[^.]+$/, `.${'A'.repeat(43)}=`);
    expect(await me({ token: forged })).toBeNull();
    // The sister product's client secret, sealed with OLD, still opens; the old signing key is still published.
    const { verifier, challenge } = pkce();
    expect((await redeem(await codeFor(browser, challenge), verifier)).status).toBe(200);
    const jwks = (await (await fetch(`${base}/oidc/jwks`)).json()) as { keys: { kid: string }[] };
    expect(jwks.keys.map((key) => key.kid)).toContain(oldSigningKid);
    // New sign-ins are signed with NEW.
    const fresh = new CookieJar();
    await signIn(fresh, 'alice@example.org');
    expect(fresh.header()).toMatch(/better-auth\.session_token=/);
    const newToken = await shop.signIn('alice@example.org');
    const [signed, signature] = decodeURIComponent(newToken).split('.');
    expect(signature).toBe(createHmac('sha256', NEW).update(signed!).digest('base64'));
  });

  it('the rolling restart of phase two: an instance not yet restarted (AUTH_SECRET_NEXT) accepts what a restarted one signed, and the other way round (issue 40 item 19)', async () => {
    expect(loadConfig({ NODE_ENV: 'test', AUTH_SECRET: OLD, AUTH_SECRET_NEXT: NEW }).AUTH_SECRET_PREVIOUS).toEqual([NEW]);
    // `shop` has been restarted (AUTH_SECRET=NEW, AUTH_SECRET_PREVIOUS=OLD); `waiting` has not: it
    // still signs with OLD, and phase one gave it NEW to accept.
    const waiting = await startTestApp({ database, config: { env: { AUTH_SECRET: OLD, AUTH_SECRET_NEXT: NEW } } });
    const notPhaseOne = await startTestApp({ database, config: { env: { AUTH_SECRET: OLD } } });
    try {
      const fromRestarted = await shop.signIn('alice@example.org');
      const fromWaiting = await waiting.signIn('alice@example.org');
      const who = async (at: TestApp, token: string) =>
        ((await (await fetch(`${at.baseUrl}/api/me`, { headers: { authorization: `Bearer ${token}` } })).json()) as { user: { email: string } | null }).user?.email ?? null;
      expect(await who(waiting, fromRestarted)).toBe('alice@example.org');
      expect(await who(shop, fromWaiting)).toBe('alice@example.org');
      // Without phase one, a session made on a restarted instance looks signed out on the others.
      expect(await who(notPhaseOne, fromRestarted)).toBeNull();
    } finally {
      await waiting.close();
      await notPhaseOne.close();
    }
  });

  it('during the overlap: an email verification link signed with the old secret still verifies the account', async () => {
    const link = await verificationLink('carol', OLD);
    const response = await fetch(link, { redirect: 'manual' });
    expect(response.status).toBeLessThan(400);
    expect(response.headers.get('location') ?? '').not.toContain('error');
    expect(await emailVerified('carol')).toBe(true);
  });

  it('reseal-secrets seals the single sign-on secrets with the new secret; a second run has nothing to do', async () => {
    const output = await commands['reseal-secrets']!.run([], { db: shop.db, config: shop.config });
    expect(output).toContain('Re-sealed with AUTH_SECRET: 1 single sign-on client secret(s), 1 signing key(s); 0 already were.');
    expect(output).toContain('AUTH_SECRET_PREVIOUS can be retired');
    const [row] = await shop.db.select().from(oauthClients);
    expect(unseal(sealKeyFor(NEW, []), row!.secretSealed)).toBe(client.clientSecret);
    expect(() => unseal(sealKeyFor(OLD, []), row!.secretSealed)).toThrow();
    const again = await commands['reseal-secrets']!.run([], { db: shop.db, config: shop.config });
    expect(again).toContain('Re-sealed with AUTH_SECRET: 0 single sign-on client secret(s), 0 signing key(s); 2 already were.');
  });

  it('after the old secret is retired: what only it signed is refused, and the re-sealed secrets work', async () => {
    await restart({ AUTH_SECRET: NEW });
    expect(await me({ jar: browser })).toBeNull();
    expect(await me({ token: bearer })).toBeNull();
    // Signing in again works, and so does single sign-on with the re-sealed client secret and the same signing key.
    const jar = new CookieJar();
    await signIn(jar, 'alice@example.org');
    expect(await me({ jar })).toBe('alice@example.org');
    const { verifier, challenge } = pkce();
    expect((await redeem(await codeFor(jar, challenge), verifier)).status).toBe(200);
    const jwks = (await (await fetch(`${base}/oidc/jwks`)).json()) as { keys: { kid: string }[] };
    expect(jwks.keys.map((key) => key.kid)).toEqual([oldSigningKid]);
    // A verification link the old secret signed is refused now.
    const refused = await fetch(await verificationLink('dave', OLD), { redirect: 'manual' });
    expect(refused.headers.get('location') ?? String(refused.status)).toMatch(/INVALID_TOKEN|401/);
    expect(await emailVerified('dave')).toBe(false);
  });
});
