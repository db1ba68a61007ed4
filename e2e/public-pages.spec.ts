// Server-written public pages (issue 30, decision 058): a product page and the shop carry
// their data in the HTML, and the web app shows it without asking the server for it again.
import type { Page, Request } from '@playwright/test';
import { test, expect, DEMO_ADMIN } from './support/fixtures.ts';
import { releaseProductAs, tokenOf } from './support/api.ts';

/** Every request the page makes for data under `prefix` (catalogue: GET /api/products...). */
function catalogueReads(page: Page, prefix = '/api/products'): Request[] {
  const reads: Request[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname.startsWith(prefix)) reads.push(request);
  });
  return reads;
}

test('a product page shows its product from the HTML, with no second request for it', async ({ page, request }) => {
  const name = `E2E Preview Tee ${Date.now().toString(36)}`;
  const id = await releaseProductAs(request, await tokenOf(request, DEMO_ADMIN), { name, description: 'Shared on every network.', priceCents: 2750 });

  // What a crawler or a link preview reads, without JavaScript.
  const html = await (await request.get(`/product/${id}`)).text();
  expect(html).toContain(`<meta property="og:title" content="${name}">`);
  expect(html).toContain('<meta property="product:price:amount" content="27.50">');

  const reads = catalogueReads(page);
  await page.goto(`/product/${id}`);
  await expect(page.getByRole('heading', { level: 1, name })).toBeVisible();
  await expect(page.getByText('$27.50').first()).toBeVisible();
  await page.waitForLoadState('networkidle');
  expect(reads.map((read) => read.url())).toEqual([]);
});

test('the shop shows its first page from the HTML; a search still asks the server', async ({ page }) => {
  const reads = catalogueReads(page);
  await page.goto('/shop');
  await expect(page.getByRole('list', { name: 'Products' }).getByRole('listitem').first()).toBeVisible();
  await page.waitForLoadState('networkidle');
  expect(reads.map((read) => read.url())).toEqual([]);

  await page.goto('/shop?q=tee');
  await expect(page.getByRole('list', { name: 'Products' }).getByRole('listitem').first()).toBeVisible();
  expect(reads.some((read) => read.url().includes('q=tee'))).toBe(true);
});

test('the home and About pages show the label’s text from the HTML, with no request for it', async ({ page }) => {
  for (const [url, slug, heading] of [
    ['/home', 'home', 'Street Flavor Records'],
    ['/about', 'about', 'About'],
  ] as const) {
    const reads = catalogueReads(page, `/api/pages/${slug}`);
    await page.goto(url);
    await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
    await page.waitForLoadState('networkidle');
    expect(reads.map((read) => read.url())).toEqual([]);
    page.removeAllListeners('request');
  }
});
