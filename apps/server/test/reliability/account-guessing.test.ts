import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { SIGN_IN_GUARD, SIGN_IN_GUARD_MESSAGES } from '../../src/accounts/sign-in-guard.service.ts';
import { signInGuards } from '../../src/db/schema/index.ts';
import { startTestApp, type TestApp } from '../app.ts';
import { authLink, startSmtpPeer } from '../smtp.ts';

/**
 * Issue 25, security 16 (decision 043): 60 wrong passwords for one account from 30
 * addresses all got 401. Now an account's wrong passwords from unknown devices are limited
 * whatever the address, while its owner keeps a way in: a device that signed in before, or
 * the unlock link mailed to the owner. The shop trusts this process as its proxy, so each
 * request's X-Forwarded-For is its client address (as behind nginx).
 */
const PASSWORD = 'pass words';
const FREE = SIGN_IN_GUARD.freeFailures;
let shop: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
let base: string;

beforeAll(async () => {
  smtp = await startSmtpPeer();
  shop = await startTestApp({
    // The per-address limit (10 a minute) stays as it is: 30 addresses stay under it.
    config: { env: { SMTP_URL: smtp.url, TRUSTED_PROXIES: '127.0.0.1' } },
    async seed({ db, config }) {
      for (const name of ['target', 'lockedowner', 'racer', 'relock', 'known']) {
        await createAccount(
          db,
          config,
          { email: `${name}@example.org`, username: name, name, password: PASSWORD, confirmPassword: PASSWORD, acceptedTerms: true },
          { emailVerified: true },
        );
      }
    },
  });
  base = shop.baseUrl;
});

afterAll(async () => {
  await shop?.close();
  await smtp?.close();
});

let addressCounter = 0;
/** A new client address for every call unless one is given. */
const nextAddress = () => `198.51.100.${(addressCounter++ % 250) + 1}`;

async function signIn(email: string, password: string, options: { address?: string; cookie?: string } = {}) {
  const response = await fetch(`${base}/api/auth/sign-in/email`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      origin: base,
      'x-forwarded-for': options.address ?? nextAddress(),
      ...(options.cookie ? { cookie: options.cookie } : {}),
    },
    body: JSON.stringify({ email, password }),
  });
  const body = (await response.json().catch(() => null)) as { message?: string } | null;
  return { status: response.status, message: body?.message, cookies: response.headers.getSetCookie() };
}

const knownDeviceCookie = (cookies: string[]) => cookies.map((cookie) => cookie.split(';')[0]!).find((cookie) => cookie.startsWith('sf_known_'));

describe('wrong passwords for one account from many addresses (issue 25, security 16)', () => {
  it('60 wrong passwords from 30 addresses: the first 10 are checked (401), the other 50 refused unchecked (429)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 60; i += 1) statuses.push((await signIn('target@example.org', 'wrong password', { address: `203.0.113.${(i % 30) + 1}` })).status);
    expect(statuses.slice(0, FREE)).toEqual(Array(FREE).fill(401));
    expect(statuses.slice(FREE)).toEqual(Array(60 - FREE).fill(429));
    // While locked the password is not even checked: the right one gets the same refusal, with a sentence.
    const right = await signIn('target@example.org', PASSWORD);
    expect(right).toMatchObject({ status: 429, message: SIGN_IN_GUARD_MESSAGES.locked });
  });

  it('an email without an account is answered exactly the same (the lock tells nothing)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < FREE + 3; i += 1) statuses.push((await signIn('nobody-here@example.org', 'wrong password')).status);
    expect(statuses).toEqual([...Array(FREE).fill(401), 429, 429, 429]);
  });

  it('30 concurrent guesses: no more than the allowance reach the password check', async () => {
    const answers = await Promise.all(Array.from({ length: 30 }, () => signIn('racer@example.org', 'wrong password')));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(FREE);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(30 - FREE);
    expect(statuses.every((status) => status === 401 || status === 429)).toBe(true);
  });

  it('slows down instead of locking for good: after the lock, one try, then a lock twice as long', async () => {
    for (let i = 0; i < FREE; i += 1) expect((await signIn('relock@example.org', 'wrong password')).status).toBe(401);
    const [locked] = await shop.db.select().from(signInGuards).where(eq(signInGuards.email, 'relock@example.org'));
    const firstLock = locked!.lockedUntil!.getTime() - locked!.lastFailureAt.getTime();
    expect(firstLock).toBe(SIGN_IN_GUARD.firstLockMs);
    // The lock runs out (moved into the past rather than waited for).
    await shop.db
      .update(signInGuards)
      .set({ lockedUntil: sql`now() - interval '1 second'` })
      .where(eq(signInGuards.email, 'relock@example.org'));
    expect((await signIn('relock@example.org', 'wrong password')).status).toBe(401);
    expect((await signIn('relock@example.org', 'wrong password')).status).toBe(429);
    const [relocked] = await shop.db.select().from(signInGuards).where(eq(signInGuards.email, 'relock@example.org'));
    expect(relocked!.lockedUntil!.getTime() - relocked!.lastFailureAt.getTime()).toBe(2 * SIGN_IN_GUARD.firstLockMs);
    // A lock running out lets the owner in, and a success forgets the failures.
    await shop.db
      .update(signInGuards)
      .set({ lockedUntil: sql`now() - interval '1 second'` })
      .where(eq(signInGuards.email, 'relock@example.org'));
    expect((await signIn('relock@example.org', PASSWORD)).status).toBe(200);
    expect(await shop.db.select().from(signInGuards).where(eq(signInGuards.email, 'relock@example.org'))).toEqual([]);
  });

  it('the owner’s known device signs in through the lock; its cookie is worth nothing for another account or forged', async () => {
    const first = await signIn('known@example.org', PASSWORD);
    expect(first.status).toBe(200);
    const cookie = knownDeviceCookie(first.cookies)!;
    expect(cookie).toMatch(/^sf_known_[0-9a-f]{20}=/);
    for (let i = 0; i < FREE + 5; i += 1) await signIn('known@example.org', 'wrong password');
    expect((await signIn('known@example.org', PASSWORD)).status).toBe(429);
    expect((await signIn('known@example.org', PASSWORD, { cookie })).status).toBe(200);
    // The owner signing in clears the record: the account is open again everywhere.
    expect((await signIn('known@example.org', PASSWORD)).status).toBe(200);

    for (let i = 0; i < FREE; i += 1) await signIn('target@example.org', 'wrong password');
    const [name, value] = cookie.split('=') as [string, string];
    expect((await signIn('target@example.org', PASSWORD, { cookie })).status).toBe(429);
    expect((await signIn('known@example.org', 'wrong password', { cookie: `${name}=${value.slice(0, -2)}xx` })).status).toBe(401);
  });

  it('the owner gets one unlock mail; its link (a button, then a POST) unlocks this device once', async () => {
    for (let i = 0; i < FREE + 4; i += 1) await signIn('lockedowner@example.org', 'wrong password');
    const mail = await smtp.waitForText('lockedowner@example.org', 'slowed down', 60_000);
    const link = authLink(mail);
    expect(link).toMatch(/\/api\/auth\/unlock-sign-in\/[A-Za-z0-9_-]{43}$/);
    // The stored token is a hash: the link's token is not in the table.
    const [row] = await shop.db.select().from(signInGuards).where(eq(signInGuards.email, 'lockedowner@example.org'));
    expect(row!.unlockTokenHash).not.toContain(link.split('/').at(-1));
    expect((await signIn('lockedowner@example.org', PASSWORD)).status).toBe(429);

    // Opening the link (as a mail scanner would) changes nothing.
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<form method="post">');
    expect((await signIn('lockedowner@example.org', PASSWORD)).status).toBe(429);

    const unlocked = await fetch(link, { method: 'POST', redirect: 'manual', headers: { origin: base } });
    expect(unlocked.status).toBe(303);
    expect(unlocked.headers.get('location')).toBe('/login');
    const cookie = knownDeviceCookie(unlocked.headers.getSetCookie())!;
    expect((await fetch(link, { method: 'POST', redirect: 'manual', headers: { origin: base } })).status).toBe(404);
    expect((await signIn('lockedowner@example.org', PASSWORD, { cookie })).status).toBe(200);
    // One mail for the whole run of failures.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(smtp.mailsTo('lockedowner@example.org').filter((received) => received.decoded.includes('slowed down'))).toHaveLength(1);
  });
});
