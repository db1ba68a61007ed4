import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The portal invitation's signed link (decision 080): `<invitation id>.<expiry ms>.<signature>`,
 * HMAC-SHA256 under a key derived from AUTH_SECRET for this purpose only (old secrets still
 * verify during a rotation). The signature proves the link was made here; the invitation's row
 * decides whether it may still be used (once, before it expires, unless withdrawn).
 */
const PURPOSE = 'royalty-invitation';

const keyOf = (secret: string) => createHmac('sha256', secret).update(PURPOSE).digest();
const sign = (secret: string, text: string) => createHmac('sha256', keyOf(secret)).update(text).digest('base64url');

export function signInvitationLink(secret: string, invitationId: string, expiresAt: Date): string {
  const text = `${invitationId}.${expiresAt.getTime()}`;
  return `${text}.${sign(secret, text)}`;
}

/** The invitation a well-signed, unexpired link names; null for anything else. */
export function verifyInvitationLink(secrets: readonly string[], token: string, now = Date.now()): { invitationId: string; expired: boolean } | null {
  if (token.length > 600) return null;
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const [invitationId, expiry, signature] = parts as [string, string, string];
  const given = Buffer.from(signature);
  const valid = secrets.some((secret) => {
    const expected = Buffer.from(sign(secret, `${invitationId}.${expiry}`));
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
  const expiresAt = Number(expiry);
  if (!valid || !Number.isSafeInteger(expiresAt)) return null;
  return { invitationId, expired: expiresAt <= now };
}
