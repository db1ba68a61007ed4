import { ACCOUNT_TYPES, isValidEmail, NAME_MAX, USERNAME_MAX, type AccountType } from './accounts.ts';

/**
 * What a stored profile value must look like before anything trusts it: the signup rules
 * of spec section 5 (letters, digits and spaces in a name of at most 30 characters, a
 * letters-and-digits username of at most 25, the listed account types) and safe image
 * addresses. The OpenID ID tokens the sister products trust carry only values that pass
 * (decision 018); a profile editor must check its fields with these too.
 */
export const PROFILE_IMAGE_URL_MAX = 2048;
export const DEVICE_TOKEN_MAX = 4096;

export function isValidProfileName(value: unknown): value is string {
  return typeof value === 'string' && [...value].length <= NAME_MAX && /^[\p{L}\p{N} ]+$/u.test(value) && /[\p{L}\p{N}]/u.test(value);
}

export function isValidUsername(value: unknown): value is string {
  return typeof value === 'string' && [...value].length <= USERNAME_MAX && /^[\p{L}\p{N}]+$/u.test(value);
}

export function isValidAccountType(value: unknown): value is AccountType {
  return typeof value === 'string' && (ACCOUNT_TYPES as readonly string[]).includes(value);
}

/** An https address (or http on this machine) with no credentials, at most 2,048 characters. */
export function isValidProfileImageUrl(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > PROFILE_IMAGE_URL_MAX) return false;
  if (/[\s<>"'`\\]/.test(value)) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.username || url.password) return false;
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && (url.hostname === 'localhost' || url.hostname === '127.0.0.1');
}

/** A push token as the apps send them (FCM, APNs): printable token characters only. */
export function isValidDeviceToken(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= DEVICE_TOKEN_MAX && /^[A-Za-z0-9_.:-]+$/.test(value);
}

export interface StoredProfile {
  id: string;
  name: unknown;
  username: unknown;
  accountType: unknown;
  image: unknown;
  email: unknown;
  emailVerified: boolean;
}

/**
 * The OpenID claims of a profile: each one only when its stored value passes the rules
 * above; a value that does not (stored before the rules held) is left out, never passed on.
 */
export function validatedProfileClaims(user: StoredProfile) {
  return {
    sub: user.id,
    ...(isValidProfileName(user.name) ? { name: user.name } : {}),
    ...(isValidUsername(user.username) ? { preferred_username: user.username, username: user.username } : {}),
    ...(isValidAccountType(user.accountType) ? { account_type: user.accountType } : {}),
    ...(isValidProfileImageUrl(user.image) ? { picture: user.image } : {}),
    ...(typeof user.email === 'string' && user.email.length <= 254 && isValidEmail(user.email) ? { email: user.email, email_verified: user.emailVerified } : {}),
  };
}
