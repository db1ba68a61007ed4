import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Secrets the OpenID provider must read back in the clear (client secrets, signing
 * keys) are stored sealed: AES-256-GCM under a key derived from AUTH_SECRET, so a copy
 * of the database (a backup) does not give them away. `v1.<iv>.<tag>.<ciphertext>`.
 */
export function deriveKey(authSecret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', authSecret, 'storefront', purpose, 32));
}

export function seal(key: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
}

export class SealError extends Error {}

export function unseal(key: Buffer, sealed: string): string {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || body === undefined) throw new SealError('Not a sealed value.');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new SealError('A sealed single sign-on secret cannot be opened: AUTH_SECRET is not the one it was sealed with.');
  }
}
