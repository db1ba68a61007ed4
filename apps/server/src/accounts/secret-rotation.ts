import { createHmac, timingSafeEqual } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';

/**
 * AUTH_SECRET rotation (decision 047). Better Auth signs its cookies and bearer tokens
 * (`<token>.<HMAC-SHA256, base64>`) with one secret only: its `secrets` option rotates the
 * keys it encrypts with, not the ones it signs with. So a credential signed with an old
 * secret (AUTH_SECRET_PREVIOUS) is re-signed with AUTH_SECRET before the library sees it:
 * during the overlap nobody is signed out, and once the old secret is retired its
 * signatures are refused again. A credential no secret signed is left as it was (refused).
 */
export interface AuthSecrets {
  current: string;
  previous: readonly string[];
}

const signature = (secret: string, value: string) => createHmac('sha256', secret).update(value).digest('base64');

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * The value signed with the current secret when an old one signed it; undefined when the
 * value is not such a signed value or no old secret signed it (nothing to change).
 */
export function resignedValue(secrets: AuthSecrets, raw: string): string | undefined {
  if (secrets.previous.length === 0) return undefined;
  const value = decoded(raw);
  const split = value.lastIndexOf('.');
  if (split < 1) return undefined;
  const signed = value.slice(0, split);
  const given = value.slice(split + 1);
  if (given.length !== 44 || !given.endsWith('=')) return undefined;
  if (sameText(signature(secrets.current, signed), given)) return undefined;
  if (!secrets.previous.some((secret) => sameText(signature(secret, signed), given))) return undefined;
  return encodeURIComponent(`${signed}.${signature(secrets.current, signed)}`);
}

function resignedCookieHeader(secrets: AuthSecrets, header: string): string {
  return header
    .split(';')
    .map((part) => {
      const split = part.indexOf('=');
      if (split < 1) return part;
      const again = resignedValue(secrets, part.slice(split + 1).trim());
      return again === undefined ? part : `${part.slice(0, split)}=${again}`;
    })
    .join(';');
}

/** The request's Cookie and Authorization headers with old-secret signatures re-signed (in place). */
export function resignCredentials(secrets: AuthSecrets, headers: Headers): Headers {
  if (secrets.previous.length === 0) return headers;
  const cookie = headers.get('cookie');
  if (cookie) headers.set('cookie', resignedCookieHeader(secrets, cookie));
  const authorization = headers.get('authorization');
  const bearer = authorization ? /^bearer\s+(\S+)\s*$/i.exec(authorization) : null;
  if (bearer) {
    const again = resignedValue(secrets, bearer[1]!);
    if (again !== undefined) headers.set('authorization', `Bearer ${again}`);
  }
  return headers;
}

export function authSecretsOf(config: { AUTH_SECRET: string; AUTH_SECRET_PREVIOUS?: readonly string[] }): AuthSecrets {
  return { current: config.AUTH_SECRET, previous: config.AUTH_SECRET_PREVIOUS ?? [] };
}

const jwtKey = (secret: string) => new TextEncoder().encode(secret);

/**
 * An email verification link's token (an HS256 JWT the library signs and checks with one
 * secret) signed with the current secret when an old one signed it and it has not expired;
 * undefined otherwise (nothing to change). Its claims, expiry included, stay as they were.
 */
export async function resignedVerificationToken(secrets: AuthSecrets, token: string): Promise<string | undefined> {
  if (secrets.previous.length === 0) return undefined;
  try {
    await jwtVerify(token, jwtKey(secrets.current), { algorithms: ['HS256'] });
    return undefined;
  } catch {
    // Not the current secret's (or expired): an old secret may have signed it.
  }
  for (const secret of secrets.previous) {
    try {
      const { payload } = await jwtVerify(token, jwtKey(secret), { algorithms: ['HS256'] });
      return await new SignJWT(payload).setProtectedHeader({ alg: 'HS256' }).sign(jwtKey(secrets.current));
    } catch {
      // Not this old secret's either.
    }
  }
  return undefined;
}
