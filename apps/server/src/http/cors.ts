import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Config } from '../config.ts';

/**
 * The paths the sister products' web apps call from their own origins (decision 029), and
 * the Firebase Auth endpoints of `signInWithCustomToken` (decision 035).
 */
export function isCorsPath(url: string): boolean {
  return (
    url.startsWith('/identitytoolkit.googleapis.com/v1/') ||
    url.startsWith('/securetoken.googleapis.com/v1/') ||
    url === '/fn' ||
    url.startsWith('/fn/') ||
    url === '/v0' ||
    url.startsWith('/v0/') ||
    url === '/api/live' ||
    url.startsWith('/api/live?')
  );
}

/** Response headers the storage SDK reads on a resumable upload, and the request id a sister product quotes (decision 040). */
const EXPOSED = ['x-goog-upload-url', 'x-goog-upload-status', 'x-goog-upload-size-received', 'x-goog-upload-chunk-granularity', 'content-type', 'x-request-id'].join(', ');
const METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';
const HEADER_NAMES = /^[A-Za-z0-9-]+(\s*,\s*[A-Za-z0-9-]+)*$/;

/**
 * CORS for the origins of CORS_ORIGINS, on /fn, /v0 and /api/live only: a preflight is
 * answered with what it asked for, and real responses name the origin and allow
 * credentials. Any other origin gets no CORS header at all, so the browser keeps the
 * answer from it.
 *
 * Every answer on those paths says `Vary: Origin`, the ones to requests without an Origin
 * too (decision 041): an `<img>` of a download URL sends none, and a browser that cached
 * that answer would otherwise hand it, without CORS headers, to a later fetch() of the
 * same URL from a listed origin.
 */
export function corsForAllowedOrigins(config: Config) {
  const allowed = new Set(config.CORS_ORIGINS);
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (allowed.size === 0 || !isCorsPath(request.url)) return done();
    void reply.header('vary', 'Origin');
    const origin = request.headers.origin;
    if (origin === undefined || !allowed.has(origin)) return done();
    void reply.header('access-control-allow-origin', origin).header('access-control-allow-credentials', 'true');
    const preflightMethod = request.headers['access-control-request-method'];
    if (request.method !== 'OPTIONS' || preflightMethod === undefined) {
      void reply.header('access-control-expose-headers', EXPOSED);
      return done();
    }
    const askedHeaders = request.headers['access-control-request-headers'];
    void reply.header('access-control-allow-methods', METHODS).header('access-control-max-age', '600');
    if (typeof askedHeaders === 'string' && HEADER_NAMES.test(askedHeaders)) void reply.header('access-control-allow-headers', askedHeaders);
    // Answered here: done() is not called.
    void reply.status(204).send();
  };
}

/** Whether a cookie-carrying write from `origin` is one of the listed sister products' on a CORS path. */
export function isAllowedCrossOrigin(config: Config, origin: string, url: string): boolean {
  return config.CORS_ORIGINS.includes(origin) && isCorsPath(url);
}
