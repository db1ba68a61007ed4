import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import type { Db } from '../db/client.ts';
import type { ResolvedSession } from './auth.routes.ts';
import { findUser } from './accounts.service.ts';

/**
 * The slice of Firebase Auth's REST API that the official `firebase/auth` SDK calls for
 * `signInWithCustomToken` once `connectAuthEmulator(auth, '<shop origin>')` points it at
 * the shop (decision 035): the SDK then hands the shop token to the functions and storage
 * SDKs itself, with public API only.
 *
 * - `POST /identitytoolkit.googleapis.com/v1/accounts:signInWithCustomToken` takes the
 *   shop's signed session token as the "custom token" and answers it back as the ID token
 *   (and as the refresh token): it is what `/fn` and `/v0` accept.
 * - `POST /identitytoolkit.googleapis.com/v1/accounts:lookup` describes its account.
 * - `POST /securetoken.googleapis.com/v1/token` ("refresh") answers the same token again
 *   while its session lives, so a signed-out, revoked or expired session signs the SDK out.
 *
 * Nothing here mints a credential: every answer carries only the token the caller sent, after
 * checking it exactly as `/fn` does. Errors are in Firebase Auth's shape (`CODE : sentence`),
 * which the SDK turns into `auth/<code>` errors with the sentence as their message.
 */
const ID_TOKEN_SECONDS = 60 * 60;
const BODY_LIMIT = 8 * 1024;

const customTokenRequest = z.object({ token: z.string().min(1).max(4096), returnSecureToken: z.boolean().nullish(), tenantId: z.string().nullish() });
const lookupRequest = z.object({ idToken: z.string().min(1).max(4096) });
const refreshRequest = z.object({ grant_type: z.literal('refresh_token'), refresh_token: z.string().min(1).max(4096) });

export const FIREBASE_AUTH_MESSAGES = {
  invalidToken: 'This shop token is not valid (signed out or expired): sign in to the shop again.',
  notAllowed: 'This account cannot sign in yet: verify its email address first.',
  badRequest: 'The request is not one the shop understands.',
  notFound: 'The shop does not offer this Firebase Auth endpoint.',
  malformedToken: 'This is not a shop token: it holds a space, a line break or another character no shop token has.',
} as const;

/** A shop token is printable ASCII only (`<session token>.<signature>`, URL-encoded). */
const TOKEN_TEXT = /^[\x21-\x7e]+$/;

function authError(reply: FastifyReply, status: number, code: string, message: string) {
  return reply
    .status(status)
    .header('cache-control', 'no-store')
    .send({ error: { code: status, message: `${code} : ${message}`, errors: [{ message: code, domain: 'global', reason: 'invalid' }] } });
}

function secondsLeft(session: ResolvedSession): number {
  return Math.max(0, Math.min(ID_TOKEN_SECONDS, Math.floor((session.expiresAt.getTime() - Date.now()) / 1000)));
}

export async function firebaseAuthRoutes(
  app: FastifyInstance,
  options: { resolveSession: (request: { headers: { authorization?: string } }) => Promise<ResolvedSession | null>; db: Db },
) {
  const { resolveSession, db } = options;
  // The token endpoint is form-encoded, as Google's is; only in this plugin.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  /** The session of a shop token, or an answer in Firebase's shape saying why not. */
  async function sessionOf(token: string, reply: FastifyReply, code: string, malformedCode = code) {
    // Checked before the token goes into an Authorization header: a line break, NUL or
    // U+2028 there is an invalid header value, which would throw (a 500) instead of a refusal.
    if (!TOKEN_TEXT.test(token)) {
      await authError(reply, 400, malformedCode, FIREBASE_AUTH_MESSAGES.malformedToken);
      return null;
    }
    const session = await resolveSession({ headers: { authorization: `Bearer ${token}` } });
    if (!session) {
      await authError(reply, 400, code, FIREBASE_AUTH_MESSAGES.invalidToken);
      return null;
    }
    if (!session.caller) {
      await authError(reply, 400, 'USER_DISABLED', FIREBASE_AUTH_MESSAGES.notAllowed);
      return null;
    }
    return { session, userId: session.caller.userId };
  }

  app.post('/identitytoolkit.googleapis.com/v1/*', { bodyLimit: BODY_LIMIT }, async (request, reply) => {
    const action = (request.params as { '*': string })['*'];
    if (action === 'accounts:signInWithCustomToken') {
      const input = customTokenRequest.safeParse(request.body);
      if (!input.success) return authError(reply, 400, 'INVALID_CUSTOM_TOKEN', FIREBASE_AUTH_MESSAGES.badRequest);
      const found = await sessionOf(input.data.token, reply, 'INVALID_CUSTOM_TOKEN');
      if (!found) return reply;
      return reply.header('cache-control', 'no-store').send({
        kind: 'identitytoolkit#VerifyCustomTokenResponse',
        idToken: input.data.token,
        refreshToken: input.data.token,
        expiresIn: String(secondsLeft(found.session)),
        localId: found.userId,
        isNewUser: false,
      });
    }
    if (action === 'accounts:lookup') {
      const input = lookupRequest.safeParse(request.body);
      if (!input.success) return authError(reply, 400, 'INVALID_ID_TOKEN', FIREBASE_AUTH_MESSAGES.badRequest);
      const found = await sessionOf(input.data.idToken, reply, 'INVALID_ID_TOKEN');
      if (!found) return reply;
      const user = await findUser(db, found.userId);
      if (!user) return authError(reply, 400, 'USER_NOT_FOUND', FIREBASE_AUTH_MESSAGES.invalidToken);
      return reply.header('cache-control', 'no-store').send({
        kind: 'identitytoolkit#GetAccountInfoResponse',
        users: [
          {
            localId: user.id,
            email: user.email,
            emailVerified: user.emailVerified,
            displayName: user.username,
            // A password account: the SDK's user is not anonymous.
            providerUserInfo: [{ providerId: 'password', rawId: user.email, email: user.email, displayName: user.username }],
            createdAt: String(user.createdAt.getTime()),
            lastLoginAt: String(Date.now()),
          },
        ],
      });
    }
    return authError(reply, 404, 'NOT_FOUND', FIREBASE_AUTH_MESSAGES.notFound);
  });

  app.post('/securetoken.googleapis.com/v1/token', { bodyLimit: BODY_LIMIT }, async (request, reply) => {
    const input = refreshRequest.safeParse(request.body);
    if (!input.success) return authError(reply, 400, 'INVALID_GRANT_TYPE', FIREBASE_AUTH_MESSAGES.badRequest);
    // A session that is gone answers TOKEN_EXPIRED: the SDK then signs its user out.
    const found = await sessionOf(input.data.refresh_token, reply, 'TOKEN_EXPIRED', 'INVALID_REFRESH_TOKEN');
    if (!found) return reply;
    const token = input.data.refresh_token;
    return reply.header('cache-control', 'no-store').send({
      access_token: token,
      expires_in: String(secondsLeft(found.session)),
      token_type: 'Bearer',
      refresh_token: token,
      id_token: token,
      user_id: found.userId,
      project_id: 'storefront',
    });
  });
}
