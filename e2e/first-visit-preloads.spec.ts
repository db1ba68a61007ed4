// Issue 39 item 18: a first visit loads what it needs at once, not one chunk after the other.
// The HTML of a console tab (rendered in the browser) and of a release page (rendered on the
// server, hydrated for its Play and Buy buttons) names every script the page then loads, each
// a file of the build.
import type { APIRequestContext, Page } from '@playwright/test';
import { callAs, tokenOf } from './support/api.ts';
import { test, expect, DEMO_ADMIN, ORIGIN } from './support/fixtures.ts';

/** The scripts an HTML page names: its entry and its module preloads, as paths. */
function namedScripts(html: string): string[] {
  const head = html.slice(0, html.indexOf('</head>'));
  const scripts = [...head.matchAll(/<script type="module" crossorigin src="([^"]+)"/g)].map((match) => match[1]!);
  const preloads = [...head.matchAll(/<link rel="modulepreload" crossorigin href="([^"]+)"/g)].map((match) => match[1]!);
  return [...scripts, ...preloads];
}

/** Every script `page` requests from now on (a new page: nothing is cached), as paths. */
function scriptsRequested(page: Page): string[] {
  const requested: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname.endsWith('.js')) requested.push(url.pathname);
  });
  return requested;
}

async function expectFilesOfTheBuild(request: APIRequestContext, files: string[]) {
  for (const file of files) {
    const response = await request.get(file);
    expect(response.status(), file).toBe(200);
    expect(response.headers()['content-type'], file).toContain('javascript');
  }
}

test('a console tab opened by its address names every script it loads', async ({ page, request }) => {
  // The admin's session in this page's new browser context (nothing cached), without the login page's scripts.
  const signIn = await request.post('/api/auth/sign-in/email', { data: DEMO_ADMIN, headers: { origin: ORIGIN } });
  expect(signIn.ok()).toBe(true);
  await page.context().addCookies((await request.storageState()).cookies);
  const requested = scriptsRequested(page);
  const response = await page.goto('/release/sales');
  const html = await response!.text();
  await expect(page.getByTestId('net-sales')).toBeVisible();
  await expect(page.getByRole('tabpanel', { name: 'Sales' })).not.toContainText('Loading');

  const named = namedScripts(html);
  // The console page's chunk and the Sales tab's, besides the entry.
  expect(named.length).toBeGreaterThan(3);
  expect(named.some((file) => /\/release-page-[\w-]+\.js$/.test(file))).toBe(true);
  expect(named.some((file) => /\/sales-tab-[\w-]+\.js$/.test(file))).toBe(true);
  expect(requested.filter((file) => !named.includes(file))).toEqual([]);
  await expectFilesOfTheBuild(request, named);
  // Another tab's address names its own chunk, not the Sales tab's.
  const products = await (await request.get('/release/products')).text();
  expect(namedScripts(products).some((file) => /\/products-tab-[\w-]+\.js$/.test(file))).toBe(true);
  expect(namedScripts(products).some((file) => /\/sales-tab-[\w-]+\.js$/.test(file))).toBe(false);
});

test('a release page names every script its hydration loads, so its buttons work a round trip sooner', async ({ page, request }) => {
  const token = await tokenOf(request, DEMO_ADMIN);
  const { id } = await callAs(request, token, 'saveRelease', {
    kind: 'single',
    title: `Preloaded ${Date.now().toString(36)}`,
    artist: 'The Preloads',
    releaseDate: '2026-01-15',
    priceCents: 300,
    published: true,
    tracks: [{ title: 'Early Tone', priceCents: 300 }],
  });
  const requested = scriptsRequested(page);
  const response = await page.goto(`/music/${id}`);
  const html = await response!.text();
  // Hydrated: the server-rendered Buy button is enabled only then.
  await expect(page.getByRole('button', { name: /^Buy/ }).first()).toBeEnabled();

  const named = namedScripts(html);
  expect(named.some((file) => /\/music-page-[\w-]+\.js$/.test(file))).toBe(true);
  expect(requested.filter((file) => !named.includes(file))).toEqual([]);
  await expectFilesOfTheBuild(request, named);
});
