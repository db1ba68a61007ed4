import { betterAuth } from 'better-auth';
import { drizzleAdapter } from 'better-auth/adapters/drizzle';
import { createAuthMiddleware } from 'better-auth/api';
import { z } from 'zod';
import { bearer } from 'better-auth/plugins';
import { publicUrl, type Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { CLIENT_ADDRESS_HEADER } from '../http/client-address.ts';
import { authAccounts, authRateLimits, sessions, users, verifications } from '../db/schema/index.ts';
import type { Mail } from '../mail/mailer.ts';
import { passwordResetMail, verificationMail } from '../mail/templates.ts';
import { revokeOidcForAccount } from '../oidc/oidc.adapter.ts';
import { withHashedSessionTokens } from './session-token.ts';
import { betterAuthLogger, type Logger } from '../logger.ts';

/** A session lasts 30 days and is extended, by Better Auth's getSession, once a day of use. */
export const SESSION_EXPIRES_IN_SECONDS = 60 * 60 * 24 * 30;
export const SESSION_UPDATE_AGE_SECONDS = 60 * 60 * 24;

/**
 * The Better Auth endpoints the shop uses; every other one is closed (decision 018). The
 * HTTP route forwards only these (auth.routes.ts), and `disabledPaths` closes the rest
 * inside the library as well.
 */
export const OPEN_AUTH_PATHS = [
  '/sign-in/email',
  '/sign-out',
  '/request-password-reset',
  '/reset-password',
  '/reset-password/:token',
  '/send-verification-email',
  '/verify-email',
  '/revoke-sessions',
] as const;

/** Better Auth 1.7's endpoints that stay closed (all of them but OPEN_AUTH_PATHS). */
export const CLOSED_AUTH_PATHS = [
  '/sign-up/email',
  '/sign-in/social',
  '/callback/:id',
  '/get-session',
  '/verify-password',
  '/change-email',
  '/change-password',
  '/update-session',
  '/update-user',
  '/delete-user',
  '/delete-user/callback',
  '/list-sessions',
  '/revoke-session',
  '/revoke-other-sessions',
  '/link-social',
  '/list-accounts',
  '/unlink-account',
  '/refresh-token',
  '/get-access-token',
  '/account-info',
  '/ok',
  '/error',
];

/** True when an /api/auth path (without the prefix) is one of OPEN_AUTH_PATHS. */
export function isOpenAuthPath(path: string): boolean {
  if ((OPEN_AUTH_PATHS as readonly string[]).includes(path)) return true;
  return /^\/reset-password\/[A-Za-z0-9_-]{1,128}$/.test(path);
}

/** The job that does a reset request's work after its answer (decision 043). */
export const PASSWORD_RESET_QUEUE = 'password-reset-request';
export interface PasswordResetRequest {
  email: string;
  redirectTo?: string;
}
/** Better Auth's own answer to a reset request, the same whether or not the email has an account. */
export const PASSWORD_RESET_ANSWER = { status: true, message: 'If this email exists in our system, check your email for the reset link' } as const;
const resetRequestBody = z.object({ email: z.email(), redirectTo: z.string().max(2048).optional() });
/** A path on the shop itself (`/reset-password`), never another site or a protocol-relative URL. */
export const isShopPath = (value: string) => /^\/(?![/\\])/.test(value);

/**
 * Better Auth on our Postgres: password hashing, sessions (httpOnly SameSite cookie for
 * browsers, bearer tokens for API clients), email verification, password reset and
 * database-backed rate limits. Signup itself is the shop's own `createAccount`
 * function (see accounts.service.ts), which writes account and profile in one
 * transaction.
 */
export function createAuth(
  config: Config,
  db: Db,
  enqueueMail: (mail: Mail) => Promise<void>,
  logger?: Logger,
  /** Queues a reset request (PASSWORD_RESET_QUEUE); without it, requests are handled in line. */
  deferPasswordResetRequest?: (request: PasswordResetRequest) => Promise<void>,
  /**
   * Ends the user's single sign-on and tells the sister products (oidc/logout.service.ts, decision 049);
   * without a job queue (the CLI, some tests) it only revokes.
   */
  endSingleSignOn: (userId: string) => Promise<unknown> = (userId) => revokeOidcForAccount(db, userId),
) {
  const baseURL = publicUrl(config);
  // Who a request's session cookie or bearer token belongs to, through the library's own
  // getSession (the bearer plugin included); set once the instance below exists.
  let userIdOf: (headers: Headers | undefined) => Promise<string | null> = async () => null;
  const auth = betterAuth({
    appName: 'Street Flavor Records',
    // Its messages through the shop's logger: one format, one level (issue 13).
    ...(logger ? { logger: betterAuthLogger(logger) } : {}),
    baseURL,
    basePath: '/api/auth',
    secret: config.AUTH_SECRET,
    // Session tokens are stored as SHA-256 hashes (decision 043, session-token.ts).
    database: withHashedSessionTokens(
      drizzleAdapter(db, {
        provider: 'pg',
        transaction: true,
        schema: { user: users, session: sessions, account: authAccounts, verification: verifications, rateLimit: authRateLimits },
      }),
    ),
    trustedOrigins: [baseURL, `http://127.0.0.1:${config.PORT}`, `http://localhost:${config.PORT}`],
    emailAndPassword: {
      enabled: true,
      // Signup runs through createAccount; the library's own endpoint is closed.
      disableSignUp: true,
      requireEmailVerification: true,
      minPasswordLength: 8,
      maxPasswordLength: 128,
      revokeSessionsOnPasswordReset: true,
      resetPasswordTokenExpiresIn: 60 * 60,
      // A new password ends single sign-on too: the sister products' grants and tokens go.
      onPasswordReset: async ({ user }) => {
        await endSingleSignOn(user.id);
      },
      sendResetPassword: async ({ user, url }) => enqueueMail(passwordResetMail(user.email, user.name, url)),
    },
    emailVerification: {
      sendOnSignUp: false,
      // An unverified sign-in attempt gets a fresh link (spec section 4, Login).
      sendOnSignIn: true,
      autoSignInAfterVerification: false,
      expiresIn: 60 * 60 * 24,
      sendVerificationEmail: async ({ user, url }) => enqueueMail(verificationMail(user.email, user.name, url)),
    },
    // Reset tokens are kept as SHA-256 hashes: a backup holds no live reset link. (Email
    // verification tokens are signed JWTs, never stored.)
    verification: { storeIdentifier: 'hashed' },
    disabledPaths: CLOSED_AUTH_PATHS,
    hooks: {
      // Signing out, "sign out everywhere" (and a password change that signs out the other
      // sessions) end single sign-on too, before the sessions go.
      before: createAuthMiddleware(async (ctx) => {
        // A reset request over HTTP (past the address limit and the origin and redirect
        // checks, which run before hooks) is queued and answered at once: the answer costs the
        // same whether or not the email has an account, because nothing is looked up before it
        // (issue 25, security 15; decision 043). The job calls this endpoint without a request.
        if (ctx.path === '/request-password-reset' && ctx.request && deferPasswordResetRequest) {
          // Anything else (a malformed email, a redirect off the shop) goes the library's way, to its refusal.
          const input = resetRequestBody.safeParse(ctx.body);
          if (!input.success || (input.data.redirectTo !== undefined && !isShopPath(input.data.redirectTo))) return;
          await deferPasswordResetRequest({ email: input.data.email.trim().toLowerCase(), ...(input.data.redirectTo ? { redirectTo: input.data.redirectTo } : {}) });
          return ctx.json(PASSWORD_RESET_ANSWER);
        }
        const body = ctx.body as { revokeOtherSessions?: unknown } | undefined;
        const everywhere = ctx.path === '/revoke-sessions' || ctx.path === '/revoke-other-sessions' || (ctx.path === '/change-password' && body?.revokeOtherSessions === true);
        // Signing out of the shop signs the user out of the sister products too (issue 24 item 6, decision 049).
        if (!everywhere && ctx.path !== '/sign-out') return;
        const userId = await userIdOf(ctx.headers);
        if (userId) await endSingleSignOn(userId);
      }),
    },
    user: {
      additionalFields: {
        username: { type: 'string', required: true, input: false },
        usernameLower: { type: 'string', required: true, input: false },
        accountType: { type: 'string', required: false, input: false },
        role: { type: 'string', required: false, input: false },
      },
    },
    session: {
      expiresIn: SESSION_EXPIRES_IN_SECONDS,
      updateAge: SESSION_UPDATE_AGE_SECONDS,
    },
    rateLimit: {
      enabled: true,
      storage: 'database',
      window: 60,
      max: 100,
      customRules: {
        '/sign-in/email': { window: 60, max: config.SIGNIN_RATE_LIMIT },
        '/request-password-reset': { window: 60, max: 5 },
        '/send-verification-email': { window: 60, max: 5 },
        '/reset-password': { window: 60, max: 10 },
      },
    },
    advanced: {
      useSecureCookies: baseURL.startsWith('https://'),
      defaultCookieAttributes: { httpOnly: true, sameSite: 'lax' },
      // The address the server computed (decision 017): auth.routes.ts overwrites this header
      // on every request it hands over, so a value a client sends is never read.
      ipAddress: { ipAddressHeaders: [CLIENT_ADDRESS_HEADER] },
    },
    // Bearer tokens must carry the session cookie's signature: a token read from the
    // session table (or a backup of it) is not a credential.
    plugins: [bearer({ requireSignature: true })],
  });
  userIdOf = async (headers) => {
    if (!headers) return null;
    const session = await auth.api.getSession({ headers }).catch((error: unknown) => {
      // The sessions are revoked all the same; only the sister products' sign-ins stay until they expire.
      if (logger) logger.warn({ err: error }, 'could not read the session whose sign-ins to revoke');
      else console.warn('Could not read the session whose sign-ins to revoke:', error);
      return null;
    });
    return session?.user.id ?? null;
  };
  return auth;
}

export type Auth = ReturnType<typeof createAuth>;
