import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Config } from '../config.ts';
import { isAllowedCrossOrigin } from './cors.ts';
import { errorBody } from './error-handler.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * CSRF defence in depth (SameSite=Lax cookies are the first line): a state-changing
 * request that carries a cookie must come from exactly the shop's own origin: PUBLIC_URL,
 * or, without one (development), the origin the request itself was served on (its scheme
 * and Host, so the Vite dev server, which passes the Host on, keeps working). Another
 * port on the same host is another origin, though the same site: a form posted from
 * http://127.0.0.1:8000 to the shop on :3000 is refused (issue 12, item 5). Bearer-token
 * clients send no cookie and are not concerned. Better Auth applies its own check to /api/auth.
 */
export function refuseCrossSiteWrites(config: Config) {
  const own = config.PUBLIC_URL === undefined ? null : new URL(config.PUBLIC_URL).origin;
  const trusted = (request: FastifyRequest, origin: string) =>
    (own !== null ? origin === own : request.headers.host !== undefined && origin === `${request.protocol}://${request.headers.host}`) ||
    // A sister product's web app listed in CORS_ORIGINS, on the paths CORS opens to it (decision 029).
    isAllowedCrossOrigin(config, origin, request.url);
  // Callback-style: it runs on every request, and an async hook costs a promise each time.
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (SAFE_METHODS.has(request.method) || !request.headers.cookie) return done();
    const origin = request.headers.origin;
    // Without an Origin, the browser's Sec-Fetch-Site still tells another origin of the same site.
    const fetchSite = request.headers['sec-fetch-site'];
    const foreign = origin === undefined ? fetchSite === 'cross-site' || fetchSite === 'same-site' : !trusted(request, origin);
    if (!foreign) return done();
    request.log.info({ origin, url: request.url }, 'cross-site request refused');
    // Answered here: done() is not called, so the request goes no further.
    void reply.status(403).send(errorBody('permission-denied', 'Cross-site request refused: this action must come from the shop’s own pages.'));
  };
}
