import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import helmet from 'helmet';
import type { Config } from '../config.ts';

/**
 * Helmet's security headers for our options, computed once at start-up. With static
 * options (no CSP nonces) its middleware sets the same headers on every response, so
 * running it per request only repeated the work (decision 013, 015). Helmet stays the
 * source of the values; this only records what it sets.
 */
export function securityHeaders(config: Config): Readonly<Record<string, string>> {
  // Only a shop served over https may pin browsers to https: on a plain-http PUBLIC_URL they
  // would upgrade every request to an https nobody answers (issue 13).
  const https = config.isProduction && new URL(config.PUBLIC_URL ?? 'http://localhost').protocol === 'https:';
  const middleware = helmet({
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        // React sets style attributes and the toast library injects its stylesheet.
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        connectSrc: ["'self'"],
        fontSrc: ["'self'"],
        objectSrc: ["'none'"],
        frameAncestors: ["'none'"],
        formAction: ["'self'"],
        baseUri: ["'self'"],
        upgradeInsecureRequests: https ? [] : null,
      },
    },
    hsts: https ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    crossOriginEmbedderPolicy: false,
  });
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: unknown) {
      headers[name.toLowerCase()] = String(value);
    },
    // Helmet removes X-Powered-By, which neither Fastify nor Node sets.
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  let done = false;
  middleware({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error instanceof Error ? error : new Error(String(error));
    done = true;
  });
  // Helmet's middleware is synchronous for static options; anything else would be a change
  // of the library this must not hide.
  if (!done) throw new Error('helmet did not finish synchronously: its headers cannot be computed once.');
  return Object.freeze(headers);
}

/**
 * Puts the security headers on every response: on the reply, where Node writes them with
 * the status line in one pass (on the raw response they cost Node a second pass over every
 * header). A route that takes over the raw response (`reply.hijack()`: the SSE stream, the
 * OpenID provider) writes it itself, past the reply's headers, so hijacking puts the reply's
 * headers so far on the raw response first: these, the request id, CORS. One callback-style
 * hook: an async one costs a promise per request.
 */
export function addSecurityHeaders(app: FastifyInstance, config: Config) {
  const headers = Object.entries(securityHeaders(config));
  function hijackWithReplyHeaders(this: FastifyReply): FastifyReply {
    for (const [name, value] of Object.entries(this.getHeaders())) if (value !== undefined && !this.raw.hasHeader(name)) this.raw.setHeader(name, value);
    return (Object.getPrototypeOf(this) as FastifyReply).hijack.call(this);
  }
  app.addHook('onRequest', (_request, reply, done) => {
    for (const [name, value] of headers) void reply.header(name, value);
    reply.hijack = hijackWithReplyHeaders;
    done();
  });
}
