import type { IncomingHttpHeaders } from 'node:http';
import { fromNodeHeaders } from 'better-auth/node';
import { type Config, publicUrl } from '../config.ts';
import { authSecretsOf, resignCredentials } from '../accounts/secret-rotation.ts';
import { defineArea } from '../http/area.ts';
import { createExchangedSession } from '../accounts/exchanged-session.service.ts';
import { deleteExpiredOidcModels } from './oidc.adapter.ts';
import { BACKCHANNEL_LOGOUT_QUEUE, deliverLogoutNotice, type LogoutNotice } from './logout.service.ts';
import { createOidcProvider } from './oidc.provider.ts';
import { oidcRoutes } from './oidc.routes.ts';
import type { Every, JobQueue } from '../jobs/queue.ts';
import type { Auth } from '../accounts/auth.ts';
import type { Db } from '../db/client.ts';
import type { CallerResolver } from '../accounts/auth.routes.ts';

/** What app.ts hands the oidc area. */
export interface OidcOptions {
  auth: Auth;
  config: Config;
  db: Db;
  every: Every;
  jobs: JobQueue;
  resolveCaller: CallerResolver;
}

/** Single sign-on for the sister products (decision 014). */
export const oidcArea = defineArea('oidc', async (app, { config, db, auth, jobs, resolveCaller, every }: OidcOptions) => {
  const shopUserId = async (headers: IncomingHttpHeaders) => (await resolveCaller({ headers }))?.userId ?? null;
  // Better Auth's own sign-out, called in-process: it deletes the session of the cookie and
  // gives the Set-Cookie lines that clear it.
  const signOutOfShop = async (headers: IncomingHttpHeaders) => {
    if (!headers.cookie) return [];
    const { headers: answer } = await auth.api.signOut({ headers: resignCredentials(authSecretsOf(config), fromNodeHeaders(headers)), returnHeaders: true });
    return answer.getSetCookie();
  };
  const provider = await createOidcProvider({
    db,
    publicUrl: publicUrl(config),
    authSecret: config.AUTH_SECRET,
    authSecretPrevious: config.AUTH_SECRET_PREVIOUS,
    behindProxy: config.isProduction,
    shopUserId,
    signOutOfShop,
    mintShopToken: (userId, clientId, tokenId, expiresAt, admin) => createExchangedSession(auth, userId, clientId, tokenId, expiresAt, admin),
  });
  // Logout tokens survive restarts and are retried until the sister product answers (decision 049).
  await jobs.work<LogoutNotice>(BACKCHANNEL_LOGOUT_QUEUE, async (notice) => {
    try {
      await deliverLogoutNotice(provider, notice);
    } catch (error) {
      app.log.warn({ err: error, clientId: notice.clientId }, 'back-channel logout not delivered, will be retried');
      throw error;
    }
  });
  await app.register(oidcRoutes, { provider, publicUrl: config.PUBLIC_URL, shopUserId });
  await every('oidc-cleanup', '17 * * * *', () => deleteExpiredOidcModels(db));
});
