import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { publicUrl } from '../accounts/auth.ts';
import type { Config } from '../config.ts';
import { errorBody } from './error-handler.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * CSRF defence in depth (SameSite=Lax cookies are the first line): a state-changing
 * request that carries a cookie must come from the shop's own origin, or, outside
 * production, from a page on this machine (the Vite dev server). Bearer-token clients
 * send no cookie and are not concerned. Better Auth applies the same rule to /api/auth.
 */
export function refuseCrossSiteWrites(config: Config) {
  const own = new URL(publicUrl(config)).origin;
  const trusted = (origin: string) => {
    if (origin === own) return true;
    if (config.isProduction) return false;
    try {
      return LOCAL_HOSTS.has(new URL(origin).hostname);
    } catch {
      return false;
    }
  };
  // Callback-style: it runs on every request, and an async hook costs a promise each time.
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (SAFE_METHODS.has(request.method) || !request.headers.cookie) return done();
    const origin = request.headers.origin;
    const foreign = origin === undefined ? request.headers['sec-fetch-site'] === 'cross-site' : !trusted(origin);
    if (!foreign) return done();
    request.log.info({ origin, url: request.url }, 'cross-site request refused');
    // Answered here: done() is not called, so the request goes no further.
    void reply.status(403).send(errorBody('permission-denied', 'Cross-site request refused: this action must come from the shop’s own pages.'));
  };
}
