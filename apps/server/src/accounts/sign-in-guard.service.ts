import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { and, eq, gt, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { signInGuards } from '../db/schema/index.ts';
import { runTransaction } from '../db/transaction.ts';

/**
 * Wrong passwords per account (issue 25, security 16; decision 043). The per-address limit
 * (decision 017) stops one client; this stops many clients guessing one account, without
 * letting them lock its owner out: the owner's known devices are not limited, and the owner
 * is mailed a link that unlocks sign-in (the way Devise's lockable and OWASP's device
 * cookies do it).
 */
export const SIGN_IN_GUARD = {
  /** Wrong passwords an unknown device may send for one account before it is slowed down. */
  freeFailures: 10,
  /** The lock after the free failures; it doubles with each further failure, up to maxLockMs. */
  firstLockMs: 60_000,
  maxLockMs: 60 * 60_000,
  /** Failures older than this (with no lock running) are forgotten. */
  forgetAfterMs: 24 * 60 * 60_000,
  unlockLinkMs: 60 * 60_000,
  knownDeviceSeconds: 365 * 24 * 60 * 60,
} as const;

export const SIGN_IN_GUARD_MESSAGES = {
  locked: 'Too many wrong passwords for this account. Try again later, sign in from a device you used before, or use the link we emailed to the account’s owner to unlock sign-in.',
} as const;

export const normalizedEmail = (email: string) => email.trim().toLowerCase();

/** How long the account stays locked after `failures` failures (none below the allowance). */
export function lockMs(failures: number): number {
  if (failures < SIGN_IN_GUARD.freeFailures) return 0;
  return Math.min(SIGN_IN_GUARD.firstLockMs * 2 ** (failures - SIGN_IN_GUARD.freeFailures), SIGN_IN_GUARD.maxLockMs);
}

export type GuardedAttempt = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Counts an unknown device's attempt as a failure before its password is checked, so that
 * concurrent guesses cannot all pass the check before any is counted; `endAttempt` takes it
 * back when the password was right or never checked. Refused while the account is locked:
 * the password is then not checked at all, so a lock confirms nothing.
 */
export async function beginAttempt(db: Db, rawEmail: string): Promise<GuardedAttempt> {
  const email = normalizedEmail(rawEmail);
  return runTransaction(
    db,
    async (tx) => {
      await tx.insert(signInGuards).values({ email }).onConflictDoNothing();
      const [row] = await tx.select().from(signInGuards).where(eq(signInGuards.email, email)).for('update');
      const now = Date.now();
      if (row!.lockedUntil && row!.lockedUntil.getTime() > now) {
        return { allowed: false as const, retryAfterSeconds: Math.ceil((row!.lockedUntil.getTime() - now) / 1000) };
      }
      const forgotten = now - row!.lastFailureAt.getTime() > SIGN_IN_GUARD.forgetAfterMs;
      const failures = (forgotten ? 0 : row!.failures) + 1;
      const lock = lockMs(failures);
      await tx
        .update(signInGuards)
        .set({ failures, lastFailureAt: new Date(now), lockedUntil: lock > 0 ? new Date(now + lock) : null })
        .where(eq(signInGuards.email, email));
      return { allowed: true as const };
    },
    { isolationLevel: 'read committed' },
  );
}

/**
 * Settles an attempt `beginAttempt` counted. A right password clears the account's record;
 * a wrong one stays counted, and the one that uses up the allowance answers an unlock token
 * to mail to the owner (stored hashed); an attempt whose password was never checked (the
 * per-address limit, a malformed request) is taken back.
 */
export async function endAttempt(db: Db, rawEmail: string, outcome: 'right' | 'wrong' | 'unchecked'): Promise<{ unlockToken: string | null }> {
  const email = normalizedEmail(rawEmail);
  if (outcome === 'right') {
    await db.delete(signInGuards).where(eq(signInGuards.email, email));
    return { unlockToken: null };
  }
  if (outcome === 'unchecked') {
    await db
      .update(signInGuards)
      .set({
        failures: sql`greatest(${signInGuards.failures} - 1, 0)`,
        lockedUntil: sql`CASE WHEN ${signInGuards.failures} - 1 < ${SIGN_IN_GUARD.freeFailures} THEN NULL ELSE ${signInGuards.lockedUntil} END`,
      })
      .where(eq(signInGuards.email, email));
    return { unlockToken: null };
  }
  const token = randomBytes(32).toString('base64url');
  const mailed = await db
    .update(signInGuards)
    .set({ unlockTokenHash: hashToken(token), unlockExpiresAt: new Date(Date.now() + SIGN_IN_GUARD.unlockLinkMs) })
    .where(and(eq(signInGuards.email, email), eq(signInGuards.failures, SIGN_IN_GUARD.freeFailures)))
    .returning({ email: signInGuards.email });
  return { unlockToken: mailed.length > 0 ? token : null };
}

/** Uses an unlock link once: the account's failures are forgotten; answers its email, or null. */
export async function useUnlockToken(db: Db, token: string): Promise<string | null> {
  const [row] = await db
    .update(signInGuards)
    .set({ failures: 0, lockedUntil: null, unlockTokenHash: null, unlockExpiresAt: null })
    .where(and(eq(signInGuards.unlockTokenHash, hashToken(token)), gt(signInGuards.unlockExpiresAt, new Date())))
    .returning({ email: signInGuards.email });
  return row?.email ?? null;
}

function hashToken(token: string): string {
  return createHash('sha256').update(`sign-in-unlock:${token}`).digest('hex');
}

/**
 * A known device: a browser where this account signed in (or its owner unlocked sign-in),
 * holding a cookie signed with AUTH_SECRET for this email. One cookie per account, so the
 * cookie of one account says nothing about another.
 */
export function knownDeviceCookieName(rawEmail: string): string {
  return `sf_known_${createHash('sha256').update(normalizedEmail(rawEmail)).digest('hex').slice(0, 20)}`;
}

function deviceSignature(secret: string, email: string, nonce: string): string {
  return createHmac('sha256', secret).update(`known-device\0${email}\0${nonce}`).digest('base64url');
}

export function knownDeviceCookieValue(secret: string, rawEmail: string): string {
  const nonce = randomBytes(16).toString('base64url');
  return `${nonce}.${deviceSignature(secret, normalizedEmail(rawEmail), nonce)}`;
}

export function isKnownDevice(secret: string, rawEmail: string, cookies: Record<string, string | undefined>): boolean {
  const value = cookies[knownDeviceCookieName(rawEmail)];
  const match = value ? /^([A-Za-z0-9_-]{16,64})\.([A-Za-z0-9_-]{43})$/.exec(value) : null;
  if (!match) return false;
  const expected = Buffer.from(deviceSignature(secret, normalizedEmail(rawEmail), match[1]!));
  const given = Buffer.from(match[2]!);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
