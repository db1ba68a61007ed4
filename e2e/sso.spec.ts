// Single sign-on for the sister products in a real browser (issue 6, item 8): a pretend
// music app on 127.0.0.1, registered with the CLI, sends its visitor to the shop; the
// visitor logs in on the shop's login page and comes back signed in, the app having
// verified the ID token against the shop's published keys.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { runCli } from './support/cli.ts';
import { test, expect, DEMO_SHOPPER, ORIGIN } from './support/fixtures.ts';

interface SisterApp {
  url: string;
  close(): Promise<void>;
}

const escape = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The music app's own server, as a sister product would write it with any OpenID
 * Connect library: discovery, a PKCE login redirect, the code exchanged server to
 * server, the ID token verified with jose.
 */
async function startSisterApp(): Promise<SisterApp & { register(): Promise<void> }> {
  const discovery = (await (await fetch(`${ORIGIN}/oidc/.well-known/openid-configuration`)).json()) as {
    issuer: string;
    authorization_endpoint: string;
    token_endpoint: string;
    jwks_uri: string;
    end_session_endpoint: string;
  };
  let lastIdToken = '';
  const keys = createRemoteJWKSet(new URL(discovery.jwks_uri));
  const pending = new Map<string, { verifier: string; nonce: string }>();
  let client = { id: '', secret: '' };
  let redirectUri = '';

  const server = http.createServer((request, response) => {
    const url = new URL(request.url!, redirectUri);
    const page = (status: number, body: string) => {
      response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
      response.end(`<!doctype html><html lang="en"><head><title>SPN Music</title></head><body><main>${body}</main></body></html>`);
    };
    if (url.pathname === '/login') {
      const state = randomBytes(16).toString('base64url');
      const verifier = randomBytes(32).toString('base64url');
      const nonce = randomBytes(16).toString('base64url');
      pending.set(state, { verifier, nonce });
      const authorize = new URL(discovery.authorization_endpoint);
      authorize.search = new URLSearchParams({
        client_id: client.id,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: 'openid profile email',
        state,
        nonce,
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
      }).toString();
      response.writeHead(302, { location: authorize.href });
      response.end();
      return;
    }
    // RP-initiated logout (issue 24 item 6): back to a registered redirect URI with our state.
    if (url.pathname === '/logout') {
      const logout = new URL(discovery.end_session_endpoint);
      logout.search = new URLSearchParams({ id_token_hint: lastIdToken, post_logout_redirect_uri: redirectUri, state: 'signed-out' }).toString();
      response.writeHead(302, { location: logout.href });
      response.end();
      return;
    }
    if (url.pathname === '/callback' && url.searchParams.get('state') === 'signed-out') return page(200, '<h1>SPN Music</h1><p>Signed out</p>');
    if (url.pathname === '/callback') {
      const flow = pending.get(url.searchParams.get('state') ?? '');
      const code = url.searchParams.get('code');
      if (!flow || !code) return page(400, `<h1>Sign-in failed</h1><p>${escape(url.searchParams.get('error') ?? 'unknown state')}</p>`);
      void (async () => {
        const tokens = (await (
          await fetch(discovery.token_endpoint, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}` },
            body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: flow.verifier }),
          })
        ).json()) as { id_token: string };
        const { payload } = await jwtVerify(tokens.id_token, keys, { issuer: discovery.issuer, audience: client.id });
        if (payload.nonce !== flow.nonce) throw new Error('nonce mismatch');
        lastIdToken = tokens.id_token;
        page(200, `<h1>SPN Music</h1><p>Signed in as ${escape(String(payload.username))} (${escape(String(payload.account_type))}), user ${escape(String(payload.sub))}</p>`);
      })().catch((error: unknown) => page(500, `<h1>Sign-in failed</h1><p>${escape(String(error))}</p>`));
      return;
    }
    if (url.pathname === '/favicon.ico') {
      response.writeHead(204);
      response.end();
      return;
    }
    page(404, '<h1>Not found</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  redirectUri = `${url}/callback`;
  return {
    url,
    async register() {
      const output = await runCli(['create-oauth-client', `SPN Music ${Date.now()}`, redirectUri]);
      client = { id: /client_id:\s+(\S+)/.exec(output)![1]!, secret: /client_secret:\s+(\S+)/.exec(output)![1]! };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let app: Awaited<ReturnType<typeof startSisterApp>>;

test.beforeAll(async () => {
  app = await startSisterApp();
  await app.register();
});

test.afterAll(async () => {
  await app?.close();
});

test('a sister product signs its visitor in with the shop account', async ({ page }) => {
  await page.goto(`${app.url}/login`);
  // Not signed in to the shop: its login page, saying why.
  await expect(page).toHaveURL(/\/login\?sso=/);
  await expect(page.getByText('Log in to continue to the app that sent you here.')).toBeVisible();
  await page.getByLabel('Email').fill(DEMO_SHOPPER.email);
  await page.getByLabel('Password').fill(DEMO_SHOPPER.password);
  await page.getByRole('button', { name: 'Login', exact: true }).click();

  await expect(page).toHaveURL(new RegExp(`^${app.url}/callback\\?`));
  await expect(page.getByText(/Signed in as \S+ \(Fan\), user \S+/)).toBeVisible();
  const me = (await (await page.request.get(`${ORIGIN}/api/me`)).json()) as { user: { id: string; username: string } };
  await expect(page.getByText(`Signed in as ${me.user.username} (Fan), user ${me.user.id}`)).toBeVisible();

  // Signed in to the shop already: straight through, no login page.
  await page.goto(`${app.url}/login`);
  await expect(page).toHaveURL(new RegExp(`^${app.url}/callback\\?`));
  await expect(page.getByText(`Signed in as ${me.user.username} (Fan)`)).toBeVisible();
});

test('a sister product signs its visitor out of the shop (RP-initiated logout), after the shop asks', async ({ page }) => {
  await page.goto(`${app.url}/login`);
  await page.getByLabel('Email').fill(DEMO_SHOPPER.email);
  await page.getByLabel('Password').fill(DEMO_SHOPPER.password);
  await page.getByRole('button', { name: 'Login', exact: true }).click();
  await expect(page.getByText(/Signed in as \S+ \(Fan\)/)).toBeVisible();

  await page.goto(`${app.url}/logout`);
  await expect(page.getByRole('heading', { name: 'Sign out of Street Flavor Records?' })).toBeVisible();
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  // Back at the sister product, with its state (the shop's CSP lets the form's redirect leave).
  await expect(page).toHaveURL(new RegExp(`^${app.url}/callback\\?state=signed-out`));
  await expect(page.getByText('Signed out')).toBeVisible();
  const me = (await (await page.request.get(`${ORIGIN}/api/me`)).json()) as { user: unknown };
  expect(me.user).toBeNull();
  // Signing in again goes through the shop's login page.
  await page.goto(`${app.url}/login`);
  await expect(page).toHaveURL(/\/login\?sso=/);
});
