import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_MESSAGES, SIGNUP_MESSAGES, type SignupForm } from '@storefront/domain/accounts.ts';
import { createFunctionsClient, FunctionsError } from '@storefront/sdk/callable.ts';
import { createAuthClient, AuthError } from '@storefront/sdk/auth.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { testConfig, type TestDatabase } from '../../test/database.ts';
import { authLink, startSmtpPeer } from '../../test/smtp.ts';
import type { Config } from '../config.ts';
import { follows, userStats, users } from '../db/schema/index.ts';
import { commands } from '../cli.ts';
import { AppError } from '../errors.ts';
import { createAccount, makeAdmin } from './accounts.service.ts';

let shop: TestApp;
let database: TestDatabase;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
let config: Config;
let baseUrl: string;

function clients(token?: () => string | null) {
  const functions = createFunctionsClient({ baseUrl, getAuthToken: token });
  return { functions, auth: createAuthClient({ baseUrl, functions, getAuthToken: token }) };
}

const form = (overrides: Partial<SignupForm> = {}): SignupForm => ({
  email: 'fan@example.org',
  password: 'correct horse',
  confirmPassword: 'correct horse',
  name: 'Real Fan',
  username: 'RealFan',
  acceptedTerms: true,
  ...overrides,
});

async function signUpAndVerify(overrides: Partial<SignupForm>) {
  const { auth } = clients();
  const email = overrides.email!;
  const before = smtp.mailsTo(email).length;
  await auth.signUp(form(overrides));
  const mail = await smtp.waitForMail(email, before);
  const verify = await fetch(authLink(mail), { redirect: 'manual' });
  expect(verify.status).toBe(302);
  expect(verify.headers.get('location')).toMatch(/^\/login/);
}

async function signIn(email: string, password: string) {
  const { auth } = clients();
  const { token } = await auth.signIn(email, password);
  expect(token).toBeTruthy();
  return clients(() => token);
}

beforeAll(async () => {
  smtp = await startSmtpPeer();
  shop = await startTestApp({ config: { env: { SMTP_URL: smtp.url, ADMIN_EMAILS: 'boss@example.org', SIGNUP_RATE_LIMIT: '1000', SIGNIN_RATE_LIMIT: '1000' } } });
  ({ database, config, baseUrl } = shop);
  for (const username of config.SIGNUP_FOLLOW_USERNAMES) {
    await createAccount(database.db, config, form({ email: `${username}@label.example`, username, name: username }), { emailVerified: true, allowReservedUsername: true });
  }
});

afterAll(async () => {
  await shop?.close();
  await smtp?.close();
});

describe('signup, verification and login', () => {
  it('creates the account with its profile, mails a verification link, and signs in once verified', async () => {
    await signUpAndVerify({ email: 'fan@example.org', username: 'RealFan', city: 'A very long city name here', country: 'US', state: 'CA', accountType: 'Artist' });

    const [user] = await database.db.select().from(users).where(eq(users.email, 'fan@example.org'));
    expect(user).toMatchObject({
      emailVerified: true,
      username: 'RealFan',
      usernameLower: 'realfan',
      city: 'A very long city ',
      country: 'US',
      state: 'CA',
      accountType: 'Artist',
    });
    const [stats] = await database.db.select().from(userStats).where(eq(userStats.userId, user!.id));
    expect(stats).toMatchObject({ credits: 0, totalSpns: 0, salesSingles: 0, salesAlbums: 0, salesVideos: 0 });

    const signedIn = await signIn('fan@example.org', 'correct horse');
    const me = await signedIn.auth.me();
    expect(me).toMatchObject({ email: 'fan@example.org', username: 'RealFan', isAdmin: false });
    const profile = await signedIn.functions.call('getProfile', null);
    const admins = await database.db.select({ id: users.id }).from(users).where(inArray(users.usernameLower, config.SIGNUP_FOLLOW_USERNAMES));
    expect(profile.following.sort()).toEqual(admins.map((a) => a.id).sort());
    expect(profile.albums).toEqual([]); // non-Fan accounts carry catalogue arrays
    const followers = await database.db.select().from(follows).where(eq(follows.followeeId, admins[0]!.id));
    expect(followers.map((f) => f.followerId)).toContain(user!.id);
  });

  it('refuses sign-in before verification and sends a fresh link', async () => {
    const { auth } = clients();
    await auth.signUp(form({ email: 'late@example.org', username: 'LateFan' }));
    await smtp.waitForMail('late@example.org', 0);
    const error = await auth.signIn('late@example.org', 'correct horse').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).code).toBe('EMAIL_NOT_VERIFIED');
    const fresh = await smtp.waitForMail('late@example.org', 1);
    expect(authLink(fresh)).toContain('/api/auth/verify-email');
  });

  it('gives the same answer for a wrong password and an unknown email', async () => {
    const { auth } = clients();
    const wrong = (await auth.signIn('fan@example.org', 'wrong password').catch((e: unknown) => e)) as AuthError;
    const unknown = (await auth.signIn('nobody@example.org', 'wrong password').catch((e: unknown) => e)) as AuthError;
    expect(wrong.status).toBe(401);
    expect([unknown.status, unknown.message]).toEqual([wrong.status, wrong.message]);
  });

  it('answers a signup with a taken email like a new one, creates nothing, and tells the owner', async () => {
    const { auth } = clients();
    const before = smtp.mailsTo('fan@example.org').length;
    const result = await auth.signUp(form({ email: 'fan@example.org', username: 'SomeoneElse', password: 'other horse', confirmPassword: 'other horse' }));
    expect(result).toEqual({ ok: true, email: 'fan@example.org' });
    const rows = await database.db.select().from(users).where(eq(users.usernameLower, 'someoneelse'));
    expect(rows).toHaveLength(0);
    // The owner gets a "someone tried" note with the way in, not a verification link.
    const mail = await smtp.waitForMail('fan@example.org', before);
    expect(mail.decoded).toContain('Someone tried to sign up');
    expect(mail.decoded).toContain(`${baseUrl}/login`);
    expect(mail.decoded).not.toContain('/api/auth/verify-email');
    // The password of the account is the owner's, not the one typed into the form.
    await signIn('fan@example.org', 'correct horse');
  });
});

describe('signup rules, enforced by the server in the spec order', () => {
  const cases: [string, Partial<SignupForm>, string][] = [
    ['terms not accepted (checked first)', { acceptedTerms: false, email: '' }, SIGNUP_MESSAGES.termsNotAccepted],
    ['blocked domain', { email: 'x@mailinator.com', password: '' }, SIGNUP_MESSAGES.blockedDomain],
    ['blocked domain, any case', { email: 'x@GuerrillaMail.com' }, SIGNUP_MESSAGES.blockedDomain],
    ['blocked domain with every other field empty', { email: 'x@mailinator.com', password: '', confirmPassword: '', name: '', username: '' }, SIGNUP_MESSAGES.blockedDomain],
    ['missing email', { email: '' }, SIGNUP_MESSAGES.mandatoryFields],
    ['missing password', { password: '' }, SIGNUP_MESSAGES.mandatoryFields],
    ['missing confirmation', { confirmPassword: '' }, SIGNUP_MESSAGES.mandatoryFields],
    ['missing username', { username: '  ' }, SIGNUP_MESSAGES.mandatoryFields],
    ['missing name', { name: '' }, SIGNUP_MESSAGES.mandatoryFields],
    ['bad email', { email: 'not-an-email' }, SIGNUP_MESSAGES.invalidEmail],
    ['passwords differ', { confirmPassword: 'other horse' }, SIGNUP_MESSAGES.passwordsDiffer],
    ['name too long', { name: 'n'.repeat(31) }, SIGNUP_MESSAGES.tooLong],
    ['username too long', { username: 'u'.repeat(31) }, SIGNUP_MESSAGES.tooLong],
    ['username only symbols', { username: '!!!' }, SIGNUP_MESSAGES.mandatoryFields],
    ['password too short', { password: 'short', confirmPassword: 'short' }, SIGNUP_MESSAGES.passwordTooShort],
    ['username taken, other case', { email: 'other@example.org', username: 'REALFAN' }, SIGNUP_MESSAGES.usernameTaken],
    ['username reserved (staff-looking)', { username: 'Administrator' }, SIGNUP_MESSAGES.usernameReserved],
    ['username reserved (the label’s name)', { username: 'Street-Flavor Records' }, SIGNUP_MESSAGES.usernameReserved],
    ['username reserved (an official account)', { username: 'SPNDAT' }, SIGNUP_MESSAGES.usernameReserved],
  ];
  it.each(cases)('%s', async (_name, overrides, message) => {
    const { auth } = clients();
    const count = (await database.db.select().from(users)).length;
    const error = await auth.signUp(form({ email: 'rules@example.org', username: 'RulesFan', ...overrides })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FunctionsError);
    expect((error as FunctionsError).message).toBe(message);
    expect((await database.db.select().from(users)).length).toBe(count);
  });

  it('lets exactly one of many concurrent signups take a username', async () => {
    const { auth } = clients();
    const attempts = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => auth.signUp(form({ email: `race${i}@example.org`, username: `RaceWinner` }))));
    expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
    for (const attempt of attempts.filter((a) => a.status === 'rejected')) {
      expect((attempt as PromiseRejectedResult).reason.message).toBe(SIGNUP_MESSAGES.usernameTaken);
    }
    expect(await database.db.select().from(users).where(eq(users.usernameLower, 'racewinner'))).toHaveLength(1);
  });
});

describe('official (reserved) usernames', () => {
  it('refuses the names in SIGNUP_FOLLOW_USERNAMES before their accounts exist, so nobody can squat them', async () => {
    // As in production: the official accounts are not created by a seed.
    const production = testConfig({ env: { SIGNUP_FOLLOW_USERNAMES: 'labelcrew,streetflavor' } });
    const count = (await database.db.select().from(users)).length;
    for (const username of ['LabelCrew', 'labelcrew']) {
      const error = await createAccount(database.db, production, form({ email: 'squatter@example.org', username })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).message).toBe(SIGNUP_MESSAGES.usernameReserved);
    }
    expect((await database.db.select().from(users)).length).toBe(count);
    // An operator may (the CLI and the development seed pass this).
    const made = await createAccount(database.db, production, form({ email: 'crew@label.example', username: 'LabelCrew' }), { emailVerified: true, allowReservedUsername: true });
    expect(made.created).toBe(true);
  });

  it('creates a label account with the CLI: verified, and a one-time link sets its password', async () => {
    const output = await commands['create-label-account']!.run(['Support', 'help@label.example'], { db: database.db, config });
    expect(output).toContain('Created the label account Support (help@label.example), verified');
    const [user] = await database.db.select().from(users).where(eq(users.email, 'help@label.example'));
    expect(user).toMatchObject({ username: 'Support', usernameLower: 'support', emailVerified: true, accountType: 'RecordLabel', role: 'user' });

    const link = output.split('\n').find((line) => line.startsWith(`${baseUrl}/`))!;
    const opened = await fetch(link, { redirect: 'manual' });
    const location = new URL(opened.headers.get('location')!, baseUrl);
    expect(location.pathname).toBe('/reset-password');
    const { auth } = clients();
    await auth.resetPassword(location.searchParams.get('token')!, 'label support pass');
    const signedIn = await signIn('help@label.example', 'label support pass');
    expect(await signedIn.auth.me()).toMatchObject({ username: 'Support' });
    // The link is one-time.
    await expect(auth.resetPassword(location.searchParams.get('token')!, 'another pass word')).rejects.toThrow();

    await expect(commands['create-label-account']!.run(['support', 'other@label.example'], { db: database.db, config })).rejects.toThrow(SIGNUP_MESSAGES.usernameTaken);
    await expect(commands['create-label-account']!.run(['support2'], { db: database.db, config })).rejects.toThrow('Usage');
  });
});

describe('password reset, logout and roles', () => {
  it('resets a password through the mailed link', async () => {
    const { auth } = clients();
    const before = smtp.mailsTo('fan@example.org').length;
    await auth.requestPasswordReset('fan@example.org');
    const link = authLink(await smtp.waitForMail('fan@example.org', before));
    const opened = await fetch(link, { redirect: 'manual' });
    const location = new URL(opened.headers.get('location')!, baseUrl);
    expect(location.pathname).toBe('/reset-password');
    await auth.resetPassword(location.searchParams.get('token')!, 'new horse battery');
    await expect(auth.signIn('fan@example.org', 'correct horse')).rejects.toBeInstanceOf(AuthError);
    await signIn('fan@example.org', 'new horse battery');
  });

  it('answers a reset for an unknown email the same way and sends nothing', async () => {
    const { auth } = clients();
    await expect(auth.requestPasswordReset('ghost@example.org')).resolves.toBeUndefined();
    expect(smtp.mailsTo('ghost@example.org')).toHaveLength(0);
  });

  it('refuses a session once its owner logged out', async () => {
    const signedIn = await signIn('fan@example.org', 'new horse battery');
    await expect(signedIn.functions.call('getProfile', null)).resolves.toBeTruthy();
    await signedIn.auth.signOut();
    const error = (await signedIn.functions.call('getProfile', null).catch((e: unknown) => e)) as FunctionsError;
    expect(error.code).toBe('unauthenticated');
    expect(await signedIn.auth.me()).toBeNull();
  });

  it('makes admins of verified ADMIN_EMAILS and of make-admin, decided by the server', async () => {
    await signUpAndVerify({ email: 'boss@example.org', username: 'TheBoss' });
    expect(await (await signIn('boss@example.org', 'correct horse')).auth.me()).toMatchObject({ isAdmin: true });
    await signUpAndVerify({ email: 'promoted@example.org', username: 'Promoted' });
    expect(await (await signIn('promoted@example.org', 'correct horse')).auth.me()).toMatchObject({ isAdmin: false });
    expect(await makeAdmin(database.db, 'promoted@example.org')).toBe(true);
    expect(await (await signIn('promoted@example.org', 'correct horse')).auth.me()).toMatchObject({ isAdmin: true });
  });

  it('rate-limits signups from one address, counted in Postgres', async () => {
    // A second process on the same database and settings, but a limit of 3.
    const { app: strict, close } = await startTestApp({ database, listen: false, config: { ...config, SIGNUP_RATE_LIMIT: 3 } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i += 1) {
        const response = await strict.inject({ method: 'POST', url: '/fn/createAccount', remoteAddress: '203.0.113.9', payload: { data: form({ acceptedTerms: false }) } });
        statuses.push(response.statusCode);
      }
      expect(statuses).toEqual([400, 400, 400, 429, 429]);
    } finally {
      await close();
    }
  });
});

describe('deep link and messages', () => {
  it('sends an app-sourced profile link to the app scheme', async () => {
    const response = await fetch(`${baseUrl}/mydat/profile/RealFan?source=app`, { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('mydat://profile/RealFan');
  });

  it('keeps the login messages of the spec', () => {
    expect(LOGIN_MESSAGES.missingCredentials).toBe('Please enter both email and password');
    expect(LOGIN_MESSAGES.resetNeedsEmail).toBe('Please enter your email to reset your password');
    expect(LOGIN_MESSAGES.resetSent).toBe('Please check your email to reset your password');
  });
});
