import type Provider from 'oidc-provider';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { Db } from '../db/client.ts';
import { findUser } from '../accounts/accounts.service.ts';
import { ACCESS_TOKEN_TYPE, ADMIN_SCOPE, exchangeScopesOf, TOKEN_EXCHANGE_GRANT } from './oidc.clients.ts';

export interface TokenExchangeOptions {
  db: Db;
  /** The shop's origin (PUBLIC_URL's): the one `audience` or `resource` an exchanged token may name. */
  shopOrigin: string;
  /** A shop token (what `/fn`, storage and signInWithCustomToken accept) for this user, ending at `expiresAt`. */
  /** `admin`: the session may use the user's admin powers (shop_admin was granted and asked for). */
  mintShopToken(userId: string, clientId: string, tokenId: string, expiresAt: Date, admin: boolean): Promise<string>;
}

const PARAMETERS = ['subject_token', 'subject_token_type', 'requested_token_type', 'scope', 'audience', 'resource', 'actor_token', 'actor_token_type'];

/** One value of a parameter (the library gives arrays for repeated ones, which are refused). */
function single(ctx: KoaContextWithOIDC, name: string): string | undefined {
  const value = (ctx.oidc.params as Record<string, unknown>)[name];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new errors.InvalidRequest(`${name} must be given once`);
  return value;
}

/**
 * OAuth 2.0 Token Exchange (RFC 8693) at the token endpoint (issue 24 item 5, decision 049):
 * a sister product's server trades its user's single sign-on access token for a shop token
 * of a scope its client is allowed (`shop_api`).
 *
 * The library has authenticated the client (client_secret_basic) and checked that its
 * grant types include this one (only clients registered with an exchange scope have it)
 * before this runs. Here: the subject token must be a live access token of the shop (not
 * expired, not revoked: the library's lookup reads only live rows) issued to this same
 * client, for the userinfo audience (no resource), with `openid`, on a live grant of a
 * verified account. No delegation (`actor_token`), and the issued token is for the shop alone.
 */
export function registerTokenExchange(provider: Provider, options: TokenExchangeOptions) {
  provider.registerGrantType(
    TOKEN_EXCHANGE_GRANT,
    async (ctx: KoaContextWithOIDC) => {
      const { client } = ctx.oidc;
      // The token endpoint authenticated the client before any grant handler runs.
      if (!client) throw new errors.InvalidClient('client authentication failed');
      const subjectToken = single(ctx, 'subject_token');
      const subjectTokenType = single(ctx, 'subject_token_type');
      if (!subjectToken) throw new errors.InvalidRequest('missing required parameter: subject_token');
      if (subjectTokenType !== ACCESS_TOKEN_TYPE) throw new errors.InvalidRequest(`subject_token_type must be ${ACCESS_TOKEN_TYPE}`);
      if (single(ctx, 'actor_token') || single(ctx, 'actor_token_type')) throw new errors.InvalidRequest('delegation (actor_token) is not supported');
      const requested = single(ctx, 'requested_token_type');
      if (requested && requested !== ACCESS_TOKEN_TYPE) throw new errors.InvalidRequest(`requested_token_type must be ${ACCESS_TOKEN_TYPE}`);
      for (const name of ['audience', 'resource']) {
        const target = single(ctx, name);
        if (target && target.replace(/\/+$/, '') !== options.shopOrigin) throw new errors.InvalidTarget(`the shop issues tokens for ${options.shopOrigin} only`);
      }

      // Only live rows are read: an expired, revoked or unknown token is not found.
      const token = await provider.AccessToken.find(subjectToken);
      if (!token || token.isExpired || token.exp === undefined) throw new errors.InvalidRequest('subject_token is not an active access token of the shop');

      // Scopes: what the client asked for (default: all it is allowed, shop_admin only when the
      // user granted it), each one allowed to it; shop_admin only as far as the user's sign-in
      // granted it (issue 40 item 9: an openid-only sign-in gives no admin powers).
      const allowed = await exchangeScopesOf(options.db, client.clientId);
      const granted = (scope: string) => scope !== ADMIN_SCOPE || token.scopes.has(ADMIN_SCOPE);
      const asked = single(ctx, 'scope')?.split(' ').filter(Boolean) ?? allowed.filter(granted);
      const refused = asked.filter((scope) => !allowed.includes(scope));
      if (asked.length === 0 || refused.length > 0) throw new errors.InvalidScope('requested scope is not allowed for this client', refused.join(' '));
      if (!asked.every(granted)) throw new errors.InvalidScope(`the user's sign-in did not grant ${ADMIN_SCOPE}`, ADMIN_SCOPE);
      // Tokens are exchanged only by the client they were issued to: the shop's access tokens
      // name no other audience (decision 049).
      if (token.clientId !== client.clientId) throw new errors.InvalidRequest('subject_token was issued to another client');
      if (token.aud !== undefined || !token.scopes.has('openid')) throw new errors.InvalidRequest('subject_token is not a single sign-on access token');
      const grant = token.grantId ? await provider.Grant.find(token.grantId) : undefined;
      if (!grant?.accountId || grant.clientId !== client.clientId || grant.accountId !== token.accountId)
        throw new errors.InvalidRequest('subject_token is not an active access token of the shop');
      const user = await findUser(options.db, grant.accountId);
      if (!user || !user.emailVerified) throw new errors.InvalidRequest('subject_token belongs to an account that cannot sign in');

      const { exp } = token;
      const expiresAt = new Date(exp * 1000);
      const shopToken = await options.mintShopToken(user.id, client.clientId, token.jti, expiresAt, asked.includes(ADMIN_SCOPE));
      ctx.body = {
        access_token: shopToken,
        issued_token_type: ACCESS_TOKEN_TYPE,
        token_type: 'Bearer',
        expires_in: Math.max(0, exp - Math.floor(Date.now() / 1000)),
        scope: [...new Set(asked)].join(' '),
      };
    },
    PARAMETERS,
  );
}
