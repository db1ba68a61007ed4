import type { APIRequestContext, Page } from '@playwright/test';
import type { FunctionInput, FunctionName, FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { expect, ORIGIN } from './fixtures.ts';
import type { Credentials } from './login.ts';

/** Signs `user` in through the API and returns the bearer token the server hands out. */
export async function tokenOf(request: APIRequestContext, user: Credentials): Promise<string> {
  const response = await request.post('/api/auth/sign-in/email', { data: user, headers: { origin: ORIGIN } });
  expect(response.ok(), await response.text()).toBe(true);
  return response.headers()['set-auth-token']!;
}

/** Calls a function as the holder of `token`, typed by the function's contract; fails the test on an error. */
export async function callAs<N extends FunctionName>(request: APIRequestContext, token: string, name: N, data: FunctionInput<N>): Promise<FunctionOutput<N>> {
  const response = await request.post(`/fn/${name}`, { headers: { authorization: `Bearer ${token}` }, data: { data } });
  expect(response.ok(), await response.text()).toBe(true);
  return ((await response.json()) as { data: FunctionOutput<N> }).data;
}

/** Calls a function from inside `page` (its session cookie, same origin), typed by the function's contract. */
export async function callFromPage<N extends FunctionName>(page: Page, name: N, data: FunctionInput<N>): Promise<FunctionOutput<N>> {
  return page.evaluate(
    async ({ name, data }) => {
      const response = await fetch(`/fn/${name}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ data }) });
      const body = (await response.json()) as { data?: unknown; error?: { message: string } };
      if (!response.ok) throw new Error(body.error?.message ?? String(response.status));
      return body.data;
    },
    { name, data },
  ) as Promise<FunctionOutput<N>>;
}

/** A product of the test's own (its name makes it findable by search), released by the admin holding `token`; its id. */
export async function releaseProductAs(request: APIRequestContext, token: string, product: { name: string; description: string; priceCents: number }): Promise<string> {
  const { id } = await callAs(request, token, 'releaseBizarreProduct', { ...product, images: ['/content/covers/cover-01.svg'] });
  return id;
}
