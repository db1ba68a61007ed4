import { isSameSitePath } from '@storefront/domain/site-path.ts';
import { paths } from '../../lib/paths.ts';

/**
 * What other pages hand the login page through navigation state: signup asks for the
 * verify-email banner (`{ verifyEmail: true, email }`), guarded pages say where to
 * return after sign-in (`{ from: '/checkout' }`).
 */
export interface LoginState {
  verifyEmail: boolean;
  email: string;
  from: string | null;
}

function field(state: unknown, name: string): unknown {
  return typeof state === 'object' && state !== null && name in state ? (state as Record<string, unknown>)[name] : undefined;
}

/** A path on this site only: no other origin ("//evil.example", "/\\evil.example") and not the login page itself. */
function sameSitePath(value: unknown): string | null {
  if (!isSameSitePath(value)) return null;
  if (value === paths.login || value.startsWith(`${paths.login}?`)) return null;
  return value;
}

export function readLoginState(state: unknown): LoginState {
  const email = field(state, 'email');
  return {
    verifyEmail: field(state, 'verifyEmail') === true,
    email: typeof email === 'string' ? email : '',
    from: sameSitePath(field(state, 'from')),
  };
}

/**
 * A sister product's sign-in step to go back to after login (`/login?sso=<uid>`, sent by
 * the server's single sign-on): always a path of this site's sign-in step, never a URL
 * taken from the query as it is.
 */
export function ssoReturnPath(searchParams: URLSearchParams): string | null {
  const uid = searchParams.get('sso');
  return uid && /^[A-Za-z0-9_-]{1,64}$/.test(uid) ? `/sso/interaction/${uid}` : null;
}

/** Where a signed-in visitor goes from the login page (spec section 4, Login). */
export const AFTER_LOGIN_PATH = paths.shop;
