import { randomBytes } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../db/client.ts';
import { oauthClients } from '../db/schema/index.ts';
import { SealError, seal, unseal, type SealKeys } from './sealed.ts';

/**
 * The sister products registered as single sign-on clients. Each is one of the label's
 * own products, so its users are signed in without a consent screen (decision 014).
 */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'blob:']);

/**
 * Where a client may receive its codes: https anywhere; http on this machine only
 * (development); an app's own scheme (`spnmusic://callback`) for the mobile apps.
 */
export const redirectUriSchema = z.string().transform((value, context) => {
  const url = URL.parse(value);
  const problem = !url
    ? 'is not an absolute URL'
    : url.hash || value.includes('#')
      ? 'must not have a fragment (#...)'
      : url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)
        ? 'must use https (http only for localhost or 127.0.0.1)'
        : FORBIDDEN_SCHEMES.has(url.protocol)
          ? `must not use the ${url.protocol} scheme`
          : null;
  if (problem) {
    context.addIssue({ code: 'custom', message: `The redirect URI ${JSON.stringify(value)} ${problem}.` });
    return z.NEVER;
  }
  return value;
});

/** RFC 8693's grant type and the one token type the shop exchanges (decision 049). */
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
/**
 * The scopes a client may be allowed to obtain by token exchange. `shop_api`: a token the
 * shop's functions (`/fn`), storage and Firebase Auth endpoints accept, as the signed-in user,
 * without the powers of an admin. `shop_admin` (issue 40 item 9): an admin's powers too, only
 * for a client registered as first-party (`create-oauth-client --first-party`), and only when
 * the user's own sign-in at that client granted `shop_admin`.
 */
export const EXCHANGE_SCOPES = ['shop_api', 'shop_admin'] as const;
export type ExchangeScope = (typeof EXCHANGE_SCOPES)[number];
export const ADMIN_SCOPE = 'shop_admin';
export const OAUTH_CLIENT_MESSAGES = {
  adminNeedsFirstParty: `Only a first-party client (--first-party) may be given the ${ADMIN_SCOPE} scope.`,
};

/**
 * Where the shop POSTs a client's logout tokens: https, or http on this machine only
 * (development). It is the shop's server that calls it, so no app scheme.
 */
export const backchannelLogoutUriSchema = z.string().transform((value, context) => {
  const url = URL.parse(value);
  const problem = !url
    ? 'is not an absolute URL'
    : url.hash || value.includes('#')
      ? 'must not have a fragment (#...)'
      : url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))
        ? null
        : 'must use https (http only for localhost or 127.0.0.1)';
  if (problem) {
    context.addIssue({ code: 'custom', message: `The back-channel logout URI ${JSON.stringify(value)} ${problem}.` });
    return z.NEVER;
  }
  return value;
});

const clientInput = z.object({
  name: z.string().trim().min(1, 'The client needs a name.').max(100, 'The client name is too long (100 characters at most).'),
  redirectUris: z.array(redirectUriSchema).min(1, 'The client needs at least one redirect URI.').max(10),
  exchangeScopes: z
    .array(z.enum(EXCHANGE_SCOPES, { error: `A token-exchange scope is one of: ${EXCHANGE_SCOPES.join(', ')}.` }))
    .max(EXCHANGE_SCOPES.length)
    .default([]),
  backchannelLogoutUri: backchannelLogoutUriSchema.optional(),
  /** One of the label's own products, trusted with admin powers (issue 40 item 9). */
  firstParty: z.boolean().default(false),
});

export interface OAuthClientMetadata {
  client_id: string;
  client_secret: string;
  client_name: string;
  redirect_uris: string[];
  application_type: 'web' | 'native';
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: 'client_secret_basic' | 'client_secret_post';
  post_logout_redirect_uris: string[];
  backchannel_logout_uri?: string;
  backchannel_logout_session_required?: boolean;
}

const isWebUri = (uri: string) => uri.startsWith('https:') || uri.startsWith('http:');

/** Registers a client; the secret is returned only now (it is kept sealed). */
export async function createOAuthClient(db: Db, sealKey: SealKeys, input: z.input<typeof clientInput>) {
  const { name, redirectUris, exchangeScopes, backchannelLogoutUri, firstParty } = clientInput.parse(input);
  if (exchangeScopes.includes(ADMIN_SCOPE) && !firstParty) throw new Error(OAUTH_CLIENT_MESSAGES.adminNeedsFirstParty);
  const clientId = `sfc_${randomBytes(9).toString('base64url')}`;
  const clientSecret = randomBytes(32).toString('base64url');
  const scopes = [...new Set(exchangeScopes)];
  await db
    .insert(oauthClients)
    .values({ clientId, name, redirectUris, exchangeScopes: scopes, backchannelLogoutUri: backchannelLogoutUri ?? null, secretSealed: seal(sealKey, clientSecret) });
  return { clientId, clientSecret, name, redirectUris, exchangeScopes: scopes, backchannelLogoutUri: backchannelLogoutUri ?? null };
}

/** The scopes a live client may obtain by token exchange (none for an unknown or revoked one). */
export async function exchangeScopesOf(db: Db, clientId: string): Promise<string[]> {
  const [row] = await db
    .select({ scopes: oauthClients.exchangeScopes })
    .from(oauthClients)
    .where(and(eq(oauthClients.clientId, clientId), isNull(oauthClients.revokedAt)));
  return row?.scopes ?? [];
}

/** Revokes a client at once: its sign-ins and token requests are refused from now on. */
export async function revokeOAuthClient(db: Db, clientId: string): Promise<boolean> {
  const rows = await db
    .update(oauthClients)
    .set({ revokedAt: new Date() })
    .where(and(eq(oauthClients.clientId, clientId), isNull(oauthClients.revokedAt)))
    .returning({ clientId: oauthClients.clientId });
  return rows.length > 0;
}

/** A live client as the OpenID provider library describes clients; undefined when unknown or revoked. */
export async function findOAuthClient(db: Db, sealKey: SealKeys, clientId: string): Promise<OAuthClientMetadata | undefined> {
  const [row] = await db.select().from(oauthClients).where(eq(oauthClients.clientId, clientId));
  if (!row || row.revokedAt) return undefined;
  let secret: string;
  try {
    secret = unseal(sealKey, row.secretSealed);
  } catch (error) {
    // Registered under another AUTH_SECRET (it was rotated): register the client again.
    if (error instanceof SealError) return undefined;
    throw error;
  }
  return {
    client_id: row.clientId,
    client_secret: secret,
    client_name: row.name,
    redirect_uris: row.redirectUris,
    // A custom scheme makes it a native (mobile) app, with the stricter native rules.
    application_type: row.redirectUris.every(isWebUri) ? 'web' : 'native',
    // Token exchange only for a client allowed at least one exchange scope (decision 049).
    grant_types: ['authorization_code', 'refresh_token', ...(row.exchangeScopes.length > 0 ? [TOKEN_EXCHANGE_GRANT] : [])],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
    // RP-initiated logout may come back to any of the client's registered redirect URIs (decision 041).
    post_logout_redirect_uris: row.redirectUris,
    // Back-channel logout (decision 049): ID tokens carry `sid`, and so do logout tokens when the shop knows one.
    ...(row.backchannelLogoutUri ? { backchannel_logout_uri: row.backchannelLogoutUri, backchannel_logout_session_required: true } : {}),
  };
}
