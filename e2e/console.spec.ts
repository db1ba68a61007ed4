// The label's console on /release (issue 18) in a real browser: products withdrawn,
// restored, reordered by keyboard and by drag, and deleted, with a visitor's open shop
// following live; admins granted and revoked; every action in the activity list; the
// products tab on a phone.
import { type Browser, type Page } from '@playwright/test';
import { CONSOLE_MESSAGES } from '@storefront/domain/console.ts';
import { createVerifiedUser } from './support/accounts.ts';
import { callFromPage } from './support/api.ts';
import { logIn } from './support/login.ts';
import { test, expect, DEMO_ADMIN, type ConsoleGuard } from './support/fixtures.ts';

const unique = (what: string) => `E2E ${what} ${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

async function visitor(browser: Browser, consoleErrors: ConsoleGuard): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  consoleErrors.watch(page);
  await page.goto('/shop');
  return page;
}

const shopNames = (page: Page) => page.locator('main').getByRole('heading', { level: 2 }).allTextContents();
const rows = (page: Page) => page.getByTestId('console-product');
const rowNames = async (page: Page) => (await rows(page).locator('.console-product__name a').allTextContents()).map((text) => text.trim());

async function openTab(page: Page, name: string) {
  await page.goto('/release');
  await page.getByRole('tab', { name }).click();
}

test('products: withdraw, restore, move by keyboard and by drag, delete; an open shop follows; the activity lists each', async ({ page, browser, consoleErrors }) => {
  await logIn(page, DEMO_ADMIN);
  const first = unique('First');
  const second = unique('Second');
  for (const name of [second, first]) {
    await callFromPage(page, 'releaseBizarreProduct', { name, description: 'A console test product.', priceCents: 1500, images: ['/content/covers/cover-01.svg'] });
  }
  const shop = await visitor(browser, consoleErrors);
  await expect.poll(async () => (await shopNames(shop)).slice(0, 2)).toEqual([first, second]);

  await openTab(page, 'Products');
  // New releases come first.
  await expect.poll(async () => (await rowNames(page)).slice(0, 2)).toEqual([first, second]);

  // Withdraw: gone from the open shop; Restore: back.
  await page.getByRole('button', { name: `Withdraw ${first}` }).click();
  await expect(rows(page).filter({ hasText: first }).getByText('Withdrawn')).toBeVisible();
  await expect.poll(() => shopNames(shop)).not.toContain(first);
  await page.getByRole('button', { name: `Restore ${first}` }).click();
  await expect.poll(async () => (await shopNames(shop))[0]).toBe(first);

  // Keyboard: the Move down button with Enter, then Alt+ArrowUp on the row.
  await page.getByRole('button', { name: `Move ${first} down` }).focus();
  await page.keyboard.press('Enter');
  await expect.poll(async () => (await shopNames(shop)).slice(0, 2)).toEqual([second, first]);
  await page.getByRole('button', { name: `Move ${first} up` }).focus();
  await page.keyboard.press('Alt+ArrowUp');
  await expect.poll(async () => (await shopNames(shop)).slice(0, 2)).toEqual([first, second]);

  // Drag: the first row onto the second, picked up by its price (the row's middle may be its
  // name's link or a button now that rows carry more actions, and a press there is no drag).
  await rows(page)
    .filter({ hasText: first })
    .locator('.console-product__price')
    .dragTo(rows(page).filter({ hasText: second }));
  await expect.poll(async () => (await shopNames(shop)).slice(0, 2)).toEqual([second, first]);
  await expect.poll(async () => (await rowNames(page)).slice(0, 2)).toEqual([second, first]);

  // Delete one never ordered.
  await page.getByRole('button', { name: `Delete ${second}` }).click();
  await page.getByRole('dialog', { name: 'Delete this product?' }).getByRole('button', { name: 'Yes, delete' }).click();
  await expect(rows(page).filter({ hasText: second })).toHaveCount(0);
  await expect.poll(() => shopNames(shop)).not.toContain(second);

  // The activity, newest first, by this admin.
  await page.getByRole('tab', { name: 'Activity' }).click();
  const entries = page.getByTestId('activity-entry');
  await expect(entries.first()).toContainText('Deleted a product');
  await expect(entries.first()).toContainText(`by ${DEMO_ADMIN.email}`);
  await expect(entries.first()).toContainText(second);
  for (const label of ['Moved a product in the shop', 'Restored a product', 'Withdrew a product', 'Released a product']) {
    await expect(entries.filter({ hasText: label }).first()).toBeVisible();
  }
});

test('admins: grant and revoke from the console, audited; an ADMIN_EMAILS admin cannot be revoked', async ({ page, request, consoleErrors }) => {
  const user = await createVerifiedUser(request);
  await logIn(page, DEMO_ADMIN);
  await openTab(page, 'Admins');
  await page.getByLabel('Make an account admin (its email)').fill(user.email);
  await page.getByRole('button', { name: 'Grant admin' }).click();
  const admins = page.getByRole('list', { name: 'Admins' });
  await expect(admins.getByText(user.email)).toBeVisible();
  // The demo admin is one through ADMIN_EMAILS (e2e/server.mjs): the page says why it has no Revoke.
  await expect(admins.getByRole('listitem').filter({ hasText: DEMO_ADMIN.email })).toContainText('only that setting can revoke it');

  await page.getByRole('button', { name: `Revoke admin from ${user.email}` }).click();
  await expect(admins.getByText(user.email)).toHaveCount(0);

  // The server refuses it too, whatever a page sends.
  consoleErrors.allow(/status of 400|status of 412|status of 409|Failed to load resource/);
  await expect(callFromPage(page, 'setAdmin', { email: DEMO_ADMIN.email, isAdmin: false })).rejects.toThrow(CONSOLE_MESSAGES.adminFromSetting);

  await page.getByRole('tab', { name: 'Activity' }).click();
  const entries = page.getByTestId('activity-entry');
  await expect(entries.first()).toContainText('Revoked admin');
  await expect(entries.first()).toContainText(user.email);
  await expect(entries.nth(1)).toContainText('Made an account admin');
});

test('the products tab on a phone: no sideways scrolling, every button reachable', async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 740 });
  await logIn(page, DEMO_ADMIN);
  await page.goto('/release');
  await page.getByRole('tab', { name: 'Products' }).click();
  await expect(rows(page).first()).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  // Reachable: scrolled to (the console's tabs fill much of a phone's first screen), it is wholly on screen.
  const remove = rows(page)
    .first()
    .getByRole('button', { name: /^Delete / });
  await remove.scrollIntoViewIfNeeded();
  await expect(remove).toBeInViewport({ ratio: 1 });
});
