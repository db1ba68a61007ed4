import { sql } from 'drizzle-orm';
import { check, index, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Single sign-on for the sister products (decision 014): the shop is their OpenID
 * Connect provider. Registered clients come from `npm run cli -- create-oauth-client`;
 * their secrets are kept encrypted (the provider must compare the plain secret), never
 * in the clear.
 */
export const oauthClients = pgTable(
  'oauth_client',
  {
    clientId: text('client_id').primaryKey(),
    name: text('name').notNull(),
    /** AES-256-GCM under a key derived from AUTH_SECRET (oidc/sealed.ts). */
    secretSealed: text('secret_sealed').notNull(),
    redirectUris: text('redirect_uris').array().notNull(),
    /** Scopes the client may obtain by token exchange (RFC 8693, decision 049); empty: no exchange. */
    exchangeScopes: text('exchange_scopes')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** Where the shop POSTs back-channel logout tokens (OpenID Connect Back-Channel Logout 1.0, decision 049). */
    backchannelLogoutUri: text('backchannel_logout_uri'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (table) => [check('oauth_client_has_redirect', sql`cardinality(${table.redirectUris}) >= 1`)],
);

/**
 * What the OpenID provider library stores between requests (interactions, its
 * sessions, grants, authorization codes, access and refresh tokens). The payload is
 * the library's own free-form document; the columns it is looked up by are real
 * columns with indexes.
 */
export const oidcModels = pgTable(
  'oidc_model',
  {
    model: text('model').notNull(),
    id: text('id').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    grantId: text('grant_id'),
    uid: text('uid'),
    /** The shop user a grant, token, code or provider session belongs to (revoked with a password reset). */
    accountId: text('account_id'),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    consumedAt: timestamp('consumed_at', { withTimezone: true }),
  },
  (table) => [
    primaryKey({ columns: [table.model, table.id] }),
    index('oidc_model_grant_idx').on(table.grantId),
    index('oidc_model_uid_idx').on(table.model, table.uid),
    index('oidc_model_account_idx').on(table.accountId),
    index('oidc_model_expires_idx').on(table.expiresAt),
  ],
);

/** The provider's token signing keys (private JWKs, sealed like the client secrets). */
export const oidcSigningKeys = pgTable('oidc_signing_key', {
  kid: text('kid').primaryKey(),
  privateJwkSealed: text('private_jwk_sealed').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
