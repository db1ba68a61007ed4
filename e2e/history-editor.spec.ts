// The History editor edits one entry at a time (issue 29 item 8), in a real browser at 1366 px
// and on a 375 px phone: a line per entry, Edit opens that entry alone (the others wait), Save
// entry changes only it and the public page shows it; Add entry and Remove; axe finds nothing
// serious with an entry open.
import type { Page } from '@playwright/test';
import { seriousAxeProblems } from './support/axe.ts';
import { test, expect, DEMO_ADMIN } from './support/fixtures.ts';
import { rememberingLogIn } from './support/login.ts';

const logIn = rememberingLogIn();
const entries = (page: Page) => page.getByTestId('history-entry');

for (const viewport of [
  { name: '1366 px', width: 1366, height: 900 },
  { name: '375 px phone', width: 375, height: 740 },
]) {
  test(`history at ${viewport.name}: one entry at a time`, async ({ page }) => {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    await logIn(page, DEMO_ADMIN);
    await page.goto('/release/content');
    await page.getByLabel('Page', { exact: true }).selectOption({ label: 'History' });
    await expect(entries(page).first()).toBeVisible();
    const count = await entries(page).count();
    expect(count).toBeGreaterThan(1);
    // A line per entry: no form fields until one is opened.
    await expect(page.getByLabel('Title', { exact: true })).toHaveCount(0);

    const first = entries(page).first();
    const oldTitle = (await first.locator('strong').textContent())!;
    await first.getByRole('button', { name: `Edit ${oldTitle}` }).click();
    const form = page.getByRole('form', { name: 'Edit entry 1' });
    await expect(form.getByLabel('Release date')).toBeFocused();
    await expect(page.getByLabel('Title', { exact: true })).toHaveCount(1);
    // The other entries wait until this one is saved or cancelled.
    await expect(
      entries(page)
        .nth(1)
        .getByRole('button', { name: /^Edit / }),
    ).toBeDisabled();
    expect(await seriousAxeProblems(page)).toEqual([]);
    if (viewport.width === 375) expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);

    const newTitle = `E2E Single ${viewport.width} ${Date.now().toString(36)}`;
    await form.getByLabel('Title', { exact: true }).fill(newTitle);
    await form.getByRole('button', { name: 'Save entry' }).click();
    await expect(page.getByText('The history is saved.')).toBeVisible();
    await expect(form).toHaveCount(0);
    await expect(entries(page)).toHaveCount(count);
    const saved = entries(page).filter({ hasText: newTitle });
    await expect(saved).toHaveCount(1);
    // Focus is back on the entry's Edit button.
    await expect(saved.getByRole('button', { name: `Edit ${newTitle}` })).toBeFocused();

    const visitor = await page.context().newPage();
    await visitor.goto('/history');
    await expect(visitor.getByText(newTitle)).toBeVisible();
    await visitor.close();

    // Cancel leaves it as it was.
    await saved.getByRole('button', { name: `Edit ${newTitle}` }).click();
    await page.getByLabel('Title', { exact: true }).fill('Not kept');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect(entries(page).filter({ hasText: 'Not kept' })).toHaveCount(0);

    // Add one, then remove it.
    await page.getByRole('button', { name: 'Add entry' }).click();
    const added = page.getByRole('form', { name: 'New entry' });
    const addedTitle = `E2E Added ${viewport.width} ${Date.now().toString(36)}`;
    await added.getByLabel('Release date').fill('2001-02-03');
    await added.getByLabel('Title', { exact: true }).fill(addedTitle);
    await added.getByLabel('Format').fill('EP');
    await added.getByRole('button', { name: 'Save entry' }).click();
    await expect(entries(page)).toHaveCount(count + 1);
    await entries(page)
      .filter({ hasText: addedTitle })
      .getByRole('button', { name: `Remove ${addedTitle}` })
      .click();
    await page.getByRole('dialog', { name: 'Remove this entry?' }).getByRole('button', { name: 'Yes, remove' }).click();
    await expect(entries(page)).toHaveCount(count);

    // Put the first title back for the other runs.
    await entries(page)
      .filter({ hasText: newTitle })
      .getByRole('button', { name: `Edit ${newTitle}` })
      .click();
    await page.getByLabel('Title', { exact: true }).fill(oldTitle);
    await page.getByRole('button', { name: 'Save entry' }).click();
    await expect(entries(page).filter({ hasText: oldTitle }).first()).toBeVisible();
  });
}
