import { and, eq, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpPeer } from '../../test/smtp.ts';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../../test/app.ts';
import { authAccounts, checkouts, orders, sessions, users, verifications } from '../db/schema/index.ts';
import { runTransaction } from '../db/transaction.ts';
import { grantCredits } from '../wallet/wallet.commands.ts';
import { debit } from '../wallet/wallet.service.ts';
import { rememberAddress } from './addresses.service.ts';
import { createAccount } from './accounts.service.ts';
import { ACCOUNT_MESSAGES, deletedEmail } from './account-settings.service.ts';

/** The account page's functions (issue 17, decision 032), asserted on rows and on mail received over SMTP. */
let shop: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;

const call = (token: string) => shop.functions(() => token);
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('the call succeeded');
    },
    (error: Error & { code: string }) => ({ code: error.code, message: error.message }),
  );
const sessionsOf = async (userId: string) => (await shop.db.select({ id: sessions.id }).from(sessions).where(eq(sessions.userId, userId))).length;
const userRow = async (userId: string) => (await shop.db.select().from(users).where(eq(users.id, userId)))[0]!;

function confirmToken(decoded: string): string {
  const match = /\/account\/confirm-email\?token=([A-Za-z0-9_-]+)/.exec(decoded);
  if (!match) throw new Error(`No change-email link in mail:\n${decoded}`);
  return match[1]!;
}

async function placeOrder(userId: string, id: string, email: string) {
  await runTransaction(
    shop.db,
    async (tx) => {
      await tx.insert(orders).values({
        id,
        userId,
        checkoutId: `wallet:${id}`,
        paymentIntentId: `wallet_${id}`,
        subtotalCents: 1000,
        shippingCents: 0,
        taxCents: 0,
        walletAppliedCents: 1000,
        chargedCents: 0,
        contact: { name: 'Buyer', email, phone: '' },
        shipping: { name: 'Buyer', line1: `${id} Street` },
      });
      await debit(tx, userId, 1000, id);
    },
    { isolationLevel: 'read committed' },
  );
}

beforeAll(async () => {
  smtp = await startSmtpPeer();
  shop = await startTestApp({ config: { env: { SMTP_URL: smtp.url, SIGNIN_RATE_LIMIT: '1000' } } });
});

afterAll(async () => {
  await shop?.close();
  await smtp?.close();
});

describe('change password', () => {
  it('needs the current password, ends every other session and keeps this one', async () => {
    const userId = await shop.account('changer');
    const here = await shop.signIn('changer@example.org');
    const elsewhere = await shop.signIn('changer@example.org');
    expect(await sessionsOf(userId)).toBe(2);

    expect(await failure(call(here).call('changePassword', { currentPassword: 'not it at all', newPassword: 'a new secret' }))).toEqual({
      code: 'invalid-argument',
      message: ACCOUNT_MESSAGES.wrongPassword,
    });
    expect(await sessionsOf(userId)).toBe(2);

    expect(await call(here).call('changePassword', { currentPassword: TEST_PASSWORD, newPassword: 'a new secret' })).toEqual({ ok: true, otherSessionsEnded: 1 });
    expect(await sessionsOf(userId)).toBe(1);
    expect((await call(here).call('getProfile', null)).email).toBe('changer@example.org');
    expect((await failure(call(elsewhere).call('getProfile', null))).code).toBe('unauthenticated');
    await expect(shop.signIn('changer@example.org')).rejects.toThrow();
    expect(await shop.signIn('changer@example.org', 'a new secret')).toBeTruthy();
    await smtp.waitForText('changer@example.org', 'password of your Street Flavor Records account was changed');
  });

  it('refuses a new password outside the rules with a sentence', async () => {
    await shop.account('shortie');
    const token = await shop.signIn('shortie@example.org');
    expect(await failure(call(token).call('changePassword', { currentPassword: TEST_PASSWORD, newPassword: 'short' }))).toMatchObject({
      code: 'invalid-argument',
      message: expect.stringContaining('Password is too short'),
    });
  });
});

describe('change email', () => {
  it('mails a link to the new address; the email changes only when the link is followed, once', async () => {
    const userId = await shop.account('mover');
    const token = await shop.signIn('mover@example.org');
    expect(await call(token).call('requestEmailChange', { newEmail: 'Mover.New@Example.org', password: TEST_PASSWORD })).toEqual({ ok: true, sentTo: 'mover.new@example.org' });
    // Nothing changes before the link: the row, and sign-in with the old address.
    expect((await userRow(userId)).email).toBe('mover@example.org');
    const mail = await smtp.waitForText('mover.new@example.org', 'Confirm your new email');
    expect(mail.decoded).toContain('Your email changes only when you confirm it');
    const link = confirmToken(mail.decoded);
    await smtp.waitForText('mover@example.org', 'asked to change its email to mover.new@example.org');
    // The token is stored hashed: the link's token is nowhere in the table.
    const stored = await shop.db.select().from(verifications).where(like(verifications.identifier, 'change-email:%'));
    expect(stored.some((row) => row.identifier.includes(link) || row.value.includes(link))).toBe(false);
    expect((await userRow(userId)).email).toBe('mover@example.org');

    // The link works signed out (another browser) and only once.
    expect(await shop.functions().call('confirmEmailChange', { token: link })).toEqual({ ok: true, email: 'mover.new@example.org' });
    const after = await userRow(userId);
    expect([after.email, after.emailVerified]).toEqual(['mover.new@example.org', true]);
    expect(await failure(shop.functions().call('confirmEmailChange', { token: link }))).toEqual({ code: 'not-found', message: ACCOUNT_MESSAGES.linkInvalid });
    expect(await shop.signIn('mover.new@example.org')).toBeTruthy();
    await expect(shop.signIn('mover@example.org')).rejects.toThrow();
  });

  it('a newer request makes the earlier link stop working', async () => {
    const userId = await shop.account('twice');
    const token = await shop.signIn('twice@example.org');
    await call(token).call('requestEmailChange', { newEmail: 'twice.one@example.org', password: TEST_PASSWORD });
    const first = confirmToken((await smtp.waitForText('twice.one@example.org', 'Confirm your new email')).decoded);
    await call(token).call('requestEmailChange', { newEmail: 'twice.two@example.org', password: TEST_PASSWORD });
    const second = confirmToken((await smtp.waitForText('twice.two@example.org', 'Confirm your new email')).decoded);
    expect((await failure(shop.functions().call('confirmEmailChange', { token: first }))).code).toBe('not-found');
    await shop.functions().call('confirmEmailChange', { token: second });
    expect((await userRow(userId)).email).toBe('twice.two@example.org');
  });

  it('answers the same for an address that has an account, tells its owner, and changes nothing', async () => {
    const userId = await shop.account('taker');
    await shop.account('holder');
    const token = await shop.signIn('taker@example.org');
    expect(await call(token).call('requestEmailChange', { newEmail: 'holder@example.org', password: TEST_PASSWORD })).toEqual({ ok: true, sentTo: 'holder@example.org' });
    const mail = await smtp.waitForText('holder@example.org', 'already has an account, so nothing was changed');
    expect(mail.decoded).not.toContain('confirm-email');
    expect(
      await shop.db
        .select()
        .from(verifications)
        .where(like(verifications.value, `${userId} %`)),
    ).toEqual([]);
    expect((await userRow(userId)).email).toBe('taker@example.org');
  });

  it('refuses a wrong password, a bad address and a blocked domain', async () => {
    await shop.account('careful');
    const token = await shop.signIn('careful@example.org');
    expect((await failure(call(token).call('requestEmailChange', { newEmail: 'fine@example.org', password: 'wrong one' }))).message).toBe(ACCOUNT_MESSAGES.wrongPassword);
    expect((await failure(call(token).call('requestEmailChange', { newEmail: 'not an email', password: TEST_PASSWORD }))).message).toBe('Invalid email format.');
    expect((await failure(call(token).call('requestEmailChange', { newEmail: 'x@mailinator.com', password: TEST_PASSWORD }))).message).toBe('This email domain is not allowed.');
    expect((await failure(call(token).call('requestEmailChange', { newEmail: 'careful@example.org', password: TEST_PASSWORD }))).message).toBe(ACCOUNT_MESSAGES.sameEmail);
  });
});

describe('profile', () => {
  it('changes name, city, country and state by the spec rules; an Artist keeps the name', async () => {
    const userId = await shop.account('editor');
    const token = await shop.signIn('editor@example.org');
    await call(token).call('updateProfile', { name: 'Edna Editor', city: 'Portland', country: 'US', state: 'OR' });
    expect(await userRow(userId)).toMatchObject({ name: 'Edna Editor', city: 'Portland', country: 'US', state: 'OR', username: 'editor' });
    // Leaving the US drops the state; a state needs the US.
    await call(token).call('updateProfile', { country: 'DE' });
    expect(await userRow(userId)).toMatchObject({ country: 'DE', state: null });
    expect((await failure(call(token).call('updateProfile', { state: 'CA' }))).message).toBe(ACCOUNT_MESSAGES.stateNeedsUs);
    expect((await failure(call(token).call('updateProfile', { name: '<script>' }))).code).toBe('invalid-argument');
    expect((await failure(call(token).call('updateProfile', { city: 'a city far too long to keep' }))).code).toBe('invalid-argument');
    // Username and account type are not editable: unknown fields are refused.
    expect((await failure(call(token).call('updateProfile', { username: 'someoneelse' } as never))).code).toBe('invalid-argument');

    const artistId = await shop.account('painter');
    await shop.db.update(users).set({ accountType: 'Artist' }).where(eq(users.id, artistId));
    const artist = await shop.signIn('painter@example.org');
    expect(await failure(call(artist).call('updateProfile', { name: 'New Stage Name' }))).toEqual({ code: 'failed-precondition', message: ACCOUNT_MESSAGES.artistName });
    await call(artist).call('updateProfile', { name: 'painter', city: 'Oslo' });
    expect(await userRow(artistId)).toMatchObject({ name: 'painter', city: 'Oslo' });
  });
});

describe('delete account', () => {
  it('needs the password, signs out everywhere, cannot sign in again, keeps the orders for the label', async () => {
    const userId = await shop.account('leaving');
    await grantCredits(shop.db, 'leaving@example.org', '30.00', 'grant-leaving');
    await placeOrder(userId, 'o_leaving_1', 'leaving@example.org');
    const here = await shop.signIn('leaving@example.org');
    const elsewhere = await shop.signIn('leaving@example.org');
    expect(await call(here).call('getDeletionSummary', null)).toEqual({ walletCents: 2000, heldCents: 0, orders: 1, openOrders: 1, pendingPayment: false, isAdmin: false });

    expect((await failure(call(here).call('deleteAccount', { password: 'wrong one', confirm: 'DELETE' }))).message).toBe(ACCOUNT_MESSAGES.wrongPassword);
    expect(await sessionsOf(userId)).toBe(2);

    expect(await call(here).call('deleteAccount', { password: TEST_PASSWORD, confirm: 'DELETE' })).toEqual({ ok: true });
    expect(await sessionsOf(userId)).toBe(0);
    expect(await shop.db.select().from(authAccounts).where(eq(authAccounts.userId, userId))).toEqual([]);
    expect(await userRow(userId)).toMatchObject({ email: deletedEmail(userId), emailVerified: false, name: 'Deleted account', city: '' });
    for (const token of [here, elsewhere]) expect((await failure(call(token).call('getProfile', null))).code).toBe('unauthenticated');
    await expect(shop.signIn('leaving@example.org')).rejects.toThrow();
    // The order stays, for the label's records and shipping.
    expect(await shop.db.select({ id: orders.id, userId: orders.userId }).from(orders).where(eq(orders.userId, userId))).toEqual([{ id: 'o_leaving_1', userId }]);
    await smtp.waitForText('leaving@example.org', 'Your Street Flavor Records account has been deleted');
    // The email is free again for a new account; the username stays taken (the sister products show it).
    await expect(shop.account('leaving')).rejects.toThrow('Username already taken');
    const again = await createAccount(shop.db, shop.config, {
      email: 'leaving@example.org',
      username: 'returning',
      name: 'Returning',
      password: TEST_PASSWORD,
      confirmPassword: TEST_PASSWORD,
      acceptedTerms: true,
    });
    expect(again.created).toBe(true);
  });

  it('refuses an admin, a label account and a shopper whose card payment is in progress', async () => {
    const adminId = await shop.account('keeper');
    await shop.db.update(users).set({ role: 'admin' }).where(eq(users.id, adminId));
    const admin = await shop.signIn('keeper@example.org');
    expect((await failure(call(admin).call('deleteAccount', { password: TEST_PASSWORD, confirm: 'DELETE' }))).message).toBe(ACCOUNT_MESSAGES.adminCannotDelete);
    expect((await userRow(adminId)).email).toBe('keeper@example.org');

    const labelId = (
      await createAccount(
        shop.db,
        shop.config,
        { email: 'label@example.org', username: 'streetflavor', name: 'Street Flavor', password: TEST_PASSWORD, confirmPassword: TEST_PASSWORD, acceptedTerms: true },
        { emailVerified: true, allowReservedUsername: true },
      )
    ).userId;
    const label = await shop.signIn('label@example.org');
    expect((await failure(call(label).call('deleteAccount', { password: TEST_PASSWORD, confirm: 'DELETE' }))).message).toBe(ACCOUNT_MESSAGES.labelCannotDelete);
    expect((await userRow(labelId)).email).toBe('label@example.org');

    const payerId = await shop.account('payer');
    await shop.db.insert(checkouts).values({
      id: 'c_payer',
      userId: payerId,
      provider: 'local',
      items: [],
      contact: { name: 'P', email: 'payer@example.org', phone: '' },
      shipping: {},
      subtotalCents: 100,
      shippingCents: 0,
      taxCents: 0,
      walletHeldCents: 0,
      amountDueCents: 100,
      chargeCents: 134,
      expiresAt: new Date(Date.now() + 60_000),
    });
    const payer = await shop.signIn('payer@example.org');
    expect((await call(payer).call('getDeletionSummary', null)).pendingPayment).toBe(true);
    expect((await failure(call(payer).call('deleteAccount', { password: TEST_PASSWORD, confirm: 'DELETE' }))).message).toBe(ACCOUNT_MESSAGES.paymentInProgress);
    expect(await sessionsOf(payerId)).toBe(1);
  });
});

describe('concurrent calls', () => {
  it('one password change wins; the others are checked against the new password and refused', async () => {
    await shop.account('racer');
    const token = await shop.signIn('racer@example.org');
    const answers = await Promise.allSettled(
      Array.from({ length: 5 }, (_, i) => call(token).call('changePassword', { currentPassword: TEST_PASSWORD, newPassword: `racing pass ${i}` })),
    );
    expect(answers.filter((answer) => answer.status === 'fulfilled')).toHaveLength(1);
    for (const answer of answers) if (answer.status === 'rejected') expect((answer.reason as Error).message).toBe(ACCOUNT_MESSAGES.wrongPassword);
  });

  it('a change-email link followed many times at once changes the email once', async () => {
    const userId = await shop.account('clicker');
    const token = await shop.signIn('clicker@example.org');
    await call(token).call('requestEmailChange', { newEmail: 'clicker.new@example.org', password: TEST_PASSWORD });
    const link = confirmToken((await smtp.waitForText('clicker.new@example.org', 'Confirm your new email')).decoded);
    const answers = await Promise.allSettled(Array.from({ length: 6 }, () => shop.functions().call('confirmEmailChange', { token: link })));
    expect(answers.filter((answer) => answer.status === 'fulfilled')).toHaveLength(1);
    expect((await userRow(userId)).email).toBe('clicker.new@example.org');
  });

  it('concurrent email change requests leave one working link', async () => {
    const userId = await shop.account('asker');
    const token = await shop.signIn('asker@example.org');
    await Promise.all(['a', 'b', 'c'].map((tag) => call(token).call('requestEmailChange', { newEmail: `asker.${tag}@example.org`, password: TEST_PASSWORD })));
    expect(
      await shop.db
        .select()
        .from(verifications)
        .where(like(verifications.value, `${userId} %`)),
    ).toHaveLength(1);
  });
});

describe('download my data', () => {
  it('holds the caller’s profile, orders, ledger and addresses, and nothing of another user', async () => {
    const mine = await shop.account('exporter');
    const theirs = await shop.account('neighbour');
    for (const [email, userId, order] of [
      ['exporter@example.org', mine, 'o_export_mine'],
      ['neighbour@example.org', theirs, 'o_export_theirs'],
    ] as const) {
      await grantCredits(shop.db, email, '20.00', `grant-${order}`);
      await placeOrder(userId, order, email);
      await runTransaction(shop.db, (tx) =>
        rememberAddress(tx, userId, { name: email, line1: `${order} Road`, line2: '', city: 'Town', state: '', postal_code: '1', country: 'US' }),
      );
    }
    const token = await shop.signIn('exporter@example.org');
    const data = await call(token).call('exportMyData', null);
    expect(data.profile).toMatchObject({ id: mine, email: 'exporter@example.org', username: 'exporter' });
    expect(data.orders.map((order) => order.id)).toEqual(['o_export_mine']);
    expect(data.walletLedger.map((entry) => [entry.kind, entry.availableDeltaCents])).toEqual([
      ['grant', 2000],
      ['debit', -1000],
    ]);
    expect(data.wallet).toEqual({ balanceCents: 1000, heldCents: 0 });
    expect(data.savedAddresses).toEqual([expect.objectContaining({ line1: 'o_export_mine Road' })]);
    const text = JSON.stringify(data);
    for (const foreign of [theirs, 'neighbour@example.org', 'o_export_theirs']) expect(text).not.toContain(foreign);
    // Credentials never leave: no password hash, no session token.
    const [credential] = await shop.db
      .select({ password: authAccounts.password })
      .from(authAccounts)
      .where(and(eq(authAccounts.userId, mine), eq(authAccounts.providerId, 'credential')));
    expect(text).not.toContain(credential!.password!);
  });
});
