import { randomUUID } from 'node:crypto';
import { hashPassword } from 'better-auth/crypto';
import { eq, inArray, sql } from 'drizzle-orm';
import { hasCatalogue, normaliseSignup, signupProblem, SIGNUP_MESSAGES, type SignupForm } from '@storefront/domain/accounts.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { authAccounts, catalogueItems, follows, portalAllowedUsers, sessions, userStats, users } from '../db/schema/index.ts';
import { constraintOf, sqlState } from '../db/errors.ts';
import { prepared } from '../db/prepared.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { hashSessionToken } from './session-token.ts';
import { AppError } from '../errors.ts';

const UNIQUE_VIOLATION = '23505';

export interface CreatedAccount {
  userId: string;
  email: string;
  name: string;
  /** False when the email already had an account: nothing was created, and the caller is not told. */
  created: boolean;
  /** When the password hash was done (performance.now()): what follows differs by path. */
  hashedAt: number;
}

/**
 * Creates an account and its whole profile in one transaction: the user row (with the
 * profile fields), the password credential, the stats row, and the follows of the
 * signup-admin accounts. The unique index on the lowercase username settles races.
 */
export async function createAccount(
  db: Db,
  config: Config,
  form: SignupForm,
  options: {
    emailVerified?: boolean;
    role?: 'user' | 'admin';
    /** Only operators (the CLI, the development seed) may take a reserved username. */
    allowReservedUsername?: boolean;
  } = {},
): Promise<CreatedAccount> {
  // The same checks in the same order as the signup form (packages/domain); a reserved
  // username (checked last) only through the CLI.
  let problem = signupProblem(form, config.BLOCKED_EMAIL_DOMAINS, config.SIGNUP_FOLLOW_USERNAMES);
  if (problem === SIGNUP_MESSAGES.usernameReserved && options.allowReservedUsername) problem = undefined;
  if (problem) throw new AppError('invalid-argument', problem);
  const profile = normaliseSignup(form);

  const [existingEmail] = await db.select({ id: users.id, name: users.name }).from(users).where(eq(users.email, profile.email));
  const [existingName] = await db.select({ id: users.id }).from(users).where(eq(users.usernameLower, profile.usernameLower));
  if (existingName) throw new AppError('already-exists', SIGNUP_MESSAGES.usernameTaken);
  // Hashed whether or not the email has an account: the hash is most of a signup's cost,
  // and skipping it would tell by the answer's timing who has one (decision 018).
  const passwordHash = await hashPassword(form.password);
  const hashedAt = performance.now();
  if (existingEmail) {
    // Same answer as a new signup: the form must not reveal who has an account.
    return { userId: existingEmail.id, email: profile.email, name: existingEmail.name, created: false, hashedAt };
  }

  const userId = randomUUID();
  try {
    await db.transaction(async (tx) => {
      await tx.insert(users).values({
        id: userId,
        email: profile.email,
        name: profile.name,
        emailVerified: options.emailVerified ?? false,
        username: profile.username,
        usernameLower: profile.usernameLower,
        city: profile.city,
        country: profile.country,
        state: profile.state,
        accountType: profile.accountType,
        role: options.role ?? 'user',
        lastOperationTime: new Date(),
      });
      await tx.insert(authAccounts).values({
        id: randomUUID(),
        accountId: userId,
        providerId: 'credential',
        userId,
        password: passwordHash,
      });
      await tx.insert(userStats).values({ userId });
      await followSignupAdmins(tx, config, userId);
    });
  } catch (error) {
    if (sqlState(error) === UNIQUE_VIOLATION) {
      if (constraintOf(error) === 'user_username_lower_key') throw new AppError('already-exists', SIGNUP_MESSAGES.usernameTaken);
      const [winner] = await db.select({ id: users.id, name: users.name }).from(users).where(eq(users.email, profile.email));
      if (winner) return { userId: winner.id, email: profile.email, name: winner.name, created: false, hashedAt };
    }
    throw error;
  }
  return { userId, email: profile.email, name: profile.name, created: true, hashedAt };
}

/** Every new account follows the signup-admin accounts that exist (spec section 4). */
async function followSignupAdmins(tx: Tx, config: Config, userId: string) {
  const names = config.SIGNUP_FOLLOW_USERNAMES.map((name) => name.toLowerCase());
  if (names.length === 0) return;
  const admins = await tx.select({ id: users.id }).from(users).where(inArray(users.usernameLower, names));
  const rows = admins.filter((admin) => admin.id !== userId).map((admin) => ({ followerId: userId, followeeId: admin.id }));
  if (rows.length > 0) await tx.insert(follows).values(rows).onConflictDoNothing();
}

function sessionQuery(db: Db) {
  return db
    .select({
      sessionId: sessions.id,
      userId: sessions.userId,
      userAgent: sessions.userAgent,
      expiresAt: sessions.expiresAt,
      email: users.email,
      emailVerified: users.emailVerified,
      role: users.role,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(eq(sessions.token, sql.placeholder('token')))
    .prepare('find_session');
}

/**
 * A session as it is now: its user and expiry, and what decides who the user is. Read on
 * every signed-in call, so it is a prepared statement (parsed and planned once per connection).
 */
export async function findSession(db: Db, token: string) {
  // The table holds the token's hash (decision 043).
  const [row] = await prepared(db, 'find_session', sessionQuery).execute({ token: hashSessionToken(token) });
  return row;
}

/** When this session expires now; null when it is gone. Reads only: never extends it. */
export async function sessionExpiresAt(db: Db, sessionId: string): Promise<Date | null> {
  const [row] = await db.select({ expiresAt: sessions.expiresAt }).from(sessions).where(eq(sessions.id, sessionId));
  return row?.expiresAt ?? null;
}

export function isAdmin(config: Config, user: { email: string; emailVerified: boolean; role: string }): boolean {
  return user.role === 'admin' || (user.emailVerified && config.ADMIN_EMAILS.includes(user.email.toLowerCase()));
}

/** Whom a receipt goes to: the account's email and name (undefined for a deleted account). */
export async function contactOf(db: Db | Tx, userId: string): Promise<{ email: string; name: string } | undefined> {
  const [buyer] = await db.select({ email: users.email, name: users.name }).from(users).where(eq(users.id, userId));
  return buyer;
}

/** The emails of these accounts, by id (deleted accounts absent): lists that name a buyer, e.g. the console's gift cards. */
export async function emailsOf(db: Db | Tx, userIds: string[]): Promise<Map<string, string>> {
  if (userIds.length === 0) return new Map();
  const rows = await db.select({ id: users.id, email: users.email }).from(users).where(inArray(users.id, userIds));
  return new Map(rows.map((row) => [row.id, row.email]));
}

/** One account by its (normalised) email; undefined when none has it. */
export async function findUserByEmail(db: Db | Tx, email: string) {
  const [user] = await db.select({ id: users.id, email: users.email, name: users.name }).from(users).where(eq(users.email, email));
  return user;
}

/** One account by its id. */
export async function findUser(db: Db, userId: string) {
  const [user] = await db.select().from(users).where(eq(users.id, userId));
  return user;
}

/** Portal access (spec section 6): listed users only; a failed check means no access. */
export async function hasPortalAccess(db: Db, userId: string): Promise<boolean> {
  try {
    const [row] = await db.select().from(portalAllowedUsers).where(eq(portalAllowedUsers.userId, userId));
    return Boolean(row);
  } catch (error) {
    console.warn(`Could not check the portal access of user ${userId}; answering no access:`, error);
    return false;
  }
}

/** The signed-in user's own profile (spec section 3), as the client reads it. */
export async function getOwnProfile(db: Db, config: Config, userId: string) {
  const [user] = await db.select().from(users).where(eq(users.id, userId));
  if (!user) throw new AppError('not-found', 'No user data found');
  const [stats] = await db.select().from(userStats).where(eq(userStats.userId, userId));
  const following = await db.select({ id: follows.followeeId }).from(follows).where(eq(follows.followerId, userId));
  const followers = await db.select({ id: follows.followerId }).from(follows).where(eq(follows.followeeId, userId));
  const catalogue = hasCatalogue(user.accountType as never) ? await db.select().from(catalogueItems).where(eq(catalogueItems.userId, userId)) : [];
  const itemsOf = (kind: string) => catalogue.filter((item) => item.kind === kind).map((item) => item.itemId);
  return {
    id: user.id,
    userId: user.id,
    email: user.email,
    name: user.name,
    ArtistName: user.name,
    ArtistNameLower: user.name.toLowerCase(),
    username: user.username,
    username_lower: user.usernameLower,
    location: user.city,
    country: user.country,
    state: user.state,
    accountType: user.accountType,
    profileImageUrl: user.image,
    profileImage: user.image,
    lastOperationTime: user.lastOperationTime?.toISOString() ?? null,
    deviceToken: user.deviceToken,
    credits: stats?.credits ?? 0,
    stats: {
      totalSpns: stats?.totalSpns ?? 0,
      sales: { singles: stats?.salesSingles ?? 0, albums: stats?.salesAlbums ?? 0, videos: stats?.salesVideos ?? 0 },
    },
    following: following.map((row) => row.id),
    followers: followers.map((row) => row.id),
    isAdmin: isAdmin(config, user),
    portalAccess: await hasPortalAccess(db, user.id),
    ...(hasCatalogue(user.accountType as never) ? { albums: itemsOf('album'), singles: itemsOf('single'), videos: itemsOf('video'), videoalbums: itemsOf('videoalbum') } : {}),
  };
}

export async function recordDeviceToken(db: Db, userId: string, deviceToken: string) {
  await db.update(users).set({ deviceToken, lastOperationTime: new Date(), updatedAt: new Date() }).where(eq(users.id, userId));
}

/** The CLI's make-admin: the role, audited (actor `cli`) in the same transaction. False: no such account. */
export async function makeAdmin(db: Db, email: string): Promise<boolean> {
  return runTransaction(db, async (tx) => {
    const [user] = await tx.select({ id: users.id, email: users.email, role: users.role }).from(users).where(eq(users.email, email.trim().toLowerCase())).for('update');
    if (!user) return false;
    if (user.role === 'admin') return true;
    await tx.update(users).set({ role: 'admin', updatedAt: new Date() }).where(eq(users.id, user.id));
    await recordAudit(tx, {
      actor: { operator: 'cli' },
      action: 'admin.grant',
      targetType: 'account',
      targetId: user.id,
      before: { email: user.email, role: user.role },
      after: { email: user.email, role: 'admin' },
    });
    return true;
  });
}
