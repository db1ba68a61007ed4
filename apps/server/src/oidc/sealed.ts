import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Secrets the OpenID provider must read back in the clear (client secrets, signing
 * keys) are stored sealed: AES-256-GCM under a key derived from AUTH_SECRET, so a copy
 * of the database (a backup) does not give them away. `v1.<iv>.<tag>.<ciphertext>`.
 */
export function deriveKey(authSecret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', authSecret, 'storefront', purpose, 32));
}

/**
 * The keys of a rotation (decision 047): the first seals, every one opens. A single key is
 * a rotation-less shop.
 */
export type SealKeys = Buffer | readonly Buffer[];

const keysOf = (keys: SealKeys): readonly Buffer[] => (Buffer.isBuffer(keys) ? [keys] : keys);

export function seal(keys: SealKeys, plain: string): string {
  const key = keysOf(keys)[0];
  if (!key) throw new Error('No key to seal with.');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
}

export class SealError extends Error {}

/** The value and which key opened it (0: the current one; more: an old secret of AUTH_SECRET_PREVIOUS). */
export function unsealWithIndex(keys: SealKeys, sealed: string): { plain: string; keyIndex: number } {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || body === undefined) throw new SealError('Not a sealed value.');
  const list = keysOf(keys);
  for (const [keyIndex, key] of list.entries()) {
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return { plain: Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8'), keyIndex };
    } catch {
      // Not this key: the next one (an older secret) may open it.
    }
  }
  throw new SealError('A sealed single sign-on secret cannot be opened: neither AUTH_SECRET nor AUTH_SECRET_PREVIOUS is the one it was sealed with.');
}

export function unseal(keys: SealKeys, sealed: string): string {
  return unsealWithIndex(keys, sealed).plain;
}
