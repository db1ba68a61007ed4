import type { SignupForm } from '@storefront/domain/accounts.ts';
import type { FunctionsClient } from './callable.ts';

/**
 * The account calls of our auth service: signup (our `createAccount` function) and the
 * session endpoints under /api/auth. Browsers carry the session in an httpOnly cookie;
 * other clients keep the bearer token that sign-in returns.
 */
export interface CurrentUser {
  id: string;
  email: string;
  name: string;
  username: string;
  accountType: string;
  profileImageUrl: string | null;
  isAdmin: boolean;
  portalAccess: boolean;
}

export class AuthError extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'AuthError';
    this.status = status;
    this.code = code;
  }
}

export interface AuthClientOptions {
  baseUrl?: string;
  functions: FunctionsClient;
  fetch?: typeof fetch;
  /** Bearer token for non-browser clients. */
  getAuthToken?: () => string | null | undefined;
}

export function createAuthClient(options: AuthClientOptions) {
  const baseUrl = (options.baseUrl ?? '').replace(/\/$/, '');
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);

  async function post<T>(path: string, body: unknown): Promise<{ data: T; response: Response }> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    const token = options.getAuthToken?.();
    if (token) headers.authorization = `Bearer ${token}`;
    const response = await fetchImpl(`${baseUrl}/api/auth${path}`, {
      method: 'POST',
      headers,
      credentials: 'include',
      body: JSON.stringify(body ?? {}),
    });
    const data = (await response.json().catch(() => null)) as (T & { code?: string; message?: string }) | null;
    if (!response.ok) {
      throw new AuthError(response.status, data?.code ?? 'UNKNOWN', data?.message ?? 'Something went wrong. Please try again.');
    }
    return { data: data as T, response };
  }

  return {
    async me(): Promise<CurrentUser | null> {
      const headers: Record<string, string> = {};
      const token = options.getAuthToken?.();
      if (token) headers.authorization = `Bearer ${token}`;
      const response = await fetchImpl(`${baseUrl}/api/me`, { credentials: 'include', headers });
      if (!response.ok) throw new AuthError(response.status, 'UNKNOWN', 'Could not load your account.');
      return ((await response.json()) as { user: CurrentUser | null }).user;
    },
    signUp(form: SignupForm) {
      return options.functions.call('createAccount', form);
    },
    /** Resolves with the bearer token; rejects with code EMAIL_NOT_VERIFIED for unverified accounts. */
    async signIn(email: string, password: string): Promise<{ token: string | null }> {
      const { response } = await post('/sign-in/email', { email: email.trim(), password, callbackURL: '/login?verified=1' });
      return { token: response.headers.get('set-auth-token') };
    },
    async signOut(): Promise<void> {
      await post('/sign-out', {});
    },
    /** Ends every session of this user, and the sister products' single sign-on tokens. */
    async signOutEverywhere(): Promise<void> {
      await post('/revoke-sessions', {});
    },
    async requestPasswordReset(email: string): Promise<void> {
      await post('/request-password-reset', { email: email.trim(), redirectTo: '/reset-password' });
    },
    async resetPassword(token: string, newPassword: string): Promise<void> {
      await post('/reset-password', { token, newPassword });
    },
    async sendVerificationEmail(email: string): Promise<void> {
      await post('/send-verification-email', { email: email.trim(), callbackURL: '/login?verified=1' });
    },
  };
}

export type AuthClient = ReturnType<typeof createAuthClient>;
