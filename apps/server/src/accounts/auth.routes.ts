import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isAPIError } from 'better-auth/api';
import { fromNodeHeaders } from 'better-auth/node';
import { z } from 'zod';
import { canonicalAddress, type Config, publicUrl } from '../config.ts';
import type { Db } from '../db/client.ts';
import type { Caller } from '../functions/registry.ts';
import { CLIENT_ADDRESS_HEADER, isLoopback, requireClientAddress } from '../http/client-address.ts';
import { errorBody } from '../http/error-handler.ts';
import { AppError } from '../errors.ts';
import { escapeHtml, htmlPage } from '../http/html.ts';
import { latestDevMails } from '../mail/mail.service.ts';
import type { Mail } from '../mail/mailer.ts';
import { signInLockedMail } from '../mail/templates.ts';
import { isOpenAuthPath, isShopPath, SESSION_EXPIRES_IN_SECONDS, SESSION_UPDATE_AGE_SECONDS, type Auth } from './auth.ts';
import { authSecretsOf, resignCredentials, resignedVerificationToken, type AuthSecrets } from './secret-rotation.ts';
import { findSession, findUserByEmail, hasPortalAccess, isAdmin } from './accounts.service.ts';
import { carriesAdminPowers, isExchangedSession } from './exchanged-session.service.ts';
import {
  beginAttempt,
  endAttempt,
  isKnownDevice,
  knownDeviceCookieName,
  knownDeviceCookieValue,
  normalizedEmail,
  SIGN_IN_GUARD,
  SIGN_IN_GUARD_MESSAGES,
  useUnlockToken,
} from './sign-in-guard.service.ts';

/**
 * The headers handed to Better Auth: the client address the server computed (decision
 * 017) in its private header, and never a value of that header the client sent.
 *
 * A server-to-server call (a sister product's backend, decision 041) is told apart from a
 * browser: it carries no cookie, no Origin, no Referer and no Sec-Fetch-Site, which every
 * browser that sends Fetch Metadata sends. Node's fetch still sends `Sec-Fetch-Mode: cors`,
 * which Better Auth takes for a browser with its Origin missing (403
 * MISSING_OR_NULL_ORIGIN): for such a call the Fetch Metadata it sent is left out, so the
 * library treats it as the non-browser client it is. Anything a browser sends keeps every check.
 * During an AUTH_SECRET rotation, a session cookie or bearer token signed with an old secret
 * is re-signed with the current one first (decision 047).
 */
function authHeaders(headers: IncomingHttpHeaders, clientAddress: string | null, secrets: AuthSecrets): Headers {
  // A credential an old AUTH_SECRET signed is re-signed with the current one (decision 047).
  const result = resignCredentials(secrets, fromNodeHeaders(headers));
  result.delete(CLIENT_ADDRESS_HEADER);
  if (clientAddress !== null) result.set(CLIENT_ADDRESS_HEADER, clientAddress);
  if (isServerToServer(result)) for (const name of ['sec-fetch-mode', 'sec-fetch-dest', 'sec-fetch-user']) result.delete(name);
  return result;
}

/** No browser credential and nothing a browser adds to a write: a server's call (decision 041). */
function isServerToServer(headers: Headers): boolean {
  return !headers.has('cookie') && !headers.has('origin') && !headers.has('referer') && !headers.has('sec-fetch-site');
}

/** How many verified credentials one process remembers; the oldest is forgotten first. */
const REMEMBERED_CREDENTIALS = 10_000;

function callerOf(
  config: Config,
  user: { userId: string; email: string; emailVerified: boolean; role?: string | null },
  session: { sessionId: string; userAgent?: string | null },
): Caller | null {
  if (!user.emailVerified) return null;
  // An exchanged session has an admin's powers only with shop_admin (issue 40 item 9).
  const admin = isAdmin(config, { email: user.email, emailVerified: user.emailVerified, role: user.role ?? 'user' }) && carriesAdminPowers(session);
  return { userId: user.userId, isAdmin: admin, sessionId: session.sessionId };
}

/** Due for Better Auth's daily extension; an exchanged session (decision 049) ends with the token it came from, never. */
function extensionDue(session: { userAgent?: string | null; expiresAt: Date }): boolean {
  return !isExchangedSession(session) && session.expiresAt.getTime() - (SESSION_EXPIRES_IN_SECONDS - SESSION_UPDATE_AGE_SECONDS) * 1000 <= Date.now();
}

/** A signed-in credential's session: who it is (null when not allowed in, e.g. unverified), which session, until when. */
export interface ResolvedSession {
  caller: Caller | null;
  sessionId: string;
  expiresAt: Date;
}

/**
 * Who the session cookie or the bearer token belongs to, and its session; null when nobody valid.
 *
 * Better Auth verifies a credential (two HMACs through WebCrypto) and reads its session,
 * about 2 ms on every signed-in call. Which session a signed credential names never
 * changes, so once Better Auth has verified it this process remembers the session's token,
 * and later calls only read that session and its user (one indexed query): a signed-out,
 * revoked, reset or expired session is refused at once, in every process, and a new role
 * or email counts at once (decision 015). A session due for its daily extension goes
 * through Better Auth again, which extends it.
 */
export function sessionResolver(auth: Auth, config: Config, db: Db) {
  const verified = new Map<string, string>();

  return async (request: { headers: IncomingHttpHeaders }): Promise<ResolvedSession | null> => {
    const { authorization, cookie } = request.headers;
    // Better Auth reads the credential from these two headers only.
    if (!authorization && !cookie) return null;
    const credential = `${authorization ?? ''}\n${cookie ?? ''}`;
    const token = verified.get(credential);
    if (token) {
      const session = await findSession(db, token);
      if (!session || session.expiresAt.getTime() <= Date.now()) {
        verified.delete(credential);
        return null;
      }
      if (!extensionDue(session)) return { caller: callerOf(config, session, session), sessionId: session.sessionId, expiresAt: session.expiresAt };
    }

    const session = await betterAuthSession(auth, request.headers, authSecretsOf(config));
    if (!session) return null;
    if (!verified.has(credential) && verified.size >= REMEMBERED_CREDENTIALS) verified.delete(verified.keys().next().value!);
    verified.set(credential, session.session.token);
    const user = session.user as typeof session.user & { role?: string };
    return {
      caller: callerOf(
        config,
        { userId: user.id, email: user.email, emailVerified: user.emailVerified, role: user.role },
        { sessionId: session.session.id, userAgent: session.session.userAgent },
      ),
      sessionId: session.session.id,
      expiresAt: new Date(session.session.expiresAt),
    };
  };
}

/**
 * Better Auth's session for these request headers; null when the credential is not valid.
 * A lookup that failed (the database is down) is an outage, not "please sign in": it throws.
 */
async function betterAuthSession(auth: Auth, headers: IncomingHttpHeaders, secrets: AuthSecrets) {
  try {
    // Read without the library's extension first: it would stretch a short (exchanged) session
    // to 30 days. A long session due for its daily extension is then read again, which extends it.
    const session = await auth.api.getSession({ headers: authHeaders(headers, null, secrets), query: { disableRefresh: true } });
    if (!session || !extensionDue({ userAgent: session.session.userAgent, expiresAt: new Date(session.session.expiresAt) })) return session;
    return await auth.api.getSession({ headers: authHeaders(headers, null, secrets) });
  } catch (error) {
    if (isAPIError(error) && error.statusCode < 500) return null;
    throw error;
  }
}

export type SessionResolver = ReturnType<typeof sessionResolver>;

/** Who the credential belongs to; null when nobody valid. */
export function callerResolver(resolveSession: SessionResolver) {
  return async (request: { headers: IncomingHttpHeaders }): Promise<Caller | null> => (await resolveSession(request))?.caller ?? null;
}

export type CallerResolver = ReturnType<typeof callerResolver>;

/** The request's cookies by name (the shop registers no cookie plugin; Better Auth parses its own). */
function cookiesOf(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const split = part.indexOf('=');
    if (split > 0) cookies[part.slice(0, split).trim()] = part.slice(split + 1).trim();
  }
  return cookies;
}

export async function authRoutes(app: FastifyInstance, options: { auth: Auth; config: Config; db: Db; queueMail: (mail: Mail) => Promise<void> }) {
  const { auth, config, db, queueMail } = options;
  const secure = publicUrl(config).startsWith('https://');
  const knownDeviceCookie = (email: string) =>
    `${knownDeviceCookieName(email)}=${knownDeviceCookieValue(config.AUTH_SECRET, email)}; Path=/api/auth; Max-Age=${SIGN_IN_GUARD.knownDeviceSeconds}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
  const UNLOCK_PATH = /^\/unlock-sign-in\/([A-Za-z0-9_-]{43})$/;

  // The link in the "sign-in was slowed down" mail (decision 043). GET only shows a button:
  // mail scanners that open links must not use the one-time token; the POST unlocks and makes
  // this browser a known device of the account.
  async function unlockSignIn(request: FastifyRequest, reply: FastifyReply, token: string) {
    void reply.header('cache-control', 'no-store').type('text/html; charset=utf-8');
    if (request.method === 'GET') {
      return reply.send(
        htmlPage(
          'Unlock sign-in',
          `<h1>Unlock sign-in</h1><form method="post"><p>Signing in to your account from new devices was slowed down after many wrong passwords.</p><button type="submit">Unlock sign-in on this device</button></form>`,
          { look: 'shop' },
        ),
      );
    }
    const email = await useUnlockToken(db, token);
    if (!email)
      return reply.status(404).send(htmlPage('Unlock sign-in', '<h1>This link has expired or was used already</h1><p><a href="/login">Sign in</a></p>', { look: 'shop' }));
    return reply.status(303).header('set-cookie', knownDeviceCookie(email)).header('location', '/login').send();
  }

  // Better Auth's endpoints the shop uses (sign-in, sign-out, verify-email, password
  // reset, sign out everywhere); every other one is not found (decision 018).
  app.route({
    method: ['GET', 'POST'],
    url: '/api/auth/*',
    async handler(request, reply) {
      const url = new URL(request.url, `http://${request.headers.host ?? 'localhost'}`);
      const path = url.pathname.slice('/api/auth'.length).replace(/\/+$/, '');
      const unlock = UNLOCK_PATH.exec(path);
      if (unlock) return unlockSignIn(request, reply, unlock[1]!);
      if (!isOpenAuthPath(path)) {
        return reply
          .status(404)
          .header('cache-control', 'no-store')
          .send(errorBody('not-found', `Nothing at ${request.method} ${url.pathname}.`));
      }
      // A reset link leads back to the shop only: the request is carried out later by a job,
      // without the request's origin (decision 043), so a foreign redirect is refused here.
      const resetRedirect = path === '/request-password-reset' ? (request.body as { redirectTo?: unknown } | undefined)?.redirectTo : undefined;
      if (typeof resetRedirect === 'string' && !isShopPath(resetRedirect)) {
        return reply.status(403).header('cache-control', 'no-store').send({ code: 'INVALID_REDIRECT_URL', message: 'Invalid redirectURL' });
      }
      // Wrong passwords per account (decision 043): an unknown device's attempt is counted
      // before Better Auth checks it, and refused while the account is locked.
      const body = request.body as { email?: unknown } | undefined;
      const signInEmail = path === '/sign-in/email' && request.method === 'POST' && typeof body?.email === 'string' ? normalizedEmail(body.email) : null;
      const guarded = signInEmail !== null && !isKnownDevice([config.AUTH_SECRET, ...config.AUTH_SECRET_PREVIOUS], signInEmail, cookiesOf(request.headers.cookie));
      if (guarded) {
        const attempt = await beginAttempt(db, signInEmail);
        if (!attempt.allowed) {
          return reply
            .status(429)
            .header('cache-control', 'no-store')
            .header('retry-after', String(attempt.retryAfterSeconds))
            .send({ code: 'ACCOUNT_SIGN_IN_SLOWED', message: SIGN_IN_GUARD_MESSAGES.locked });
        }
      }
      // A verification link mailed before an AUTH_SECRET rotation still works during the overlap (decision 047).
      const verificationToken = path === '/verify-email' ? url.searchParams.get('token') : null;
      const resigned = verificationToken ? await resignedVerificationToken(authSecretsOf(config), verificationToken) : undefined;
      if (resigned) url.searchParams.set('token', resigned);
      const webRequest = new Request(url, {
        method: request.method,
        headers: authHeaders(request.headers, requireClientAddress(request), authSecretsOf(config)),
        ...(request.body !== undefined && request.method !== 'GET' ? { body: JSON.stringify(request.body) } : {}),
      });
      let response: Response;
      try {
        response = await auth.handler(webRequest);
      } catch (error) {
        // Nothing was decided about the password: the counted attempt is taken back.
        if (guarded) await endAttempt(db, signInEmail, 'unchecked').catch((cleanup: unknown) => request.log.warn({ err: cleanup }, 'could not take back a sign-in attempt'));
        throw error;
      }
      if (signInEmail !== null) await settleSignIn(signInEmail, guarded, response.status);
      void reply.status(response.status);
      response.headers.forEach((value, key) => {
        if (key !== 'set-cookie') void reply.header(key, value);
      });
      const cookies = response.headers.getSetCookie();
      if (signInEmail !== null && response.status === 200) cookies.push(knownDeviceCookie(signInEmail));
      if (cookies.length > 0) void reply.header('set-cookie', cookies);
      void reply.header('cache-control', 'no-store');
      return reply.send(response.body ? Buffer.from(await response.arrayBuffer()) : null);
    },
  });

  /** Settles a sign-in the guard counted; the attempt that locks the account mails its owner the unlock link. */
  async function settleSignIn(email: string, guarded: boolean, status: number) {
    if (!guarded) {
      // A known device proving the password clears the record all the same.
      if (status === 200) await endAttempt(db, email, 'right');
      return;
    }
    const outcome = status === 200 ? 'right' : status === 401 ? 'wrong' : 'unchecked';
    const { unlockToken } = await endAttempt(db, email, outcome);
    if (!unlockToken) return;
    const owner = await findUserByEmail(db, email);
    if (owner) await queueMail(signInLockedMail(owner.email, owner.name, `${publicUrl(config)}/api/auth/unlock-sign-in/${unlockToken}`));
  }

  /** The signed-in user as the web app needs it on every page. */
  app.get('/api/me', async (request, reply) => {
    void reply.header('cache-control', 'no-store');
    const session = await betterAuthSession(auth, request.headers, authSecretsOf(config)).catch((error: unknown) => {
      // Answering { user: null } here would sign every visitor out of the web app while the database is away.
      request.log.warn({ err: error }, 'could not read the session for /api/me');
      throw new AppError('unavailable', 'Your account could not be loaded right now. Please try again in a moment.');
    });
    if (!session || !session.user.emailVerified) return { user: null };
    const user = session.user as typeof session.user & { role?: string; username?: string; accountType?: string };
    return {
      user: {
        id: user.id,
        email: user.email,
        name: user.name,
        username: user.username ?? '',
        accountType: user.accountType ?? 'Fan',
        profileImageUrl: user.image ?? null,
        isAdmin: isAdmin(config, { email: user.email, emailVerified: user.emailVerified, role: user.role ?? 'user' }) && carriesAdminPowers(session.session),
        portalAccess: await hasPortalAccess(db, user.id),
      },
    };
  });

  // A profile link opened from the app goes back to the app (spec section 2, Login).
  const profileParams = z.object({ username: z.string().regex(/^[\p{L}\p{N}]{1,25}$/u, 'unknown profile') });
  app.get<{ Querystring: { source?: string } }>('/mydat/profile/:username', async (request, reply) => {
    const { username } = profileParams.parse(request.params);
    if (request.query.source === 'app') {
      return reply.redirect(`${config.APP_DEEP_LINK_SCHEME}://profile/${encodeURIComponent(username)}`);
    }
    return reply.redirect('/home');
  });

  if (!config.SMTP_URL && !config.isProduction) {
    app.get('/dev/mailbox', async (request, reply) => {
      // It shows password-reset links: only to this machine, judged by the socket (a header
      // proves nothing), and not through a proxy, whose own connection is local too.
      const peer = canonicalAddress(request.raw.socket?.remoteAddress ?? '');
      const proxied = request.headers['x-forwarded-for'] !== undefined || request.headers.forwarded !== undefined;
      if (peer === null || !isLoopback(peer) || proxied) {
        return reply.status(403).send(errorBody('permission-denied', 'The dev mailbox is shown only to a browser on the machine the shop runs on.'));
      }
      const mails = await latestDevMails(db, 50);
      const rows = mails
        .map((mail) => `<article><h2>${escapeHtml(mail.subject)}</h2><p>To: ${escapeHtml(mail.to)} · ${mail.sentAt.toISOString()}</p><pre>${escapeHtml(mail.text)}</pre></article>`)
        .join('<hr>');
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(htmlPage('Dev mailbox', `<h1>Dev mailbox</h1>${rows || '<p>No mail yet.</p>'}`));
    });
  }
}
