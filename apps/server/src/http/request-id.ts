import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { addressMatcher } from './client-address.ts';
import { canonicalAddress } from '../config.ts';

/**
 * Request ids (issue 25 item 6, issue 24 item 8, decision 040): every answer carries
 * `X-Request-Id`, every log line of the request carries it as `requestId`, and every error
 * body names it, so a line of nginx's log, a line of ours and a sister product's bug
 * report meet on one value. The id is the one a trusted proxy (TRUSTED_PROXIES, decision
 * 017) sent, or a random UUID: unique across instances and restarts without coordination.
 */
export const REQUEST_ID_HEADER = 'x-request-id';

// What we accept from a proxy: nginx's $request_id is 32 hex digits; UUIDs, ULIDs and the
// like fit too. Nothing that could break a log line or a header.
const ACCEPTED_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** Fastify's `genReqId`: the trusted proxy's id, or a new random UUID. */
export function requestIdGenerator(trustedProxies: string[]): (request: IncomingMessage) => string {
  const isTrusted = addressMatcher(trustedProxies);
  return (request) => {
    const sent = request.headers[REQUEST_ID_HEADER];
    if (typeof sent === 'string' && ACCEPTED_ID.test(sent)) {
      const peer = request.socket?.remoteAddress;
      const canonical = peer === undefined ? null : canonicalAddress(peer);
      if (canonical !== null && isTrusted(canonical)) return sent;
    }
    return randomUUID();
  };
}

/** The id added to a JSON error body: inside `error` when there is one, at the top otherwise. */
export function withRequestId(body: unknown, requestId: string): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const record = body as Record<string, unknown>;
  const inner = record.error;
  if (inner && typeof inner === 'object' && !Array.isArray(inner)) return { ...record, error: { ...(inner as Record<string, unknown>), requestId } };
  return { ...record, requestId };
}

/**
 * Puts the id on every answer: on the reply, whose headers Node writes with the status line
 * in one pass. A header set on the raw response instead made Node merge every reply header
 * into it one setHeader at a time, each validated again (issue 38). An answer a route writes
 * itself after `reply.hijack()` (the live stream, the OpenID provider) gets it too: the
 * hijack carries the reply's headers over (security-headers.ts). And into every JSON error body, ours and the libraries' (Better
 * Auth's answers pass through as bytes): only answers of 400 and above pay for it.
 */
export function registerRequestId(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode < 400 || payload === null || payload === undefined) return done(null, payload);
    const type = reply.getHeader('content-type');
    if (typeof type !== 'string' || !type.includes('json')) return done(null, payload);
    const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
    if (text === null) return done(null, payload);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return done(null, payload);
    }
    // The length of the body as another library wrote it would now be wrong.
    void reply.removeHeader('content-length');
    done(null, JSON.stringify(withRequestId(parsed, request.id)));
  });
}
