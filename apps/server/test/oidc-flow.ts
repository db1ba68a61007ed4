import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';

/**
 * A sister product's side of single sign-on, for tests: a browser's cookie jar, the
 * authorization-code flow with PKCE followed hop by hop, and the code redeemed with the
 * client secret. `where()` is read at each call, so a test file can set it up in beforeAll.
 */
export interface SsoTarget {
  base: string;
  issuer: string;
  client: { clientId: string; clientSecret: string };
  redirect: string;
}

/** A browser's cookies for the shop's origin (paths ignored: one origin, one jar). */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  store(response: Response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at).trim();
      const value = pair!.slice(at + 1);
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header() {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
  drop(prefix: string) {
    for (const name of [...this.cookies.keys()]) if (name.startsWith(prefix)) this.cookies.delete(name);
  }
}

export function ssoFlow(where: () => SsoTarget) {
  /** One request as a browser makes it: cookies sent and kept, redirects not followed. */
  async function browse(jar: CookieJar, url: string, init: RequestInit = {}) {
    const { base } = where();
    const response = await fetch(new URL(url, base), { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie: jar.header() } });
    jar.store(response);
    return response;
  }

  async function signIn(jar: CookieJar, email: string, password = 'pass words') {
    const { base } = where();
    const response = await browse(jar, '/api/auth/sign-in/email', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base },
      body: JSON.stringify({ email, password }),
    });
    expect(response.status).toBe(200);
  }

  function pkce() {
    const verifier = randomBytes(32).toString('base64url');
    return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
  }

  function authorizeUrl(params: { challenge: string; state?: string; nonce?: string; redirectUri?: string; clientId?: string; prompt?: string }) {
    const { issuer, client, redirect: REDIRECT } = where();
    const url = new URL(`${issuer}/auth`);
    url.search = new URLSearchParams({
      client_id: params.clientId ?? client.clientId,
      redirect_uri: params.redirectUri ?? REDIRECT,
      response_type: 'code',
      scope: 'openid profile email',
      state: params.state ?? 'state-1',
      nonce: params.nonce ?? 'nonce-1',
      code_challenge: params.challenge,
      code_challenge_method: 'S256',
      ...(params.prompt ? { prompt: params.prompt } : {}),
    }).toString();
    return url.href;
  }

  /**
   * Follows the shop's redirects until one leaves for another origin or lands on a page,
   * submitting the provider's self-posting forms as a browser's script would.
   */
  async function follow(jar: CookieJar, url: string): Promise<URL> {
    const { base } = where();
    let next = new URL(url, base);
    let init: RequestInit = {};
    for (let hop = 0; hop < 10; hop++) {
      if (next.origin !== new URL(base).origin) return next;
      const response = await browse(jar, next.href, init);
      init = {};
      const location = response.headers.get('location');
      if (location) {
        next = new URL(location, next);
        continue;
      }
      const body = await response.text();
      const action = /<form method="post" action="([^"]+)"/.exec(body)?.[1];
      if (!body.includes('<title>Submitting Callback</title>') || !action) return next;
      const fields = [...body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\/>/g)].map(([, name, value]): [string, string] => [name!, value!]);
      next = new URL(action.replaceAll('&amp;', '&'), next);
      init = { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base }, body: new URLSearchParams(fields) };
    }
    throw new Error('too many redirects');
  }

  function redeem(code: string, verifier: string, secretOverride?: string) {
    const { issuer, client, redirect: REDIRECT } = where();
    const secret = secretOverride ?? client.clientSecret;
    return fetch(`${issuer}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }),
    });
  }

  /** A signed-in browser's whole trip: the sister product gets a code back. */
  async function codeFor(jar: CookieJar, challenge: string, extra: { nonce?: string } = {}) {
    const { issuer, redirect: REDIRECT } = where();
    const landing = await follow(jar, authorizeUrl({ challenge, ...extra }));
    expect(landing.origin + landing.pathname).toBe(REDIRECT);
    expect(landing.searchParams.get('state')).toBe('state-1');
    expect(landing.searchParams.get('iss')).toBe(issuer);
    return landing.searchParams.get('code')!;
  }

  return { browse, signIn, pkce, authorizeUrl, follow, redeem, codeFor };
}
