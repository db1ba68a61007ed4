import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { hashPassword, verifyPassword } from 'better-auth/crypto';
import { and, asc, desc, eq, inArray, like, ne, or, sql } from 'drizzle-orm';
import { ARTIST_NAME_NOTE, emailDomain, isReservedUsername, isValidEmail, SIGNUP_MESSAGES } from '@storefront/domain/accounts.ts';
import type { z } from 'zod';
import type { profileUpdateInput } from '@storefront/domain/contracts/accounts.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { constraintOf, sqlState } from '../db/errors.ts';
import { authAccounts, checkouts, follows, ledgerEntries, orderItems, orders, savedAddresses, sessions, users, verifications, wallets } from '../db/schema/index.ts';
import type { Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';
import { exportConsent, forgetConsent } from '../fans/consent.service.ts';
import { exportFollows, forgetFollows } from '../fans/follows.service.ts';
import { exportWishlist, forgetWishlist } from '../fans/wishlist.service.ts';
import { exportWaitlists, forgetWaitlists } from '../drops/notify-me.service.ts';
import { publishLive } from '../live/live.publish.ts';

/**
 * The account page (issue 17, decision 032): change password, change email (verified by
 * a link to the new address), the editable profile fields, deletion and the data export.
 * Our own callable functions, not Better Auth's endpoints: every input passes a zod
 * contract and the domain rules, every change is rate limited per account, and deletion
 * keeps the rows the label's records need.
 */

export const ACCOUNT_MESSAGES = {
  wrongPassword: 'Your current password is not right.',
  samePassword: 'Your new password must differ from your current one.',
  sameEmail: 'That is already your email address.',
  linkInvalid: 'This link has expired or was already used. Please ask for a new one from your account page.',
  emailTaken: 'This email address already has an account, so it cannot be used.',
  artistName: ARTIST_NAME_NOTE,
  stateNeedsUs: 'A US state can be chosen only with the country US.',
  adminCannotDelete: 'An admin account cannot be deleted here. Ask another admin to take away your admin role first.',
  labelCannotDelete: 'The label’s own accounts cannot be deleted here: every new account follows them.',
  paymentInProgress: 'A card payment of yours is still in progress. Finish it or go back to checkout to cancel it, then delete your account.',
  noAccount: 'No user data found',
} as const;

/** How long the link of a change-email mail works. */
export const EMAIL_CHANGE_EXPIRES_SECONDS = 60 * 60 * 24;
const EMAIL_CHANGE_PREFIX = 'change-email:';

const tokenHash = (token: string) => EMAIL_CHANGE_PREFIX + createHash('sha256').update(token).digest('base64url');

/** The address a deleted account keeps: unique, and no mail can reach it (RFC 2606 `.invalid`). */
export const deletedEmail = (userId: string) => `deleted-${userId}@deleted.invalid`;

async function userOf(db: Db, userId: string) {
  const [user] = await db.select().from(users).where(eq(users.id, userId));
  if (!user) throw new AppError('not-found', ACCOUNT_MESSAGES.noAccount);
  return user;
}

/**
 * Throws unless `password` is the account's current password. In a transaction, with
 * `lock`, the credential row stays locked until it ends: concurrent changes run one
 * after the other, and the later ones check against what the earlier one wrote.
 */
async function checkPassword(db: Db | Tx, userId: string, password: string, lock = false): Promise<{ credentialId: string }> {
  const query = db
    .select({ id: authAccounts.id, password: authAccounts.password })
    .from(authAccounts)
    .where(and(eq(authAccounts.userId, userId), eq(authAccounts.providerId, 'credential')));
  const [credential] = lock ? await query.for('update') : await query;
  if (!credential?.password || !(await verifyPassword({ hash: credential.password, password }))) {
    throw new AppError('invalid-argument', ACCOUNT_MESSAGES.wrongPassword);
  }
  return { credentialId: credential.id };
}

/**
 * A new password; every other session of the account ends (and the sister products'
 * single sign-on with them), the session that asked stays signed in.
 */
export async function changePassword(
  db: Db,
  endSingleSignOn: (userId: string) => Promise<unknown>,
  userId: string,
  keepSessionId: string | undefined,
  currentPassword: string,
  newPassword: string,
) {
  if (currentPassword === newPassword) throw new AppError('invalid-argument', ACCOUNT_MESSAGES.samePassword);
  const user = await userOf(db, userId);
  const hash = await hashPassword(newPassword);
  const ended = await db.transaction(async (tx) => {
    const { credentialId } = await checkPassword(tx, userId, currentPassword, true);
    await tx.update(authAccounts).set({ password: hash, updatedAt: new Date() }).where(eq(authAccounts.id, credentialId));
    const others = keepSessionId ? and(eq(sessions.userId, userId), ne(sessions.id, keepSessionId)) : eq(sessions.userId, userId);
    return tx.delete(sessions).where(others).returning({ id: sessions.id });
  });
  await endSingleSignOn(userId);
  return { otherSessionsEnded: ended.length, email: user.email, name: user.name };
}

export type EmailChangeRequest = { kind: 'link'; to: string; name: string; token: string; oldEmail: string } | { kind: 'taken'; to: string; name: string };

/**
 * Checks the password and the new address, and stores a single-use link token (hashed,
 * like reset tokens: a backup holds no live link); an earlier pending link of the account
 * stops working. When the address already has an account nothing is stored and the
 * caller mails its owner instead, so the answer is the same either way (decision 018).
 */
export async function requestEmailChange(db: Db, config: Config, userId: string, newEmail: string, password: string): Promise<EmailChangeRequest> {
  if (!isValidEmail(newEmail)) throw new AppError('invalid-argument', SIGNUP_MESSAGES.invalidEmail);
  const domain = emailDomain(newEmail);
  if (config.BLOCKED_EMAIL_DOMAINS.some((blocked) => blocked.toLowerCase() === domain)) throw new AppError('invalid-argument', SIGNUP_MESSAGES.blockedDomain);
  const user = await userOf(db, userId);
  if (user.email === newEmail) throw new AppError('invalid-argument', ACCOUNT_MESSAGES.sameEmail);
  await checkPassword(db, userId, password);
  const [owner] = await db.select({ name: users.name }).from(users).where(eq(users.email, newEmail));
  if (owner) return { kind: 'taken', to: newEmail, name: owner.name };
  const token = randomBytes(32).toString('base64url');
  await db.transaction(async (tx) => {
    // One request at a time per account: the newest link is the only one that works.
    await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update');
    await tx.delete(verifications).where(and(like(verifications.identifier, `${EMAIL_CHANGE_PREFIX}%`), like(verifications.value, `${userId} %`)));
    await tx.insert(verifications).values({
      id: randomUUID(),
      identifier: tokenHash(token),
      value: `${userId} ${newEmail}`,
      expiresAt: new Date(Date.now() + EMAIL_CHANGE_EXPIRES_SECONDS * 1000),
    });
  });
  return { kind: 'link', to: newEmail, name: user.name, token, oldEmail: user.email };
}

/** Follows a change-email link: once, before it expires; the new address counts as verified. */
export async function confirmEmailChange(db: Db, token: string): Promise<{ email: string }> {
  try {
    return await db.transaction(async (tx) => {
      const [row] = await tx
        .delete(verifications)
        .where(and(eq(verifications.identifier, tokenHash(token)), sql`${verifications.expiresAt} > now()`))
        .returning({ value: verifications.value });
      if (!row) throw new AppError('not-found', ACCOUNT_MESSAGES.linkInvalid);
      const space = row.value.indexOf(' ');
      const userId = row.value.slice(0, space);
      const email = row.value.slice(space + 1);
      const changed = await tx
        .update(users)
        .set({ email, emailVerified: true, updatedAt: new Date() })
        .where(and(eq(users.id, userId), ne(users.email, deletedEmail(userId))))
        .returning({ id: users.id });
      if (changed.length === 0) throw new AppError('not-found', ACCOUNT_MESSAGES.linkInvalid);
      // The owner's open pages show the new address at once.
      await publishLive(tx, { topic: 'profile', userId });
      return { email };
    });
  } catch (error) {
    // Another account took the address between the request and the link.
    if (sqlState(error) === '23505' && constraintOf(error) !== 'user_username_lower_key') throw new AppError('already-exists', ACCOUNT_MESSAGES.emailTaken);
    throw error;
  }
}

/** The profile fields a shopper may change: name (not an Artist's), city, country, US state. */
export async function updateProfile(db: Db, userId: string, input: z.output<typeof profileUpdateInput>) {
  const user = await userOf(db, userId);
  const changes: Partial<typeof users.$inferInsert> = {};
  if (input.name !== undefined && input.name !== user.name) {
    if (user.accountType === 'Artist') throw new AppError('failed-precondition', ACCOUNT_MESSAGES.artistName);
    changes.name = input.name;
  }
  if (input.city !== undefined) changes.city = input.city;
  if (input.country !== undefined) changes.country = input.country;
  const country = input.country !== undefined ? input.country : user.country;
  if (input.state !== undefined) {
    if (input.state !== null && country !== 'US') throw new AppError('invalid-argument', ACCOUNT_MESSAGES.stateNeedsUs);
    changes.state = input.state;
  }
  // A state belongs to the US only (spec section 5): leaving the US drops it.
  if (country !== 'US') changes.state = null;
  await db.transaction(async (tx) => {
    await tx
      .update(users)
      .set({ ...changes, lastOperationTime: new Date(), updatedAt: new Date() })
      .where(eq(users.id, userId));
    await publishLive(tx, { topic: 'profile', userId });
  });
}

/** What deleting the account gives up, for the page to say plainly before asking. */
export async function deletionSummary(db: Db, userId: string, isAdmin: boolean) {
  const [wallet] = await db.select().from(wallets).where(eq(wallets.userId, userId));
  const [counts] = await db
    .select({ all: sql<number>`count(*)::int`, open: sql<number>`count(*) FILTER (WHERE NOT ${orders.orderFulfilled})::int` })
    .from(orders)
    .where(eq(orders.userId, userId));
  const [pending] = await db
    .select({ id: checkouts.id })
    .from(checkouts)
    .where(and(eq(checkouts.userId, userId), eq(checkouts.status, 'pending')))
    .limit(1);
  return {
    walletCents: wallet?.balanceCents ?? 0,
    heldCents: wallet?.heldCents ?? 0,
    orders: counts?.all ?? 0,
    openOrders: counts?.open ?? 0,
    pendingPayment: Boolean(pending),
    isAdmin,
  };
}

/**
 * Deletes the account. The user row stays (orders, checkouts and the wallet ledger refer
 * to it, for the label's records and its accounts), emptied of personal data: the email
 * becomes an address no mail reaches, the password, sessions, pending email changes,
 * saved addresses, follows and device token go, and the sister products' single sign-on
 * ends. The username stays taken: the sister products show it on releases and follows, and
 * a stranger must not inherit it. Wallet credit is not paid out (it stays in the ledger).
 * Returns the address and name to send the goodbye mail to.
 */
export async function deleteAccount(
  db: Db,
  config: Config,
  endSingleSignOn: (userId: string) => Promise<unknown>,
  userId: string,
  isAdmin: boolean,
  password: string,
): Promise<{ email: string; name: string }> {
  if (isAdmin) throw new AppError('failed-precondition', ACCOUNT_MESSAGES.adminCannotDelete);
  // The signup-admin accounts (SIGNUP_FOLLOW_USERNAMES) and other reserved names are the label's.
  const { username } = await userOf(db, userId);
  if (isReservedUsername(username, config.SIGNUP_FOLLOW_USERNAMES)) throw new AppError('failed-precondition', ACCOUNT_MESSAGES.labelCannotDelete);
  await checkPassword(db, userId, password);
  const gone = await db.transaction(async (tx) => {
    const [user] = await tx.select().from(users).where(eq(users.id, userId)).for('update');
    if (!user || user.email === deletedEmail(userId)) throw new AppError('not-found', ACCOUNT_MESSAGES.noAccount);
    // A checkout holding wallet credit settles first: the payment may still complete.
    const [pending] = await tx
      .select({ id: checkouts.id })
      .from(checkouts)
      .where(and(eq(checkouts.userId, userId), eq(checkouts.status, 'pending')))
      .limit(1);
    if (pending) throw new AppError('failed-precondition', ACCOUNT_MESSAGES.paymentInProgress);
    await tx.delete(sessions).where(eq(sessions.userId, userId));
    await tx.delete(authAccounts).where(eq(authAccounts.userId, userId));
    await tx.delete(verifications).where(and(like(verifications.identifier, `${EMAIL_CHANGE_PREFIX}%`), like(verifications.value, `${userId} %`)));
    await tx.delete(savedAddresses).where(eq(savedAddresses.userId, userId));
    await tx.delete(follows).where(or(eq(follows.followerId, userId), eq(follows.followeeId, userId)));
    // The fan's follows of the label and its artists (decision 074).
    await forgetFollows(tx, userId);
    await forgetConsent(tx, userId, user.email);
    // The wishlist and the notify-me / waitlist entries of the account and its address (decision 076).
    await forgetWishlist(tx, userId);
    await forgetWaitlists(tx, userId, user.email);
    await tx
      .update(users)
      .set({
        email: deletedEmail(userId),
        emailVerified: false,
        name: 'Deleted account',
        image: null,
        city: '',
        country: null,
        state: null,
        deviceToken: null,
        lastOperationTime: new Date(),
        updatedAt: new Date(),
      })
      .where(eq(users.id, userId));
    return { email: user.email, name: user.name };
  });
  await endSingleSignOn(userId);
  return gone;
}

/** Everything the shop keeps about the caller: profile, orders with items, wallet and its ledger, saved addresses. */
export async function exportMyData(db: Db, userId: string) {
  const user = await userOf(db, userId);
  const orderRows = await db.select().from(orders).where(eq(orders.userId, userId)).orderBy(desc(orders.createdAt), desc(orders.id));
  const items = orderRows.length
    ? await db
        .select()
        .from(orderItems)
        .where(
          inArray(
            orderItems.orderId,
            orderRows.map((order) => order.id),
          ),
        )
        .orderBy(asc(orderItems.position))
    : [];
  const ledger = await db.select().from(ledgerEntries).where(eq(ledgerEntries.userId, userId)).orderBy(asc(ledgerEntries.id));
  const [wallet] = await db.select().from(wallets).where(eq(wallets.userId, userId));
  const addresses = await db.select().from(savedAddresses).where(eq(savedAddresses.userId, userId)).orderBy(desc(savedAddresses.lastUsedAt));
  const fanFollows = await exportFollows(db, userId);
  const consent = await exportConsent(db, user.email);
  const wishlist = await exportWishlist(db, userId);
  const notifyMe = await exportWaitlists(db, userId, user.email);
  return {
    exportedAt: new Date().toISOString(),
    profile: {
      id: user.id,
      email: user.email,
      emailVerified: user.emailVerified,
      name: user.name,
      username: user.username,
      accountType: user.accountType,
      city: user.city,
      country: user.country,
      state: user.state,
      profileImageUrl: user.image,
      deviceToken: user.deviceToken,
      createdAt: user.createdAt.toISOString(),
      updatedAt: user.updatedAt.toISOString(),
    },
    orders: orderRows.map((order) => ({
      id: order.id,
      createdAt: order.createdAt.toISOString(),
      items: items.filter((item) => item.orderId === order.id).map((item) => ({ id: item.productId, name: item.name, qty: item.qty, unitCents: item.unitCents })),
      totals: {
        subtotalCents: order.subtotalCents,
        shippingCents: order.shippingCents,
        taxCents: order.taxCents,
        walletAppliedCents: order.walletAppliedCents,
        chargedCents: order.chargedCents,
        // The discount code used (issue 27), if any.
        discountCents: order.discountCents,
        discountCode: order.discountCode,
      },
      contact: order.contact,
      shipping: order.shipping,
      orderFulfilled: order.orderFulfilled,
      orderStatus: order.orderStatus,
      refundedWalletCents: order.refundedWalletCents,
      refundedCardCents: order.refundedCardCents,
      carrier: order.carrier,
      trackingNumber: order.trackingNumber,
    })),
    wallet: { balanceCents: wallet?.balanceCents ?? 0, heldCents: wallet?.heldCents ?? 0 },
    walletLedger: ledger.map((entry) => ({
      id: entry.id,
      kind: entry.kind,
      availableDeltaCents: entry.availableDeltaCents,
      heldDeltaCents: entry.heldDeltaCents,
      reference: entry.reference,
      note: entry.note,
      createdAt: entry.createdAt.toISOString(),
    })),
    savedAddresses: addresses.map((row) => ({ ...row.address, lastUsedAt: row.lastUsedAt.toISOString() })),
    // The label and the artists the fan follows, with when and how (decision 074).
    follows: fanFollows,
    // Marketing consent: when, how and from which page it was given, or withdrawn (decision 074).
    marketingConsent: consent,
    // The wishlist, and the items the fan asked to be told about (notify me, waitlists), decision 076.
    wishlist,
    notifyMe,
  };
}
