import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { sessions } from '../../src/db/schema/index.ts';
import { publishLive } from '../../src/live/live.publish.ts';
import { startTestApp, type TestApp } from '../app.ts';
import type { TestDatabase } from '../database.ts';
import { openSse } from '../sse.ts';

/**
 * Issue 12, item 7: a live stream is authorised while its session lives, not only when it
 * opens. Two apps on one database stand for two server processes: the session ends through
 * one, the stream is held by the other (each has its own LISTEN connection and caches).
 */
let database: TestDatabase;
const apps: TestApp[] = [];
const userIds: Record<string, string> = {};
let one: string;
let two: string;

beforeAll(async () => {
  // Two processes on one database: the second shares the first one's.
  apps.push(
    await startTestApp({
      async seed({ db, config }) {
        for (const name of ['signout', 'revoke', 'deleted', 'expiry', 'bystander']) {
          const account = await createAccount(
            db,
            config,
            { email: `${name}@example.org`, username: name, name, password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true },
            { emailVerified: true },
          );
          userIds[name] = account.userId;
        }
        // Issue 25, security 11: two admins by role; one revokes the other.
        for (const name of ['streamadmin', 'otheradmin']) {
          const account = await createAccount(
            db,
            config,
            { email: `${name}@example.org`, username: name, name, password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true },
            { emailVerified: true, role: 'admin' },
          );
          userIds[name] = account.userId;
        }
      },
    }),
  );
  database = apps[0]!.database;
  apps.push(await startTestApp({ database }));
  [one, two] = apps.map((entry) => entry.baseUrl) as [string, string];
});

afterAll(async () => {
  // The first owns the database: it closes last.
  for (const shop of apps.reverse()) await shop.close();
});

async function signIn(base: string, name: string): Promise<string> {
  const response = await fetch(`${base}/api/auth/sign-in/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: JSON.stringify({ email: `${name}@example.org`, password: 'pass words' }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return response.headers
    .getSetCookie()
    .map((cookie) => cookie.split(';')[0])
    .join('; ');
}

const walletEvents = (stream: Awaited<ReturnType<typeof openSse>>) => stream.events.filter((event) => event.event === 'wallet');

/** A signed-in stream on the second process that has received one private event for its user. */
async function openPrivateStream(name: string, cookie: string) {
  const stream = await openSse(`${two}/api/live`, { cookie });
  await stream.waitFor((event) => event.event === 'ready' && JSON.parse(event.data).signedIn === true);
  await publishLive(database.db, { topic: 'wallet', userId: userIds[name]!, id: 'before' });
  await stream.waitFor((event) => event.event === 'wallet');
  return stream;
}

/** The stream has ended, and a private event published after that never reaches it. */
async function expectClosedAndDeaf(stream: Awaited<ReturnType<typeof openSse>>, name: string) {
  const ended = await Promise.race([stream.ended.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 5_000))]);
  expect(ended, 'the server ended the stream').toBe(true);
  await publishLive(database.db, { topic: 'wallet', userId: userIds[name]!, id: 'after' });
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(walletEvents(stream).map((event) => JSON.parse(event.data).id)).toEqual(['before']);
}

/** A stream opened again with the same cookie is anonymous and gets no private event. */
async function expectReopenedAnonymous(name: string, cookie: string) {
  const again = await openSse(`${two}/api/live`, { cookie });
  try {
    const ready = await again.waitFor((event) => event.event === 'ready');
    expect(JSON.parse(ready.data).signedIn).toBe(false);
    await publishLive(database.db, { topic: 'wallet', userId: userIds[name]!, id: 'reopened' }, { topic: 'products', id: 'p' });
    await again.waitFor((event) => event.event === 'products');
    expect(walletEvents(again)).toEqual([]);
  } finally {
    await again.close();
  }
}

describe('a live stream after its session ends (across processes)', () => {
  it('is closed by a sign-out in another process; a later private event is not delivered', async () => {
    const cookie = await signIn(one, 'signout');
    const bystander = await openPrivateStream('bystander', await signIn(one, 'bystander'));
    const stream = await openPrivateStream('signout', cookie);
    const signOut = await fetch(`${one}/api/auth/sign-out`, { method: 'POST', headers: { cookie, origin: one, 'content-type': 'application/json' }, body: '{}' });
    expect(signOut.status).toBe(200);
    await expectClosedAndDeaf(stream, 'signout');
    await expectReopenedAnonymous('signout', cookie);
    // Only that session's streams: another user's stream still gets its own events.
    await publishLive(database.db, { topic: 'wallet', userId: userIds.bystander!, id: 'still' });
    await bystander.waitFor((event) => event.event === 'wallet' && JSON.parse(event.data).id === 'still');
    await bystander.close();
  });

  it('is closed when the session is revoked from another session ("sign out everywhere")', async () => {
    const cookie = await signIn(one, 'revoke');
    const other = await signIn(one, 'revoke');
    const stream = await openPrivateStream('revoke', cookie);
    const revoke = await fetch(`${one}/api/auth/revoke-sessions`, { method: 'POST', headers: { cookie: other, origin: one, 'content-type': 'application/json' }, body: '{}' });
    expect(revoke.status).toBe(200);
    await expectClosedAndDeaf(stream, 'revoke');
    await expectReopenedAnonymous('revoke', cookie);
  });

  it('is closed when the session row is deleted by any other means (an operator, a deleted account)', async () => {
    const cookie = await signIn(one, 'deleted');
    const stream = await openPrivateStream('deleted', cookie);
    await database.db.delete(sessions).where(eq(sessions.userId, userIds.deleted!));
    await expectClosedAndDeaf(stream, 'deleted');
    await expectReopenedAnonymous('deleted', cookie);
  });

  it('is closed when the session expires, and not before', async () => {
    const cookie = await signIn(one, 'expiry');
    const stream = await openPrivateStream('expiry', cookie);
    // The session now expires in 1.5 s; until then private events still arrive.
    await database.db
      .update(sessions)
      .set({ expiresAt: sql`now() + interval '1500 milliseconds'` })
      .where(eq(sessions.userId, userIds.expiry!));
    await publishLive(database.db, { topic: 'wallet', userId: userIds.expiry!, id: 'still-valid' });
    await stream.waitFor((event) => event.event === 'wallet' && JSON.parse(event.data).id === 'still-valid');
    const ended = await Promise.race([stream.ended.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 5_000))]);
    expect(ended, 'the server ended the stream at the expiry').toBe(true);
    await publishLive(database.db, { topic: 'wallet', userId: userIds.expiry!, id: 'after' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(walletEvents(stream).map((event) => JSON.parse(event.data).id)).toEqual(['before', 'still-valid']);
    await expectReopenedAnonymous('expiry', cookie);
  });
});

describe('an admin stream after the account stops being an admin (issue 25, security 11)', () => {
  const orderEvents = (stream: Awaited<ReturnType<typeof openSse>>) => stream.events.filter((event) => event.event === 'all-orders');

  it('is closed when another admin revokes it in another process; no later order id reaches it, and it reopens without admin topics', async () => {
    const cookie = await signIn(one, 'streamadmin');
    const revoker = await signIn(one, 'otheradmin');
    const stream = await openSse(`${two}/api/live`, { cookie });
    const ready = await stream.waitFor((event) => event.event === 'ready');
    expect(JSON.parse(ready.data)).toMatchObject({ signedIn: true, isAdmin: true });
    await publishLive(database.db, { topic: 'all-orders', id: 'order-before' });
    await stream.waitFor((event) => event.event === 'all-orders');

    const revoke = await fetch(`${one}/fn/setAdmin`, {
      method: 'POST',
      headers: { cookie: revoker, origin: one, 'content-type': 'application/json' },
      body: JSON.stringify({ data: { email: 'streamadmin@example.org', isAdmin: false } }),
    });
    expect(revoke.status, await revoke.clone().text()).toBe(200);

    const ended = await Promise.race([stream.ended.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 5_000))]);
    expect(ended, 'the server ended the admin stream').toBe(true);
    await publishLive(database.db, { topic: 'all-orders', id: 'order-after' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(orderEvents(stream).map((event) => JSON.parse(event.data).id)).toEqual(['order-before']);

    // The same session reconnects as what it is now: signed in, not an admin, no order ids.
    const again = await openSse(`${two}/api/live`, { cookie });
    try {
      const readyAgain = await again.waitFor((event) => event.event === 'ready');
      expect(JSON.parse(readyAgain.data)).toMatchObject({ signedIn: true, isAdmin: false });
      await publishLive(database.db, { topic: 'all-orders', id: 'order-reopened' }, { topic: 'products', id: 'p' });
      await again.waitFor((event) => event.event === 'products');
      expect(orderEvents(again)).toEqual([]);
    } finally {
      await again.close();
    }
  });

  it('a grant closes the account’s streams too, so they reopen with the admin topics', async () => {
    const cookie = await signIn(one, 'bystander');
    const stream = await openSse(`${two}/api/live`, { cookie });
    expect(JSON.parse((await stream.waitFor((event) => event.event === 'ready')).data)).toMatchObject({ isAdmin: false });
    await database.db.execute(sql`UPDATE "user" SET role = 'admin' WHERE id = ${userIds.bystander!}`);
    const ended = await Promise.race([stream.ended.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 5_000))]);
    expect(ended).toBe(true);
    const again = await openSse(`${two}/api/live`, { cookie });
    try {
      expect(JSON.parse((await again.waitFor((event) => event.event === 'ready')).data)).toMatchObject({ isAdmin: true });
    } finally {
      await again.close();
      await database.db.execute(sql`UPDATE "user" SET role = 'user' WHERE id = ${userIds.bystander!}`);
    }
  });
});
