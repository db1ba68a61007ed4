import type { IncomingHttpHeaders } from 'node:http';
import { validatedProfileClaims } from '@storefront/domain/profile.ts';
import Provider, { interactionPolicy, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { Db } from '../db/client.ts';
import { findUser } from '../accounts/accounts.service.ts';
import { escapeHtml, htmlPage } from '../http/html.ts';
import { postgresAdapter } from './oidc.adapter.ts';
import { registerTokenExchange } from './oidc.exchange.ts';
import { ADMIN_SCOPE, exchangeScopesOf } from './oidc.clients.ts';
import { loadSigningKeys } from './oidc.keys.ts';
import { deriveKey, type SealKeys } from './sealed.ts';

/** Where the provider lives under the shop's origin: the issuer is `<PUBLIC_URL>/oidc`. */
export const OIDC_MOUNT = '/oidc';
/** The shop's own page that signs a visitor in for a sister product (oidc.routes.ts). */
export const INTERACTION_PATH = '/sso/interaction';

export interface OidcOptions {
  db: Db;
  publicUrl: string;
  authSecret: string;
  /** Old secrets during a rotation (decision 047): their cookies and sealed secrets are still read. */
  authSecretPrevious?: readonly string[];
  /** Behind a TLS-terminating proxy (production): trust X-Forwarded-Proto for cookies and URLs. */
  behindProxy: boolean;
  /** The signed-in, verified shop user of a request, from its session cookie. */
  shopUserId(headers: IncomingHttpHeaders): Promise<string | null>;
  /** Ends the shop session of a request's cookie; the Set-Cookie lines that clear it. */
  signOutOfShop(headers: IncomingHttpHeaders): Promise<string[]>;
  /** Token exchange (decision 049): a shop token for a user, ending at `expiresAt`. */
  mintShopToken(userId: string, clientId: string, tokenId: string, expiresAt: Date, admin: boolean): Promise<string>;
}

/**
 * The shop's CSP says `form-action 'self'`, and browsers apply it to the redirects that
 * follow a form too: the sign-out form, answered with a redirect to the client's
 * registered (already checked) post-logout URI, may go to that URI's origin or scheme.
 */
function allowFormRedirectTo(ctx: KoaContextWithOIDC, target: unknown) {
  const policy = ctx.response.get('content-security-policy');
  const url = typeof target === 'string' ? URL.parse(target) : null;
  if (!policy || !url) return;
  const source = url.origin !== 'null' ? url.origin : url.protocol;
  ctx.set('content-security-policy', policy.replace("form-action 'self'", `form-action 'self' ${source}`));
}

/** The field of the shop's sign-out page that says the visitor confirmed there (decision 041). */
const SHOP_SIGN_OUT_FIELD = 'shop_sign_out';

/** The keys sealed single sign-on secrets are opened with: AUTH_SECRET's first (it seals), then the old ones (decision 047). */
export function sealKeyFor(authSecret: string, previous: readonly string[] = []): SealKeys {
  return [authSecret, ...previous].map((secret) => deriveKey(secret, 'oidc-sealed-secrets'));
}

/**
 * The OpenID Connect provider the sister products sign their users in with (decision
 * 014): the authorization-code flow with PKCE, ID tokens signed RS256 and published at
 * `/oidc/jwks`, claims with the user id (`sub`), username and account type. Signing in
 * always follows the shop's own session: signed out of the shop is signed out here.
 */
export async function createOidcProvider(options: OidcOptions): Promise<Provider> {
  const { db } = options;
  const sealKey = sealKeyFor(options.authSecret, options.authSecretPrevious);

  const policy = interactionPolicy.base();
  // Before the library's own checks: the provider's session must be the shop's session
  // of this moment, or the visitor goes back through the shop's sign-in.
  policy.get('login')!.checks.add(
    new interactionPolicy.Check('shop_session', 'End-User must be signed in to the shop', 'login_required', async (ctx) => {
      const userId = await options.shopUserId(ctx.req.headers);
      return userId !== null && userId === ctx.oidc.session?.accountId ? interactionPolicy.Check.NO_NEED_TO_PROMPT : interactionPolicy.Check.REQUEST_PROMPT;
    }),
    0,
  );

  const configuration: Configuration = {
    adapter: postgresAdapter(db, sealKey),
    jwks: { keys: await loadSigningKeys(db, sealKey) },
    // The first key signs the provider's cookies; the old secrets' keys still verify them (decision 047).
    cookies: { keys: [options.authSecret, ...(options.authSecretPrevious ?? [])].map((secret) => deriveKey(secret, 'oidc-cookies').toString('base64url')) },
    // offline_access (with prompt=consent, as OpenID Connect asks) gives a refresh token:
    // mobile apps keep their users signed in (issue 19 item 7, decision 029).
    // shop_admin (issue 40 item 9): granted only to a first-party client that may exchange for it.
    scopes: ['openid', 'profile', 'email', 'offline_access', ADMIN_SCOPE],
    // The authorization-code flow only: no implicit (token in the URL) response types.
    responseTypes: ['code'],
    claims: {
      openid: ['sub'],
      profile: ['name', 'preferred_username', 'username', 'account_type', 'picture'],
      email: ['email', 'email_verified'],
    },
    // The ID token itself carries the profile claims, not only the userinfo answer.
    conformIdTokenClaims: false,
    async findAccount(_ctx, id) {
      const user = await findUser(db, id);
      if (!user || !user.emailVerified) return undefined;
      return {
        accountId: user.id,
        // Only values that pass the profile rules reach the tokens the sister products trust.
        claims: () => validatedProfileClaims(user),
      };
    },
    // Every registered client is one of the label's own products: no consent screen.
    // The grant covers what the client asked for, within the scopes above.
    async loadExistingGrant(ctx: KoaContextWithOIDC) {
      const { provider, session, client } = ctx.oidc;
      if (!session?.accountId || !client) return undefined;
      const grantId = ctx.oidc.result?.consent?.grantId ?? session.grantIdFor(client.clientId);
      const existing = grantId ? await provider.Grant.find(grantId) : undefined;
      const grant = existing && existing.accountId === session.accountId ? existing : new provider.Grant({ clientId: client.clientId, accountId: session.accountId });
      // shop_admin only for a client allowed to exchange for it (a first-party client, issue 40 item 9).
      const adminAllowed = (await exchangeScopesOf(db, client.clientId)).includes(ADMIN_SCOPE);
      grant.addOIDCScope([...ctx.oidc.requestParamScopes].filter((scope) => scope !== ADMIN_SCOPE || adminAllowed).join(' '));
      const claims = Object.keys(ctx.oidc.claims.id_token ?? {}).concat(Object.keys(ctx.oidc.claims.userinfo ?? {}));
      if (claims.length > 0) grant.addOIDCClaims(claims);
      await grant.save();
      return grant;
    },
    interactions: {
      policy,
      url: (_ctx, interaction) => `${INTERACTION_PATH}/${interaction.uid}`,
    },
    features: {
      devInteractions: { enabled: false },
      revocation: { enabled: true },
      userinfo: { enabled: true },
      // RP-initiated logout (issue 24 item 6, decision 041): a sister product sends its user to
      // `end_session_endpoint`; the shop asks, then ends single sign-on, the grants of this
      // browser's sign-ins without offline_access (the library's rule) and the shop session
      // itself (else the next sign-in would follow the shop session without asking).
      rpInitiatedLogout: {
        enabled: true,
        async logoutSource(ctx, form) {
          const client = ctx.oidc.client?.clientName ?? null;
          allowFormRedirectTo(ctx, ctx.oidc.params?.post_logout_redirect_uri);
          ctx.type = 'html';
          ctx.body = htmlPage(
            'Sign out',
            `<main><h1>Sign out of Street Flavor Records?</h1><p>${escapeHtml(client ? `${client} asks to sign you out.` : 'An app asks to sign you out.')} ` +
              `You will be signed out of the shop too.</p>` +
              form.replace('</form>', `<input type="hidden" name="${SHOP_SIGN_OUT_FIELD}" value="yes"/></form>`) +
              `<p><button autofocus type="submit" form="op.logoutForm" value="yes" name="logout">Sign out</button> ` +
              `<button type="submit" form="op.logoutForm">Stay signed in</button></p></main>`,
            { look: 'shop' },
          );
        },
        async postLogoutSuccessSource(ctx) {
          ctx.type = 'html';
          ctx.body = htmlPage('Signed out', `<main><h1>You are signed out</h1><p><a href="/home">Back to the shop</a></p></main>`, { look: 'shop' });
        },
      },
      // Back-channel logout (OpenID Connect Back-Channel Logout 1.0, decision 049): clients
      // registered with a URI get a logout token when the user signs out of the shop, changes
      // or resets the password or deletes the account (oidc/logout.service.ts, a job with retries).
      // The library's own one-shot send after an RP-initiated logout stays; the shop sign-out
      // that follows it queues the durable one.
      backchannelLogout: { enabled: true },
      // On by default in the library, never documented nor tested here: not advertised,
      // not accepted (issue 24 item 6, decision 041).
      pushedAuthorizationRequests: { enabled: false },
      dPoP: { enabled: false },
    },
    // Every client is registered with client_secret_basic (oidc.clients.ts): the one
    // method the README documents and the conformance test uses.
    clientAuthMethods: ['client_secret_basic'],
    pkce: { required: () => true },
    // Every refresh gives a new refresh token and consumes the old one; presenting a used
    // one again revokes the whole grant (the library's reuse detection).
    rotateRefreshToken: true,
    clientBasedCORS: () => false,
    ttl: {
      AuthorizationCode: 60,
      AccessToken: 60 * 60,
      IdToken: 60 * 60,
      Interaction: 10 * 60,
      Session: 24 * 60 * 60,
      Grant: 30 * 24 * 60 * 60,
      RefreshToken: 30 * 24 * 60 * 60,
    },
    async renderError(ctx, out) {
      const message = out.error_description ?? out.error;
      ctx.type = 'html';
      ctx.body = htmlPage('Sign-in failed', `<main><h1>Sign-in could not be completed</h1><p>${escapeHtml(String(message))}</p><p><a href="/home">Back to the shop</a></p></main>`);
    },
  };

  const provider = new Provider(`${options.publicUrl}${OIDC_MOUNT}`, configuration);
  provider.proxy = options.behindProxy;
  registerTokenExchange(provider, { db, shopOrigin: new URL(options.publicUrl).origin, mintShopToken: options.mintShopToken });
  provider.use(async (ctx, next) => {
    await next();
    // Confirmed on the shop's own page (its field; the library's self-posting form, sent when
    // this browser has no single sign-on session, lacks it): the shop session ends too.
    const body = ctx.oidc?.body as Record<string, unknown> | undefined;
    if (ctx.oidc?.route === 'end_session_confirm' && ctx.status === 303 && body?.logout === 'yes' && body[SHOP_SIGN_OUT_FIELD] === 'yes') {
      for (const line of await options.signOutOfShop(ctx.req.headers)) ctx.append('set-cookie', line);
    }
  });
  return provider;
}
