import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type Provider from 'oidc-provider';
import { z } from 'zod';
import { messagePage } from '../http/html.ts';
import { INTERACTION_PATH, OIDC_MOUNT } from './oidc.provider.ts';

const page = (title: string, message: string) => messagePage(title, message, { label: 'Back to the shop', href: '/home' });

const interactionParams = z.object({ uid: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/) });

/**
 * Mounts the OpenID provider at /oidc (discovery, authorization, token, userinfo, JWKS,
 * revocation: the library's own endpoints) and the shop's step between them: a visitor
 * a sister product sends here is signed in with the shop's session, or sent through the
 * shop's login page first (`/login?sso=<uid>` comes back here afterwards).
 */
export async function oidcRoutes(
  app: FastifyInstance,
  options: { provider: Provider; publicUrl: string | undefined; shopUserId(headers: IncomingHttpHeaders): Promise<string | null> },
) {
  const { provider, shopUserId } = options;
  const callback = provider.callback();
  // The library builds its endpoints' URLs (discovery, redirects) from the request's Host
  // and, behind a proxy, X-Forwarded-Host/-Proto, which a client chooses: they are set to
  // the issuer's own (PUBLIC_URL) before it reads them (issue 24 item 6, decision 041).
  // Without PUBLIC_URL (development only) the request's own are kept, so a browser on
  // 127.0.0.1 keeps its cookies through the flow.
  const own = options.publicUrl ? new URL(options.publicUrl) : null;

  // The library reads its own request bodies (form-encoded token requests).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));

  app.route({
    method: ['GET', 'POST'],
    url: `${OIDC_MOUNT}/*`,
    handler(request, reply) {
      void reply.hijack();
      const raw = request.raw as IncomingMessage & { originalUrl?: string };
      raw.originalUrl = raw.url;
      raw.url = raw.url!.slice(OIDC_MOUNT.length) || '/';
      if (own) {
        raw.headers.host = own.host;
        raw.headers['x-forwarded-host'] = own.host;
        raw.headers['x-forwarded-proto'] = own.protocol.slice(0, -1);
      }
      callback(raw, reply.raw);
    },
  });

  app.get(`${INTERACTION_PATH}/:uid`, async (request, reply) => {
    void reply.header('cache-control', 'no-store');
    const parsed = interactionParams.safeParse(request.params);
    const details = parsed.success
      ? await provider.interactionDetails(request.raw, reply.raw).catch((error: unknown) => {
          // Usually an expired interaction or one opened in another browser (its cookie is missing).
          request.log.warn({ err: error, uid: parsed.data.uid }, 'sign-in interaction not found');
          return null;
        })
      : null;
    if (!details || details.uid !== parsed.data?.uid) {
      return reply
        .status(400)
        .type('text/html; charset=utf-8')
        .send(page('Sign-in expired', 'This sign-in link has expired or was opened in another browser. Go back to the app and sign in again.'));
    }
    if (details.prompt.name === 'login') {
      const userId = await shopUserId(request.headers);
      if (!userId) return reply.redirect(`/login?sso=${encodeURIComponent(details.uid)}`);
      void reply.hijack();
      return provider.interactionFinished(request.raw, reply.raw, { login: { accountId: userId } }, { mergeWithLastSubmission: false });
    }
    if (details.prompt.name === 'consent') {
      // Asked for explicitly (prompt=consent, which offline_access needs): the label's own
      // products are granted what they asked for without a screen, for the shop's signed-in user.
      const userId = await shopUserId(request.headers);
      const accountId = details.session?.accountId;
      if (!userId || userId !== accountId) return reply.redirect(`/login?sso=${encodeURIComponent(details.uid)}`);
      const clientId = String(details.params.client_id);
      const existing = details.grantId ? await provider.Grant.find(details.grantId) : undefined;
      const grant = existing && existing.accountId === accountId ? existing : new provider.Grant({ accountId, clientId });
      if (typeof details.params.scope === 'string') grant.addOIDCScope(details.params.scope);
      const missingClaims = details.prompt.details.missingOIDCClaims;
      if (Array.isArray(missingClaims) && missingClaims.length > 0) grant.addOIDCClaims(missingClaims as string[]);
      const grantId = await grant.save();
      void reply.hijack();
      return provider.interactionFinished(request.raw, reply.raw, { consent: { grantId } }, { mergeWithLastSubmission: true });
    }
    // No other prompt should arrive here; if one does, the client is told, not stuck.
    void reply.hijack();
    return provider.interactionFinished(
      request.raw,
      reply.raw,
      { error: 'access_denied', error_description: `The shop cannot complete the "${details.prompt.name}" step of this sign-in.` },
      { mergeWithLastSubmission: false },
    );
  });
}
