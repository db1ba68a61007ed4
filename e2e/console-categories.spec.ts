// The shop's categories managed in the console (issue 29 item 3), in a real browser at 1366 px
// and on a 375 px phone: add, rename, order, remove only when empty (disabled with the reason
// otherwise); the release form chooses one and the shop lists the product under it; axe finds
// nothing serious on the tab.
import { CATEGORY_MESSAGES } from '@storefront/domain/catalog.ts';
import { seriousAxeProblems } from './support/axe.ts';
import { test, expect, DEMO_ADMIN } from './support/fixtures.ts';
import { rememberingLogIn } from './support/login.ts';

const logIn = rememberingLogIn();

for (const viewport of [
  { name: '1366 px', width: 1366, height: 900 },
  { name: '375 px phone', width: 375, height: 740 },
]) {
  test(`categories at ${viewport.name}: add, rename, order, remove when empty; the release form and the shop use them`, async ({ page }) => {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    await logIn(page, DEMO_ADMIN);
    const suffix = `${viewport.width}${Date.now().toString(36)}`;
    const first = `E2E Posters ${suffix}`;
    const renamed = `E2E Prints ${suffix}`;
    await page.goto('/release/categories');
    const rows = page.getByTestId('console-category');
    await expect(rows.first()).toBeVisible();

    // The default category cannot be removed, and says why.
    const merch = rows.filter({ has: page.getByRole('textbox', { name: 'Name of Merch' }) });
    await expect(merch.getByRole('button', { name: 'Remove Merch' })).toBeDisabled();
    await expect(merch).toContainText(CATEGORY_MESSAGES.isDefault);

    await page.getByLabel('New category').fill(first);
    await page.getByRole('button', { name: 'Add category' }).click();
    const row = rows.filter({ has: page.getByRole('textbox', { name: `Name of ${first}` }) });
    await expect(row).toBeVisible();
    await expect(row).toContainText('0 products');
    await row.getByRole('textbox').fill(renamed);
    await row.getByRole('button', { name: `Rename ${first}` }).click();
    const renamedRow = rows.filter({ has: page.getByRole('textbox', { name: `Name of ${renamed}` }) });
    await expect(renamedRow).toBeVisible();
    // Move it up one place.
    const before = await rows.count();
    await renamedRow.getByRole('button', { name: `Move ${renamed} up` }).click();
    await expect(rows.nth(before - 2).getByRole('textbox')).toHaveValue(renamed);
    expect(await seriousAxeProblems(page)).toEqual([]);
    if (viewport.width === 375) expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);

    // The release form offers it; the released product is in it, so it cannot be removed.
    await page.getByRole('tab', { name: 'Release Product' }).click();
    const product = `E2E Poster ${suffix}`;
    await page.getByLabel('Name', { exact: true }).fill(product);
    await page.getByLabel('Price (USD)').fill('12');
    await page.getByLabel('Description').fill('A poster.');
    await page.getByLabel('Category', { exact: true }).selectOption({ label: renamed });
    await page.getByLabel('Add images').setInputFiles([
      {
        name: 'poster.png',
        mimeType: 'image/png',
        buffer: Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64'),
      },
    ]);
    await page.getByRole('button', { name: 'Release Product' }).click();
    await expect(page.getByRole('status').filter({ hasText: product })).toBeVisible();

    await page.getByRole('tab', { name: 'Categories' }).click();
    await expect(renamedRow).toContainText('1 product');
    await expect(renamedRow.getByRole('button', { name: `Remove ${renamed}` })).toBeDisabled();
    await expect(renamedRow).toContainText(CATEGORY_MESSAGES.notEmpty(1));

    // The shop's filter lists the category, with the product in it.
    const shop = await page.context().newPage();
    await shop.goto('/shop');
    await shop.getByRole('navigation', { name: 'Categories' }).getByRole('link', { name: renamed }).click();
    await expect(shop.getByRole('list', { name: 'Products' }).getByRole('listitem')).toHaveCount(1);
    await expect(shop.getByRole('list', { name: 'Products' })).toContainText(product);
    await shop.close();

    // Once the product moves to another category, the empty one is removed.
    await page.goto('/release/products');
    await page.getByRole('link', { name: product }).click();
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Category', { exact: true }).selectOption({ label: 'Music' });
    await page.getByRole('button', { name: 'Save Changes' }).click();
    await expect(page.getByRole('button', { name: 'Edit' })).toBeVisible();
    await page.goto('/release/categories');
    await expect(renamedRow).toContainText('0 products');
    await renamedRow.getByRole('button', { name: `Remove ${renamed}` }).click();
    await expect(renamedRow).toHaveCount(0);
  });
}
