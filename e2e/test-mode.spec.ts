import { DEMO_ADMIN, expect, test } from './support/fixtures.ts';

/**
 * Issue 13: while card payments are fake (the local provider this server runs; in
 * production only with ALLOW_TEST_PAYMENTS=1) every page says TEST MODE, the admin's
 * release view included, and it stays through client-side navigation.
 */
const BANNER = 'TEST MODE: payments here are not real and no card is charged.';

test('the shop shows the TEST MODE banner on every page, the admin release view included', async ({ page }) => {
  await page.goto('/shop');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Shop');
  await expect(page.getByText(BANNER)).toBeVisible();

  // A client-side route change keeps it (it is outside the React root).
  await page.getByRole('banner').getByRole('link', { name: 'ABOUT', exact: true }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('About');
  await expect(page.getByText(BANNER)).toBeVisible();

  await page.goto('/release');
  await expect(page).toHaveURL(/\/login$/);
  await page.getByLabel('Email').fill(DEMO_ADMIN.email);
  await page.getByLabel('Password').fill(DEMO_ADMIN.password);
  await page.getByRole('button', { name: 'Login', exact: true }).click();
  await expect(page).toHaveURL(/\/release$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Release');
  await expect(page.getByText(BANNER)).toBeVisible();
  // Exactly one banner, above the page.
  await expect(page.locator('[data-test-mode]')).toHaveCount(1);
});
