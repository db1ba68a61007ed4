import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed tokens of the drops area (decision 066), HMAC-SHA256 under keys derived from
 * AUTH_SECRET (old secrets still verify during a rotation).
 *
 * Admission: `v1.<dropId>.<entry number>.<expiry ms>.<signature>`, the signature over
 * `drop-admission|v1|<userId>|<dropId>|<number>|<expiry ms>`: bound to the account, the drop,
 * the entry and the expiry. Waitlist leave link: `<variantId>.<userId>.<signature>`.
 */
const keyOf = (secret: string, purpose: string) => createHmac('sha256', secret).update(purpose).digest();
const sign = (secret: string, purpose: string, text: string) => createHmac('sha256', keyOf(secret, purpose)).update(text).digest('base64url');

function matches(secrets: readonly string[], purpose: string, text: string, signature: string): boolean {
  const given = Buffer.from(signature);
  return secrets.some((secret) => {
    const expected = Buffer.from(sign(secret, purpose, text));
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
}

export interface Admission {
  userId: string;
  dropId: string;
  entryNumber: number;
  /** Epoch milliseconds. */
  expiresAt: number;
}

const admissionText = (a: Admission) => `drop-admission|v1|${a.userId}|${a.dropId}|${a.entryNumber}|${a.expiresAt}`;

export function signAdmission(secret: string, admission: Admission): string {
  return `v1.${admission.dropId}.${admission.entryNumber}.${admission.expiresAt}.${sign(secret, 'drop-admission', admissionText(admission))}`;
}

/** Whether `token` is a valid, unexpired admission of this account for this drop and entry. */
export function verifyAdmission(
  secrets: readonly string[],
  token: string,
  expected: Omit<Admission, 'expiresAt'>,
  now = Date.now(),
): { ok: true; expiresAt: number } | { ok: false; reason: 'invalid' | 'expired' } {
  const parts = token.split('.');
  if (parts.length !== 5 || parts[0] !== 'v1' || token.length > 500) return { ok: false, reason: 'invalid' };
  const [, dropId, number, expiry, signature] = parts as [string, string, string, string, string];
  const expiresAt = Number(expiry);
  if (dropId !== expected.dropId || Number(number) !== expected.entryNumber || !Number.isSafeInteger(expiresAt)) return { ok: false, reason: 'invalid' };
  if (!matches(secrets, 'drop-admission', admissionText({ ...expected, expiresAt }), signature)) return { ok: false, reason: 'invalid' };
  if (expiresAt <= now) return { ok: false, reason: 'expired' };
  return { ok: true, expiresAt };
}

export function signWaitlistLeave(secret: string, variantId: string, userId: string): string {
  const text = `${Buffer.from(variantId).toString('base64url')}.${Buffer.from(userId).toString('base64url')}`;
  return `${text}.${sign(secret, 'waitlist-leave', text)}`;
}

export function verifyWaitlistLeave(secrets: readonly string[], token: string): { variantId: string; userId: string } | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const [variant, user, signature] = parts as [string, string, string];
  if (!matches(secrets, 'waitlist-leave', `${variant}.${user}`, signature)) return null;
  return { variantId: Buffer.from(variant, 'base64url').toString('utf8'), userId: Buffer.from(user, 'base64url').toString('utf8') };
}

/** How long a notify-me confirmation link works (decision 076). */
export const NOTIFY_CONFIRM_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * The notify-me confirmation link (decision 076): `<variantId b64>.<email b64>.<expiry ms>.<signature>`,
 * signed under its own purpose, so a leave token is no confirmation and the other way round.
 */
export function signNotifyConfirm(secret: string, variantId: string, email: string, expiresAt: number): string {
  const text = `${Buffer.from(variantId).toString('base64url')}.${Buffer.from(email).toString('base64url')}.${expiresAt}`;
  return `${text}.${sign(secret, 'notify-confirm', text)}`;
}

export function verifyNotifyConfirm(secrets: readonly string[], token: string, now = Date.now()): { variantId: string; email: string } | null {
  const parts = token.split('.');
  if (parts.length !== 4) return null;
  const [variant, email, expiry, signature] = parts as [string, string, string, string];
  if (!/^\d{1,15}$/.test(expiry) || Number(expiry) <= now) return null;
  if (!matches(secrets, 'notify-confirm', `${variant}.${email}.${expiry}`, signature)) return null;
  return { variantId: Buffer.from(variant, 'base64url').toString('utf8'), email: Buffer.from(email, 'base64url').toString('utf8') };
}

/** Who a waitlist leave link is for: an account's id, or `email:<address>` for an address's entry (decision 076). */
export const EMAIL_ENTRY_PREFIX = 'email:';

/** The altcha challenges' HMAC key (decision 066), derived from AUTH_SECRET. */
export function challengeKey(secret: string): string {
  return keyOf(secret, 'drop-challenge').toString('hex');
}
