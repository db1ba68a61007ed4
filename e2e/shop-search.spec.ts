// The shop a page at a time, with search and categories in the URL (issue 17): eight
// loading cards, 24 cards first and more as the visitor scrolls, a search and a category
// that a shared link reproduces, and the empty text of a search that finds nothing.
import type { APIRequestContext } from '@playwright/test';
import { RELEASE_MESSAGES } from '@storefront/domain/catalog.ts';
import { callAs, tokenOf } from './support/api.ts';
import { test, expect, DEMO_ADMIN, ORIGIN } from './support/fixtures.ts';

const CATEGORIES = ['music', 'bundles', 'merch'] as const;
const stamp = Date.now().toString(36);
const nameOf = (i: number) => `Crate Digger ${stamp} ${String(i).padStart(2, '0')}`;
/** The shop lists the newest release first (decision 031): released 00..29, shown 29..00. */
const newestFirst = (indexes: number[]) => indexes.map(nameOf).reverse();

test.beforeAll(async ({ playwright }) => {
  const request = await playwright.request.newContext({ baseURL: ORIGIN });
  const admin = await tokenOf(request, DEMO_ADMIN);
  // 30 products: with the seeded ones, more than one page of 24.
  for (let i = 0; i < 30; i += 1) {
    await callAs(request, admin, 'releaseBizarreProduct', {
      name: nameOf(i),
      description: 'A record from the crates.',
      priceCents: 1000 + i,
      images: ['/content/covers/cover-01.svg'],
      category: CATEGORIES[i % 3],
    });
  }
  await request.dispose();
});

/** Every active product, through the list's own pages. */
async function everyName(request: APIRequestContext): Promise<string[]> {
  const names: string[] = [];
  let next: string | null = null;
  do {
    const page = (await (await request.get(`/api/products?limit=60${next ? `&after=${next}` : ''}`)).json()) as { products: { name: string }[]; next: string | null };
    names.push(...page.products.map((p) => p.name));
    next = page.next;
  } while (next);
  return names;
}

test('the shop shows eight loading cards, then 24 products, and the rest as the visitor scrolls', async ({ page, request }) => {
  const all = await everyName(request);
  expect(all.length).toBeGreaterThan(24);
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/api/products', async (route) => {
    await held;
    await route.continue();
  });
  // A first load of /shop carries its first page in the HTML (decision 058): the loading
  // cards show on the way there from another page.
  await page.goto('/about');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'SHOP', exact: true }).click();
  await expect(page.locator('.product-card--placeholder')).toHaveCount(8);
  release();
  const cards = page.getByRole('list', { name: 'Products' }).getByRole('listitem');
  await expect(cards).toHaveCount(24);
  await expect(cards.first()).toContainText(all[0]!);

  // Scrolling to the end loads the next pages, until every product is there, once, in order.
  await expect(async () => {
    await page.mouse.wheel(0, 20_000);
    await expect(cards).toHaveCount(all.length, { timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  await expect(page.getByRole('heading', { level: 2 })).toHaveText(all);
  await expect(page.getByRole('button', { name: 'Show more products' })).toHaveCount(0);
});

test('a search and a category are in the URL, and a shared link shows the same', async ({ page }) => {
  await page.goto('/shop');
  await expect(page.getByRole('list', { name: 'Products' }).getByRole('listitem')).toHaveCount(24);
  await page.getByRole('searchbox', { name: 'Search the shop' }).fill(`crate digger ${stamp}`);
  await expect(page).toHaveURL(new RegExp(`/shop\\?q=crate\\+digger\\+${stamp}$`));
  const names = page.getByRole('list', { name: 'Products' }).getByRole('heading', { level: 2 });
  // 24, then the other 6 as the visitor scrolls.
  await expect(async () => {
    await page.mouse.wheel(0, 20_000);
    await expect(names).toHaveCount(30, { timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  await expect(names).toHaveText(newestFirst(Array.from({ length: 30 }, (_, i) => i)));

  const categories = page.getByRole('navigation', { name: 'Categories' });
  await categories.getByRole('link', { name: 'Music' }).click();
  await expect(page).toHaveURL(new RegExp(`/shop\\?q=crate\\+digger\\+${stamp}&category=music$`));
  await expect(categories.getByRole('link', { name: 'Music' })).toHaveAttribute('aria-current', 'page');
  await expect(names).toHaveText(newestFirst(Array.from({ length: 10 }, (_, i) => i * 3)));

  // The link, opened fresh (as someone it was sent to would), shows the same.
  const shared = page.url();
  const other = await page.context().newPage();
  await other.goto(shared);
  await expect(other.getByRole('searchbox', { name: 'Search the shop' })).toHaveValue(`crate digger ${stamp}`);
  await expect(other.getByRole('navigation', { name: 'Categories' }).getByRole('link', { name: 'Music' })).toHaveAttribute('aria-current', 'page');
  await expect(other.getByRole('list', { name: 'Products' }).getByRole('heading', { level: 2 })).toHaveText(newestFirst(Array.from({ length: 10 }, (_, i) => i * 3)));
  await other.close();

  // All categories again, and a search that finds nothing says so.
  await categories.getByRole('link', { name: 'All' }).click();
  await expect(page).toHaveURL(new RegExp(`/shop\\?q=crate\\+digger\\+${stamp}$`));
  await page.getByRole('searchbox', { name: 'Search the shop' }).fill('no such record anywhere');
  await expect(page.getByText(RELEASE_MESSAGES.noMatch)).toBeVisible();
  await expect(page.getByRole('list', { name: 'Products' })).toHaveCount(0);
  // Clearing the search brings back the whole shop, and /shop has no query left.
  await page.getByRole('searchbox', { name: 'Search the shop' }).fill('');
  await expect(page).toHaveURL(/\/shop$/);
  await expect(page.getByRole('list', { name: 'Products' }).getByRole('listitem')).toHaveCount(24);
});
