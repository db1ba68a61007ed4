// Notify me and the wishlist (issue 37 parts 4 and 5, decision 076) in a real browser: a
// signed-out visitor asks to be told about a sold-out tee and confirms by the mailed link, a
// signed-in fan asks in one click; the label restocks in the console; the "back in stock" mail
// arrives and its link opens the product. A fan hearts a product and finds it on /wishlist at
// 375 px, from the header's menu, with its state and price.
import type { APIRequestContext } from '@playwright/test';
import { DROP_MESSAGES } from '@storefront/domain/drops.ts';
import { NOTIFY_TEXTS } from '../apps/web/src/ui/notify-me/messages.ts';
import { WISHLIST_TEXTS } from '../apps/web/src/ui/wishlist/messages.ts';
import { createVerifiedUser, mailLink, newUser } from './support/accounts.ts';
import { callAs, tokenOf } from './support/api.ts';
import { test, expect, DEMO_ADMIN } from './support/fixtures.ts';
import { logIn } from './support/login.ts';

const COVER = '/content/covers/cover-01.svg';
const uniqueName = (what: string) => `E2E ${what} ${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

async function tee(request: APIRequestContext, stock: number): Promise<{ id: string; name: string }> {
  const name = uniqueName('Notify Tee');
  const token = await tokenOf(request, DEMO_ADMIN);
  const { id } = await callAs(request, token, 'releaseBizarreProduct', {
    name,
    description: `${name}, made for a browser test.`,
    priceCents: 2300,
    images: [COVER],
    variants: [{ options: [], sku: 'NOTIFY-TEE', priceCents: null, stock }],
  });
  return { id, name };
}

test('a fan asks to be notified, the label restocks in the console, the mail arrives and opens the product', async ({ page, browser, request }) => {
  test.setTimeout(120_000);
  const item = await tee(request, 0);
  const visitor = newUser().email;

  // Signed out: an address, confirmed by the mailed link (the link's page only confirms on a press).
  await page.goto(`/product/${item.id}`);
  await expect(page.getByRole('heading', { name: item.name, level: 1 })).toBeVisible();
  const form = page.getByRole('form', { name: NOTIFY_TEXTS.ask(item.name) });
  await form.getByLabel(NOTIFY_TEXTS.emailLabel).fill(visitor);
  await form.getByRole('button', { name: NOTIFY_TEXTS.ask(item.name) }).click();
  await expect(page.getByRole('status').filter({ hasText: DROP_MESSAGES.notifySent })).toBeVisible();
  await page.goto(await mailLink(request, visitor, 'Confirm: tell me when', '/notify/confirm'));
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByRole('status').filter({ hasText: DROP_MESSAGES.notifyConfirmed })).toBeVisible();

  // Signed in: one click, and the page says so.
  const fan = await createVerifiedUser(request);
  const fanContext = await browser.newContext();
  const fanPage = await fanContext.newPage();
  await logIn(fanPage, fan);
  await fanPage.goto(`/product/${item.id}`);
  await fanPage.getByRole('button', { name: NOTIFY_TEXTS.ask(item.name) }).click();
  await expect(fanPage.getByRole('status').filter({ hasText: NOTIFY_TEXTS.on })).toBeVisible();
  await expect(fanPage.getByRole('button', { name: NOTIFY_TEXTS.leave(item.name) })).toBeVisible();

  // The label restocks two units from the console's low-stock list.
  const labelContext = await browser.newContext();
  const label = await labelContext.newPage();
  await logIn(label, DEMO_ADMIN);
  await label.goto('/release');
  await label.getByLabel(`New stock for ${item.name}`).fill('2');
  await label.getByLabel(`New stock for ${item.name}`).press('Enter');
  await expect(label.locator('.Toastify').getByText(`${item.name}: stock set to 2.`)).toBeVisible();

  // Both are told, in the order they asked; the mail's link opens the product.
  const productLink = await mailLink(request, visitor, 'is back in stock', '/product/');
  expect(productLink).toBe(`/product/${item.id}`);
  await mailLink(request, fan.email, 'is back in stock', '/product/');
  await page.goto(productLink);
  await expect(page.getByRole('heading', { name: item.name, level: 1 })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Add to Cart' })).toBeEnabled();
  await fanContext.close();
  await labelContext.close();
});

test('a fan hearts a product and sees it on /wishlist at 375 px', async ({ page, request }) => {
  test.setTimeout(90_000);
  const item = await tee(request, 3);
  const fan = await createVerifiedUser(request);
  await page.setViewportSize({ width: 375, height: 800 });
  await logIn(page, fan);
  await page.goto(`/product/${item.id}`);
  const heart = page.getByRole('button', { name: WISHLIST_TEXTS.add(item.name) });
  await expect(heart).toHaveAttribute('aria-pressed', 'false');
  // By keyboard, once the wishlist is read (the button waits for it).
  await expect(heart).toBeEnabled();
  await heart.focus();
  await page.keyboard.press('Enter');
  await expect(heart).toHaveAttribute('aria-pressed', 'true');

  // The header's menu leads to /wishlist.
  await page.getByRole('button', { name: 'Menu' }).click();
  await page.getByRole('link', { name: 'MY WISHLIST' }).click();
  await expect(page).toHaveURL(/\/wishlist$/);
  const entry = page.getByTestId('wishlist-item').filter({ hasText: item.name });
  await expect(entry).toContainText('In stock');
  await expect(entry).toContainText('$23.00');
  await expect(entry.getByRole('link', { name: item.name })).toBeVisible();
  // Nothing runs off the narrow screen.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);

  // The heart on /wishlist removes it.
  await entry.getByRole('button', { name: WISHLIST_TEXTS.add(item.name) }).click();
  await expect(page.getByText('Your wishlist is empty.')).toBeVisible();
});
