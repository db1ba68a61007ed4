import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthClient } from '@storefront/sdk/auth.ts';
import { createFunctionsClient } from '@storefront/sdk/callable.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import type { TestDatabase } from '../../test/database.ts';
import { authLink, startSmtpPeer } from '../../test/smtp.ts';
import type { Config } from '../config.ts';
import { sessions, users } from '../db/schema/index.ts';
import { createAccount, makeAdmin } from './accounts.service.ts';
import { hashSessionToken } from './session-token.ts';

/**
 * Each process remembers which session a verified credential names (decision 015). These
 * tests use two apps on one database, as two server processes: both have remembered a
 * credential, and whatever ends its session elsewhere must count at once in both.
 */
let database: TestDatabase;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
let config: Config;
let baseUrl: string;
let first: FastifyInstance;
let second: FastifyInstance;
const shops: TestApp[] = [];

const PASSWORD = 'pass words';

function authClient() {
  return createAuthClient({ baseUrl, functions: createFunctionsClient({ baseUrl }) });
}

async function signIn(email: string, password = PASSWORD): Promise<string> {
  return (await authClient().signIn(email, password)).token!;
}

/** The HTTP status a call gets from one of the two processes. */
async function statusOf(app: FastifyInstance, token: string, name = 'getProfile', data: unknown = null): Promise<number> {
  const response = await app.inject({ method: 'POST', url: `/fn/${name}`, headers: { authorization: `Bearer ${token}` }, payload: { data } });
  return response.statusCode;
}

/** Both processes answer the call, so both have remembered the credential. */
async function rememberedByBoth(token: string) {
  expect([await statusOf(first, token), await statusOf(second, token)]).toEqual([200, 200]);
}

beforeAll(async () => {
  smtp = await startSmtpPeer();
  const env = { SMTP_URL: smtp.url, SIGNUP_RATE_LIMIT: '1000', SIGNIN_RATE_LIMIT: '1000' };
  const one = await startTestApp({
    config: { env },
    async seed({ db, config }) {
      for (const [email, username] of [
        ['leaver@example.org', 'Leaver'],
        ['resetter@example.org', 'Resetter'],
        ['climber@example.org', 'Climber'],
        ['sleeper@example.org', 'Sleeper'],
      ] as const) {
        await createAccount(db, config, { email, username, name: username, password: PASSWORD, confirmPassword: PASSWORD, acceptedTerms: true }, { emailVerified: true });
      }
    },
  });
  shops.push(one);
  ({ database, baseUrl, config, app: first } = one);
  // The second process: the same database and settings, not listening (tests inject).
  const two = await startTestApp({ database, config: { env: { ...env, PUBLIC_URL: baseUrl, PORT: String(config.PORT) } }, listen: false });
  shops.push(two);
  second = two.app;
});

afterAll(async () => {
  // The first owns the database: it closes last.
  for (const shop of shops.reverse()) await shop.close();
  await smtp?.close();
});

describe('a remembered credential never outlives its session', () => {
  it('is refused at once by every process after its owner signs out', async () => {
    const token = await signIn('leaver@example.org');
    await rememberedByBoth(token);
    const signOut = await fetch(`${baseUrl}/api/auth/sign-out`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
    expect(signOut.status).toBe(200);
    expect([await statusOf(second, token), await statusOf(first, token)]).toEqual([401, 401]);
  });

  it('is refused at once everywhere after a password reset', async () => {
    const token = await signIn('resetter@example.org');
    await rememberedByBoth(token);
    const auth = authClient();
    const before = smtp.mailsTo('resetter@example.org').length;
    await auth.requestPasswordReset('resetter@example.org');
    const opened = await fetch(authLink(await smtp.waitForMail('resetter@example.org', before)), { redirect: 'manual' });
    await auth.resetPassword(new URL(opened.headers.get('location')!, baseUrl).searchParams.get('token')!, 'a new pass phrase');
    expect([await statusOf(second, token), await statusOf(first, token)]).toEqual([401, 401]);
  });

  it('is refused at once when its session row is deleted by anything (a tool, SQL)', async () => {
    const token = await signIn('leaver@example.org');
    await rememberedByBoth(token);
    await database.db.delete(sessions).where(eq(sessions.token, hashSessionToken(token.split('.')[0]!)));
    expect(await statusOf(second, token)).toBe(401);
  });

  it('counts a new role, a lost verification and an expiry at once', async () => {
    const token = await signIn('climber@example.org');
    await rememberedByBoth(token);
    expect(await statusOf(second, token, 'listOpenOrders', {})).toBe(403);
    expect(await makeAdmin(database.db, 'climber@example.org')).toBe(true);
    expect(await statusOf(second, token, 'listOpenOrders', {})).toBe(200);
    await database.db.update(users).set({ role: 'user' }).where(eq(users.email, 'climber@example.org'));
    expect(await statusOf(second, token, 'listOpenOrders', {})).toBe(403);

    await database.db.update(users).set({ emailVerified: false }).where(eq(users.email, 'climber@example.org'));
    expect(await statusOf(second, token)).toBe(401);
    await database.db.update(users).set({ emailVerified: true }).where(eq(users.email, 'climber@example.org'));
    expect(await statusOf(second, token)).toBe(200);

    await database.db
      .update(sessions)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(sessions.token, hashSessionToken(token.split('.')[0]!)));
    expect(await statusOf(second, token)).toBe(401);
  });

  it('still has Better Auth extend a session in use once a day', async () => {
    const token = await signIn('sleeper@example.org');
    await rememberedByBoth(token);
    const sessionToken = hashSessionToken(token.split('.')[0]!);
    // Last extended two days ago: 28 of its 30 days left, so the extension is due.
    await database.db
      .update(sessions)
      .set({ expiresAt: sql`now() + interval '28 days'` })
      .where(eq(sessions.token, sessionToken));
    expect(await statusOf(second, token)).toBe(200);
    const [session] = await database.db.select({ expiresAt: sessions.expiresAt }).from(sessions).where(eq(sessions.token, sessionToken));
    expect(session!.expiresAt.getTime()).toBeGreaterThan(Date.now() + 29.9 * 24 * 60 * 60 * 1000);
  });
});
