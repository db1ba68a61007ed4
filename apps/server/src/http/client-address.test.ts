import { describe, expect, it } from 'vitest';
import type { FastifyRequest } from 'fastify';
import { addressMatcher, deriveClientAddress, isLoopback, rateLimitSubject, requireClientAddress } from './client-address.ts';
import { canonicalAddress, parseTrustedProxies } from '../config.ts';
import { AppError } from '../errors.ts';

const ranges = (...entries: string[]) => {
  const parsed = parseTrustedProxies(entries);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed.ranges;
};

describe('canonicalAddress', () => {
  it.each<[string, string | null]>([
    ['192.0.2.1', '192.0.2.1'],
    [' 192.0.2.1 ', '192.0.2.1'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['[2001:db8::1]', '2001:db8::1'],
    ['fe80::1%eth0', 'fe80::1'],
    ['::ffff:192.0.2.1', '192.0.2.1'],
    ['::FFFF:7f00:1', '127.0.0.1'],
    ['0:0:0:0:0:ffff:c000:0201', '192.0.2.1'],
    ['::1', '::1'],
    ['unknown', null],
    ['', null],
    ['192.0.2.1:8080', null],
    ['01.2.3.4', null],
    ['256.1.1.1', null],
    ['<script>', null],
  ])('%j -> %j', (text, expected) => {
    expect(canonicalAddress(text)).toBe(expected);
  });
});

describe('parseTrustedProxies', () => {
  it('expands loopback and canonicalises addresses and ranges', () => {
    expect(ranges('loopback', '10.0.0.0/8', '192.0.2.7', '2001:DB8::/32', '::ffff:198.51.100.1')).toEqual([
      '127.0.0.0/8',
      '::1/128',
      '10.0.0.0/8',
      '192.0.2.7/32',
      '2001:db8::/32',
      '198.51.100.1/32',
    ]);
  });

  it.each(['proxy.example', '10.0.0.0/33', '::/129', '10.0.0.0/', '10.0.0.0/x', '10.0.0.0/8/8', '*', '10.0.0.0/-1'])('refuses %j with a sentence naming it', (entry) => {
    const parsed = parseTrustedProxies([entry]);
    expect(parsed).toEqual({ error: expect.stringContaining(`"${entry}" is not an IP address`) });
  });
});

describe('CIDR matching', () => {
  const isTrusted = addressMatcher(ranges('10.0.0.0/8', '192.0.2.7', '2001:db8:1::/48', '172.16.0.0/12'));
  it.each<[string, boolean]>([
    ['10.0.0.1', true],
    ['10.255.255.255', true],
    ['11.0.0.1', false],
    ['9.255.255.255', false],
    ['192.0.2.7', true],
    ['192.0.2.8', false],
    ['172.31.255.1', true],
    ['172.32.0.1', false],
    ['2001:db8:1::5', true],
    ['2001:db8:1:ffff::1', true],
    ['2001:db8:2::1', false],
    ['::1', false],
  ])('%s in 10.0.0.0/8, 192.0.2.7, 2001:db8:1::/48, 172.16.0.0/12: %s', (address, expected) => {
    expect(isTrusted(address)).toBe(expected);
  });

  it('trusts nothing without ranges', () => {
    expect(addressMatcher([])('127.0.0.1')).toBe(false);
  });

  it.each<[string, boolean]>([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['::1', true],
    ['128.0.0.1', false],
    ['::2', false],
  ])('loopback: %s -> %s', (address, expected) => {
    expect(isLoopback(address)).toBe(expected);
  });
});

describe('deriveClientAddress', () => {
  const none = addressMatcher([]);
  const local = addressMatcher(ranges('loopback'));
  const proxies = addressMatcher(ranges('10.0.0.0/8', 'fd00::/8'));

  it.each<[string, string | undefined, string | string[] | undefined, ReturnType<typeof addressMatcher>, string | null]>([
    // No trusted proxies: the socket, whatever the header says.
    ['direct, no header', '198.51.100.7', undefined, none, '198.51.100.7'],
    ['direct, a spoofed header', '198.51.100.7', '203.0.113.1', none, '198.51.100.7'],
    ['direct, a spoofed chain ending in loopback', '198.51.100.7', '203.0.113.1, 127.0.0.1', none, '198.51.100.7'],
    ['direct, IPv4-mapped socket', '::ffff:198.51.100.7', '203.0.113.1', none, '198.51.100.7'],
    ['direct, IPv6 socket', '2001:DB8::7', undefined, none, '2001:db8::7'],
    // An untrusted socket is the client even with trusted proxies configured.
    ['untrusted socket with proxies configured', '198.51.100.7', '10.0.0.2', proxies, '198.51.100.7'],
    // Through a trusted proxy: the rightmost hop that is not trusted.
    ['one proxy', '10.0.0.2', '198.51.100.7', proxies, '198.51.100.7'],
    ['one proxy, client-chosen entries to the left', '10.0.0.2', '1.2.3.4, 5.6.7.8, 198.51.100.7', proxies, '198.51.100.7'],
    ['two proxies', '10.0.0.2', '198.51.100.7, 10.0.0.3', proxies, '198.51.100.7'],
    ['client-chosen entries left of the client, trusted-looking ones too, are never reached', '10.0.0.2', '6.6.6.6, 10.9.9.9, 198.51.100.7', proxies, '198.51.100.7'],
    ['IPv6 proxies and client', 'fd00::2', '2001:db8::9, fd00::3', proxies, '2001:db8::9'],
    ['IPv4-mapped proxy socket', '::ffff:10.0.0.2', '198.51.100.7', proxies, '198.51.100.7'],
    ['IPv4-mapped hop in the header', '10.0.0.2', '::ffff:198.51.100.7', proxies, '198.51.100.7'],
    ['two header lines', '10.0.0.2', ['1.2.3.4', '198.51.100.7, 10.0.0.3'], proxies, '198.51.100.7'],
    ['empty entries are skipped', '10.0.0.2', '198.51.100.7, , ', proxies, '198.51.100.7'],
    ['a trusted proxy without a header: the proxy itself', '10.0.0.2', undefined, proxies, '10.0.0.2'],
    ['every hop trusted: the farthest', '10.0.0.2', '10.0.0.4, 10.0.0.3', proxies, '10.0.0.4'],
    ['garbage from a trusted hop: the last address known', '10.0.0.2', 'unknown', proxies, '10.0.0.2'],
    ['garbage behind a trusted hop', '10.0.0.2', 'unknown, 10.0.0.3', proxies, '10.0.0.3'],
    ['garbage left of the client does not matter', '10.0.0.2', 'unknown, 198.51.100.7', proxies, '198.51.100.7'],
    ['loopback proxy', '127.0.0.1', '203.0.113.5, 198.51.100.7', local, '198.51.100.7'],
    ['loopback proxy over IPv6', '::1', '198.51.100.7', local, '198.51.100.7'],
    // No socket address (the connection is gone): no address, never a shared one.
    ['no socket address', undefined, '198.51.100.7', proxies, null],
  ])('%s', (_name, socket, header, isTrusted, expected) => {
    expect(deriveClientAddress(socket, header, isTrusted)).toBe(expected);
  });
});

describe('rateLimitSubject', () => {
  it.each<[string, string]>([
    ['198.51.100.7', '198.51.100.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['2001:db8:1:2::', '2001:db8:1:2::/64'],
  ])('%s -> %s', (address, expected) => {
    expect(rateLimitSubject(address)).toBe(expected);
  });

  it('puts two addresses of one /64 in one bucket, and of two /64s in two', () => {
    expect(rateLimitSubject('2001:db8:1:2::a')).toBe(rateLimitSubject('2001:db8:1:2:ffff::b'));
    expect(rateLimitSubject('2001:db8:1:2::a')).not.toBe(rateLimitSubject('2001:db8:1:3::a'));
  });
});

describe('requireClientAddress', () => {
  it('refuses a request without an address instead of counting it in a shared bucket', () => {
    const request = (clientAddress: string | null) => ({ clientAddress }) as FastifyRequest;
    expect(requireClientAddress(request('198.51.100.7'))).toBe('198.51.100.7');
    expect(() => requireClientAddress(request(null))).toThrow(AppError);
    expect(() => requireClientAddress(request(null))).toThrow('The address of your connection could not be determined. Please try again.');
  });
});
