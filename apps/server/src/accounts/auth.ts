import { betterAuth } from 'better-auth';
import { drizzleAdapter } from 'better-auth/adapters/drizzle';
import { bearer } from 'better-auth/plugins';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { authAccounts, authRateLimits, sessions, users, verifications } from '../db/schema/index.ts';
import type { Mail } from '../mail/mailer.ts';
import { passwordResetMail, verificationMail } from '../mail/templates.ts';
import { betterAuthLogger, type Logger } from '../logger.ts';

/**
 * Better Auth on our Postgres: password hashing, sessions (httpOnly SameSite cookie for
 * browsers, bearer tokens for API clients), email verification, password reset and
 * database-backed rate limits. Signup itself is the shop's own `createAccount`
 * function (see accounts.service.ts), which writes account and profile in one
 * transaction.
 */
export function publicUrl(config: Config): string {
  return config.PUBLIC_URL ?? `http://localhost:${config.PORT}`;
}

/** A session lasts 30 days and is extended, by Better Auth's getSession, once a day of use. */
export const SESSION_EXPIRES_IN_SECONDS = 60 * 60 * 24 * 30;
export const SESSION_UPDATE_AGE_SECONDS = 60 * 60 * 24;

export function createAuth(config: Config, db: Db, enqueueMail: (mail: Mail) => Promise<void>, logger?: Logger) {
  const baseURL = publicUrl(config);
  return betterAuth({
    appName: 'Street Flavor Records',
    // Its messages through the shop's logger: one format, one level (issue 13).
    ...(logger ? { logger: betterAuthLogger(logger) } : {}),
    baseURL,
    basePath: '/api/auth',
    secret: config.AUTH_SECRET,
    database: drizzleAdapter(db, {
      provider: 'pg',
      transaction: true,
      schema: { user: users, session: sessions, account: authAccounts, verification: verifications, rateLimit: authRateLimits },
    }),
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
      ipAddress: { ipAddressHeaders: config.isProduction ? ['x-forwarded-for'] : [] },
    },
    plugins: [bearer()],
  });
}

export type Auth = ReturnType<typeof createAuth>;

