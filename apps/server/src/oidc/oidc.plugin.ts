import type { IncomingHttpHeaders } from 'node:http';
import { publicUrl } from '../accounts/auth.ts';
import { defineArea } from '../http/area.ts';
import { deleteExpiredOidcModels } from './oidc.adapter.ts';
import { createOidcProvider } from './oidc.provider.ts';
import { oidcRoutes } from './oidc.routes.ts';

/** Single sign-on for the sister products (decision 014). */
export const oidcArea = defineArea('oidc', async (app, { config, db, resolveCaller, every }) => {
  const shopUserId = async (headers: IncomingHttpHeaders) => (await resolveCaller({ headers }))?.userId ?? null;
  const provider = await createOidcProvider({ db, publicUrl: publicUrl(config), authSecret: config.AUTH_SECRET, behindProxy: config.isProduction, shopUserId });
  await app.register(oidcRoutes, { provider, publicUrl: publicUrl(config), shopUserId });
  await every('oidc-cleanup', '17 * * * *', () => deleteExpiredOidcModels(db));
});
