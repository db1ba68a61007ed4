import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { sessions, users } from '../db/schema/index.ts';
import { FIREBASE_AUTH_MESSAGES } from './firebase-auth.routes.ts';
import { hashSessionToken } from './session-token.ts';

/**
 * The Firebase Auth endpoints `signInWithCustomToken` calls (decision 035): they answer
 * only with the token they were given, after checking it as `/fn` does.
 */
let shop: TestApp;
let userId: string;

beforeAll(async () => {
  shop = await startTestApp();
  userId = await shop.account('firebasefan');
});

afterAll(async () => {
  await shop?.close();
});

const signInWithCustomToken = (body: unknown) =>
  fetch(`${shop.baseUrl}/identitytoolkit.googleapis.com/v1/accounts:signInWithCustomToken?key=unused`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const lookup = (idToken: string) =>
  fetch(`${shop.baseUrl}/identitytoolkit.googleapis.com/v1/accounts:lookup?key=unused`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ idToken }),
  });
const refresh = (body: string) =>
  fetch(`${shop.baseUrl}/securetoken.googleapis.com/v1/token?key=unused`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
/** The session table's key of a signed token: the hash of its session token (decision 043). */
const sessionToken = (token: string) => hashSessionToken(token.split('.')[0]!);

async function errorOf(response: Response) {
  return { status: response.status, message: ((await response.json()) as { error: { message: string } }).error.message };
}

describe('signInWithCustomToken, lookup and refresh', () => {
  it('echo a live shop token with its account, for at most an hour', async () => {
    const token = await shop.signIn('firebasefan@example.org');
    const signIn = await signInWithCustomToken({ token, returnSecureToken: true });
    expect(signIn.status).toBe(200);
    const answer = (await signIn.json()) as { idToken: string; refreshToken: string; expiresIn: string; localId: string };
    expect(answer).toMatchObject({ idToken: token, refreshToken: token, localId: userId });
    expect(Number(answer.expiresIn)).toBeGreaterThan(3500);
    expect(Number(answer.expiresIn)).toBeLessThanOrEqual(3600);

    const account = (await (await lookup(token)).json()) as { users: { localId: string; email: string; emailVerified: boolean; displayName: string }[] };
    expect(account.users).toEqual([expect.objectContaining({ localId: userId, email: 'firebasefan@example.org', emailVerified: true, displayName: 'firebasefan' })]);

    const refreshed = await refresh(new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token }).toString());
    expect(refreshed.status).toBe(200);
    expect(await refreshed.json()).toMatchObject({ access_token: token, refresh_token: token, id_token: token, user_id: userId });
  });

  it('extend a session due for it, as any call with the token does', async () => {
    const token = await shop.signIn('firebasefan@example.org');
    const soon = new Date(Date.now() + 120_000);
    await shop.db
      .update(sessions)
      .set({ expiresAt: soon })
      .where(eq(sessions.token, sessionToken(token)));
    const answer = (await (await signInWithCustomToken({ token })).json()) as { expiresIn: string };
    const [session] = await shop.db
      .select()
      .from(sessions)
      .where(eq(sessions.token, sessionToken(token)));
    expect(session!.expiresAt.getTime()).toBeGreaterThan(soon.getTime() + 24 * 3600_000);
    expect(Number(answer.expiresIn)).toBeGreaterThan(3500);
  });

  it('refuse forged, ended and unverified tokens in Firebase’s error shape', async () => {
    expect(await errorOf(await signInWithCustomToken({ token: 'forged.token' }))).toEqual({
      status: 400,
      message: `INVALID_CUSTOM_TOKEN : ${FIREBASE_AUTH_MESSAGES.invalidToken}`,
    });
    expect(await errorOf(await lookup('forged.token'))).toEqual({ status: 400, message: `INVALID_ID_TOKEN : ${FIREBASE_AUTH_MESSAGES.invalidToken}` });

    const ended = await shop.signIn('firebasefan@example.org');
    await shop.db.delete(sessions).where(eq(sessions.token, sessionToken(ended)));
    expect(await errorOf(await refresh(`grant_type=refresh_token&refresh_token=${encodeURIComponent(ended)}`))).toEqual({
      status: 400,
      message: `TOKEN_EXPIRED : ${FIREBASE_AUTH_MESSAGES.invalidToken}`,
    });

    await shop.account('unverifiedfan');
    const unverified = await shop.signIn('unverifiedfan@example.org');
    await shop.db.update(users).set({ emailVerified: false }).where(eq(users.email, 'unverifiedfan@example.org'));
    expect(await errorOf(await signInWithCustomToken({ token: unverified }))).toEqual({ status: 400, message: `USER_DISABLED : ${FIREBASE_AUTH_MESSAGES.notAllowed}` });
  });

  // Issue 25, security 14: each answered 500 (an invalid header value was built from the token).
  it.each([
    ['a line break', 'abc\ndef'],
    ['a carriage return and header', 'abc\r\nx-injected: 1'],
    ['NUL', 'abc\u0000def'],
    ['U+2028', 'abc\u2028def'],
    ['a space', 'abc def'],
    ['non-ASCII', 'abcé'],
  ])('refuse a token holding %s with a clear 400 on every endpoint', async (_what, token) => {
    expect(await errorOf(await signInWithCustomToken({ token }))).toEqual({ status: 400, message: `INVALID_CUSTOM_TOKEN : ${FIREBASE_AUTH_MESSAGES.malformedToken}` });
    expect(await errorOf(await lookup(token))).toEqual({ status: 400, message: `INVALID_ID_TOKEN : ${FIREBASE_AUTH_MESSAGES.malformedToken}` });
    expect(await errorOf(await refresh(new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token }).toString()))).toEqual({
      status: 400,
      message: `INVALID_REFRESH_TOKEN : ${FIREBASE_AUTH_MESSAGES.malformedToken}`,
    });
  });

  it('refuse malformed requests and unknown endpoints', async () => {
    expect((await errorOf(await signInWithCustomToken({ token: 42 }))).status).toBe(400);
    expect((await errorOf(await signInWithCustomToken({ token: 'x'.repeat(5000) }))).status).toBe(400);
    expect(await errorOf(await refresh('grant_type=password&refresh_token=x'))).toEqual({ status: 400, message: `INVALID_GRANT_TYPE : ${FIREBASE_AUTH_MESSAGES.badRequest}` });
    const signUp = await fetch(`${shop.baseUrl}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=unused`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(await errorOf(signUp)).toEqual({ status: 404, message: `NOT_FOUND : ${FIREBASE_AUTH_MESSAGES.notFound}` });
  });
});
