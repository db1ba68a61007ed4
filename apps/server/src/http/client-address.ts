import net from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { canonicalAddress, LOOPBACK } from '../config.ts';
import { AppError } from '../errors.ts';

/**
 * The client's address, computed once per request the same way for every rate limit,
 * ours and Better Auth's (decision 017): the socket's peer, unless that peer is one of
 * TRUSTED_PROXIES; then X-Forwarded-For is read from the right, hop by hop, and the first
 * address that is not a trusted proxy is the client. A header a client sends is never
 * believed on its own: only what a trusted proxy appended counts.
 */

declare module 'fastify' {
  interface FastifyRequest {
    /** Null only when the socket has no address (the connection is already gone). */
    readonly clientAddress: string | null;
  }
}

/**
 * The header through which the server hands its computed address to Better Auth. The
 * server always overwrites it; a value a client sends is never read.
 */
export const CLIENT_ADDRESS_HEADER = 'x-storefront-client-address';

/** Whether a canonical address is in one of the ranges. */
export type AddressMatcher = (address: string) => boolean;

export function addressMatcher(ranges: string[]): AddressMatcher {
  if (ranges.length === 0) return () => false;
  const list = new net.BlockList();
  for (const range of ranges) {
    const [address = '', prefix = ''] = range.split('/');
    list.addSubnet(address, Number(prefix), net.isIP(address) === 4 ? 'ipv4' : 'ipv6');
  }
  return (address) => list.check(address, net.isIP(address) === 4 ? 'ipv4' : 'ipv6');
}

export const isLoopback = addressMatcher(LOOPBACK);

/**
 * The client of one request: the socket's peer, or, when that peer is a trusted proxy,
 * the rightmost X-Forwarded-For hop that is not a trusted proxy. When every hop is
 * trusted, the farthest one; when a trusted proxy passed on something that is not an
 * address, the last address known. Null only without a socket address.
 */
export function deriveClientAddress(socketAddress: string | undefined, forwardedFor: string | string[] | undefined, isTrusted: AddressMatcher): string | null {
  let client = socketAddress === undefined ? null : canonicalAddress(socketAddress);
  if (client === null || forwardedFor === undefined || !isTrusted(client)) return client;
  const hops = [forwardedFor].flat().join(',').split(',');
  for (let i = hops.length - 1; i >= 0; i -= 1) {
    const hop = hops[i]!.trim();
    if (hop === '') continue;
    const address = canonicalAddress(hop);
    if (address === null) return client;
    client = address;
    if (!isTrusted(address)) return address;
  }
  return client;
}

/**
 * The key a rate limit counts an address under: an IPv4 address as it is, an IPv6 address
 * by its /64 network (one subscriber usually holds a whole /64), as Better Auth does.
 */
export function rateLimitSubject(address: string): string {
  if (net.isIP(address) !== 6) return address;
  const [head = '', tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = address.includes('::') ? (tail ? tail.split(':') : []) : [];
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${groups.slice(0, 4).join(':')}::/64`;
}

/** The request's client address, for a rate limit: a request without one is refused, never pooled. */
export function requireClientAddress(request: FastifyRequest): string {
  const address = request.clientAddress;
  if (address === null) throw new AppError('failed-precondition', 'The address of your connection could not be determined. Please try again.');
  return address;
}

/**
 * The trust function for Fastify's `trustProxy`: X-Forwarded-Proto and -Host are believed
 * from the same proxies only. (Our code reads `request.clientAddress`, not `request.ip`.)
 */
export function trustedProxyCheck(trustedProxies: string[]): (address: string) => boolean {
  const isTrusted = addressMatcher(trustedProxies);
  return (address) => {
    const canonical = canonicalAddress(address);
    return canonical !== null && isTrusted(canonical);
  };
}

/** Gives every request its `clientAddress`, computed when read (most requests never need it). */
export function registerClientAddress(app: FastifyInstance, trustedProxies: string[]): void {
  const isTrusted = addressMatcher(trustedProxies);
  app.decorateRequest('clientAddress', {
    getter(this: FastifyRequest) {
      return deriveClientAddress(this.raw.socket?.remoteAddress, this.headers['x-forwarded-for'], isTrusted);
    },
  });
}
