import { expect, test, type Page } from '@playwright/test';

/**
 * Every route of spec section 2 renders its heading, for a signed-out visitor, with no
 * console errors but the one a row names (Chromium logs every 4xx answer).
 */
const ROUTES: [path: string, heading: string, allowedError?: RegExp][] = [
  ['/', 'Street Flavor Records'],
  ['/home', 'Street Flavor Records'],
  ['/about', 'About'],
  ['/history', 'History'],
  ['/shop', 'Shop'],
  ['/product/1', 'Product not found.', /status of 404/],
  ['/contact', 'Contact'],
  ['/order-confirmation', 'Order confirmation'],
  // Signed-out visitors are sent to log in (spec section 6).
  ['/my-orders', 'Login'],
  ['/privacy-policy', 'Privacy Policy'],
  ['/login', 'Login'],
  ['/signup', 'Sign up'],
  ['/wallet', 'Login'],
  ['/release', 'Login'],
  ['/checkout', 'Login'],
  ['/no-such-page', 'Page not found'],
];

function collectConsoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}

for (const [path, heading, allowedError] of ROUTES) {
  test(`${path} renders "${heading}"`, async ({ page }) => {
    const errors = collectConsoleErrors(page);
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(heading);
    await expect(page.getByRole('heading', { level: 1 })).toHaveCount(1);
    expect(errors.filter((text) => !allowedError?.test(text))).toEqual([]);
  });
}

test('the home gallery shows ten covers linking out, and the content pages their text', async ({ page }) => {
  await page.goto('/home');
  const covers = page.locator('main a[target="_blank"] img');
  await expect(covers).toHaveCount(10);
  await page.goto('/history');
  await expect(page.getByText('1993', { exact: false }).first()).toBeVisible();
  await page.goto('/contact');
  await expect(page.locator('a[href^="mailto:"]')).toHaveAttribute('href', 'mailto:info@streetflavorrecords.example');
});

test('the hamburger shows at 375 px and not at 1280 px', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/home');
  const toggle = page.getByRole('button', { name: 'Menu' });
  await expect(toggle).toBeHidden();
  await page.setViewportSize({ width: 375, height: 740 });
  await expect(toggle).toBeVisible();
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  await expect(page.getByRole('link', { name: 'ABOUT' })).toBeVisible();
});

test('the TDC MARKET PLACE menu opens eight sites in new tabs', async ({ page }) => {
  await page.goto('/home');
  await page.getByRole('button', { name: /TDC MARKET PLACE/ }).click();
  const sites = page.locator('a[target="_blank"][rel~="noopener"]', {
    hasText: /SPNDAT|THE DAT CHAIN|STREET FLAVOR RECORDS|DAT TICKETS|THE VID BOX|BYPASS THE MASTER|YOUNG STRUGGLE|TDC MARKET/,
  });
  await expect(sites).toHaveCount(8);
});
