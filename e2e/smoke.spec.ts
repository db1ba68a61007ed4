import { expect, test, type Page } from '@playwright/test';

/** Every route of spec section 2 renders its heading with no console errors. */
const ROUTES: [string, string][] = [
  ['/', 'Street Flavor Records'],
  ['/home', 'Street Flavor Records'],
  ['/about', 'About'],
  ['/history', 'History'],
  ['/shop', 'Shop'],
  ['/product/1', 'Product'],
  ['/contact', 'Contact'],
  ['/order-confirmation', 'Order confirmation'],
  ['/my-orders', 'My Orders'],
  ['/privacy-policy', 'Privacy Policy'],
  ['/login', 'Login'],
  ['/signup', 'Sign up'],
  ['/wallet', 'Wallet'],
  ['/release', 'Release'],
  ['/checkout', 'Checkout'],
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

for (const [path, heading] of ROUTES) {
  test(`${path} renders "${heading}"`, async ({ page }) => {
    const errors = collectConsoleErrors(page);
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(heading);
    await expect(page.getByRole('heading', { level: 1 })).toHaveCount(1);
    expect(errors).toEqual([]);
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
  const sites = page.locator('a[target="_blank"][rel~="noopener"]', { hasText: /SPNDAT|THE DAT CHAIN|STREET FLAVOR RECORDS|DAT TICKETS|THE VID BOX|BYPASS THE MASTER|YOUNG STRUGGLE|TDC MARKET/ });
  await expect(sites).toHaveCount(8);
});
