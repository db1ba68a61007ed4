import { createHmac, timingSafeEqual } from 'node:crypto';
import { DOWNLOAD_FORMATS, type DownloadFormat } from '@storefront/domain/digital.ts';

/**
 * Download links (issue 28, decision 057): `/dl/<payload>.<signature>`, the payload the
 * owner, release, track (or the whole release), format and expiry, signed with HMAC-SHA256
 * under a key derived from AUTH_SECRET (old secrets still verify during a rotation). A link
 * is short-lived (LINK_TTL_MS) and names its owner, so the server checks ownership again
 * when it is used: a link that leaked works for minutes and only for what its owner owns.
 */
export const LINK_TTL_MS = 10 * 60 * 1000;

export interface DownloadGrant {
  userId: string;
  releaseId: number;
  trackId: number | null;
  format: DownloadFormat;
  /** Epoch milliseconds. */
  expiresAt: number;
}

const keyOf = (secret: string) => createHmac('sha256', secret).update('digital-download-links').digest();
const sign = (secret: string, payload: string) => createHmac('sha256', keyOf(secret)).update(payload).digest('base64url');

export function signDownload(secret: string, grant: DownloadGrant): string {
  const payload = Buffer.from(JSON.stringify([grant.userId, grant.releaseId, grant.trackId, grant.format, grant.expiresAt])).toString('base64url');
  return `${payload}.${sign(secret, payload)}`;
}

export type Verified = { ok: true; grant: DownloadGrant } | { ok: false; reason: 'invalid' | 'expired' };

export function verifyDownload(secrets: readonly string[], token: string, now = Date.now()): Verified {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined || token.length > 1000) return { ok: false, reason: 'invalid' };
  const given = Buffer.from(signature);
  const valid = secrets.some((secret) => {
    const expected = Buffer.from(sign(secret, payload));
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
  if (!valid) return { ok: false, reason: 'invalid' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'invalid' };
  }
  if (!Array.isArray(parsed) || parsed.length !== 5) return { ok: false, reason: 'invalid' };
  const [userId, releaseId, trackId, format, expiresAt] = parsed as unknown[];
  if (
    typeof userId !== 'string' ||
    typeof releaseId !== 'number' ||
    (trackId !== null && typeof trackId !== 'number') ||
    !DOWNLOAD_FORMATS.includes(format as DownloadFormat) ||
    typeof expiresAt !== 'number'
  ) {
    return { ok: false, reason: 'invalid' };
  }
  if (expiresAt <= now) return { ok: false, reason: 'expired' };
  return { ok: true, grant: { userId, releaseId, trackId, format: format as DownloadFormat, expiresAt } };
}
