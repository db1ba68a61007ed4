// The app's own router (decision 037) as a visitor uses it: links change the page without a
// reload, Back and Forward return to where the visitor was, a modified click is the
// browser's, the header marks the current page, and a category replaces its entry.
import type { Page } from '@playwright/test';
import { test, expect, DEMO_SHOPPER } from './support/fixtures.ts';
import { fillLogin } from './support/login.ts';

test.use({ viewport: { width: 390, height: 640 } });

/** The app has hydrated: its links change the page in the document (before, a link loads a new one). */
const hydrated = (page: Page) => expect.poll(() => page.evaluate(() => window.history.scrollRestoration)).toBe('manual');

test('Back returns to the shop at the card the visitor opened, Forward to the product again', async ({ page }) => {
  await page.goto('/shop');
  const cards = page.getByRole('list', { name: 'Products' }).getByRole('listitem');
  await expect(cards.nth(5)).toBeVisible();
  const card = cards.nth(5).getByRole('link');
  const name = (await card.innerText()).split('\n')[0]!;
  await card.scrollIntoViewIfNeeded();
  const scrolled = await page.evaluate(() => window.scrollY);
  expect(scrolled).toBeGreaterThan(100);
  // A page change inside the app, not a document load (the app must have hydrated for that).
  await hydrated(page);
  await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));

  await card.click();
  await expect(page).toHaveURL(/\/product\//);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(name);
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(0);

  await page.goBack();
  await expect(page).toHaveURL(/\/shop$/);
  await expect(cards.nth(5)).toBeVisible();
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(scrolled - 5);
  expect(await page.evaluate(() => window.scrollY)).toBeLessThan(scrolled + 5);

  await page.goForward();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(name);
  expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
});

// A link followed before the page hydrated is a document load, as is an address typed: that
// new page starts at the top, not at the offset the page before it was left at (seen in CI: the
// entries' key was "default" for every page loaded anew, so the shop's offset was restored on
// the product page).
test('a page loaded anew starts at the top, whatever the page before it was scrolled to; a reload keeps its own place', async ({ page }) => {
  await page.goto('/shop');
  const cards = page.getByRole('list', { name: 'Products' }).getByRole('listitem');
  await expect(cards.nth(5)).toBeVisible();
  const href = await cards.locator('a[href^="/product/"]').first().getAttribute('href');
  await hydrated(page);
  await page.evaluate(() => window.scrollTo(0, 400));
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(400);

  await page.goto(href!);
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await hydrated(page);
  expect(await page.evaluate(() => window.scrollY)).toBe(0);

  await page.evaluate(() => window.scrollTo(0, 150));
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(150);
  await page.reload();
  await hydrated(page);
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(150);
});

test('a Ctrl-click opens the product in a new tab and leaves the shop as it was', async ({ page, context }) => {
  await page.goto('/shop');
  // A merch card (a release's card opens its /music page, issue 39 item 6).
  const card = page.getByRole('list', { name: 'Products' }).getByRole('listitem').locator('a[href^="/product/"]').first();
  const href = await card.getAttribute('href');
  expect(href).toMatch(/^\/product\//);
  const opened = context.waitForEvent('page');
  await card.click({ modifiers: ['Control'] });
  const tab = await opened;
  await tab.waitForLoadState();
  expect(new URL(tab.url()).pathname).toBe(href);
  await tab.close();
  await expect(page).toHaveURL(/\/shop$/);
});

test('the header marks the page shown, and a shop category replaces its history entry', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/home');
  const nav = page.getByRole('navigation').first();
  await expect(nav.getByRole('link', { name: 'HOME', exact: true })).toHaveAttribute('aria-current', 'page');

  await nav.getByRole('link', { name: 'SHOP', exact: true }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Shop');
  await expect(nav.getByRole('link', { name: 'SHOP', exact: true })).toHaveAttribute('aria-current', 'page');
  await expect(nav.getByRole('link', { name: 'HOME', exact: true })).not.toHaveAttribute('aria-current', 'page');

  await page.getByRole('link', { name: 'Merch', exact: true }).click();
  await expect(page).toHaveURL(/\/shop\?category=merch$/);
  await expect(page.getByRole('link', { name: 'Merch', exact: true })).toHaveAttribute('aria-current', 'page');
  await page.getByRole('link', { name: 'Music', exact: true }).click();
  await expect(page).toHaveURL(/\/shop\?category=music$/);

  // The categories replaced the shop's entry: one Back leaves the shop for /home.
  await page.goBack();
  await expect(page).toHaveURL(/\/home$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Street Flavor Records');
});

test('a login reached from a signed-out page still returns there after a reload', async ({ page }) => {
  await page.goto('/my-orders');
  await expect(page).toHaveURL(/\/login$/);
  await page.reload();
  await fillLogin(page, DEMO_SHOPPER);
  await expect(page).toHaveURL(/\/my-orders$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('My Orders');
});
