import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The signed links of marketing consent (decision 074), HMAC-SHA256 under keys derived from
 * AUTH_SECRET (old secrets still verify during a rotation): `<email, base64url>.<expiry ms>.<signature>`.
 * A confirm link (double opt-in) lasts 7 days; a leave link (unsubscribe) does not expire, so
 * an old mail's link still works, and needs no cookie.
 */
export type ConsentPurpose = 'news-confirm' | 'news-leave' | 'cart-reminder';

export const CONFIRM_LINK_MS = 7 * 24 * 60 * 60 * 1000;
/** A cart reminder's link (decision 078) names a checkout, not an address, and rebuilds its cart for 30 days. */
export const CART_LINK_MS = 30 * 24 * 60 * 60 * 1000;
const NEVER = 0;

const keyOf = (secret: string, purpose: ConsentPurpose) => createHmac('sha256', secret).update(purpose).digest();
const sign = (secret: string, purpose: ConsentPurpose, text: string) => createHmac('sha256', keyOf(secret, purpose)).update(text).digest('base64url');

export function signConsentLink(secret: string, purpose: ConsentPurpose, email: string, now = Date.now()): string {
  const expiry = purpose === 'news-confirm' ? now + CONFIRM_LINK_MS : purpose === 'cart-reminder' ? now + CART_LINK_MS : NEVER;
  const text = `${Buffer.from(email).toString('base64url')}.${expiry}`;
  return `${text}.${sign(secret, purpose, text)}`;
}

/** The address a valid, unexpired link of this purpose names; null for anything else. */
export function verifyConsentLink(secrets: readonly string[], purpose: ConsentPurpose, token: string, now = Date.now()): string | null {
  if (token.length > 600) return null;
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const [email, expiry, signature] = parts as [string, string, string];
  const given = Buffer.from(signature);
  const valid = secrets.some((secret) => {
    const expected = Buffer.from(sign(secret, purpose, `${email}.${expiry}`));
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
  const expiresAt = Number(expiry);
  if (!valid || !Number.isSafeInteger(expiresAt) || (expiresAt !== NEVER && expiresAt <= now)) return null;
  return Buffer.from(email, 'base64url').toString('utf8');
}
