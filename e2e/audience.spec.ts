// The label's list (issue 37 part 6, decision 078) in a real browser: the label opens the
// console's Audience tab from the tab bar by keyboard, reads its counts, downloads the CSV of
// consenting fans (exactly them: a fan who withdrew, one who has not confirmed and one who never
// said yes are not in it), imports a file with broken rows and reads the report; the tab works at 375 px.
import fs from 'node:fs';
import { AUDIENCE_MESSAGES, CsvReader } from '@storefront/domain/audience.ts';
import { createVerifiedUser, newUser } from './support/accounts.ts';
import { callAs, tokenOf } from './support/api.ts';
import { test, expect, DEMO_ADMIN } from './support/fixtures.ts';
import { logIn } from './support/login.ts';

function readCsv(text: string): string[][] {
  const reader = new CsvReader();
  return [...reader.push(text.replace(/^\uFEFF/, '')), ...reader.end()].map((record) => record.cells);
}

test('the label reads the Audience tab, exports exactly the consenting fans and imports a file with broken rows', async ({ page, request }) => {
  test.setTimeout(120_000);
  // Fans in every state: consenting, withdrawn, pending (the form's mail not confirmed), never asked.
  const consenting = await createVerifiedUser(request);
  await callAs(request, await tokenOf(request, consenting), 'setMyConsent', { consented: true, page: '/account' });
  const withdrawn = await createVerifiedUser(request);
  const withdrawnToken = await tokenOf(request, withdrawn);
  await callAs(request, withdrawnToken, 'setMyConsent', { consented: true, page: '/account' });
  await callAs(request, withdrawnToken, 'setMyConsent', { consented: false, page: '/account' });
  const pending = newUser().email;
  expect((await request.post('/fn/subscribeToNews', { data: { data: { email: pending, page: '/' } } })).ok()).toBe(true);
  const never = await createVerifiedUser(request);

  await logIn(page, DEMO_ADMIN);
  await page.goto('/release/sales');
  // From the tab bar, by keyboard: the arrow key moves from Sales to Audience.
  await page.getByRole('tab', { name: 'Sales' }).focus();
  await page.keyboard.press('ArrowRight');
  await expect(page).toHaveURL(/\/release\/audience$/);
  await expect(page.getByRole('tab', { name: 'Audience' })).toBeFocused();
  await expect(page.getByRole('heading', { name: 'Audience', level: 2 })).toBeVisible();
  const figure = (term: string) =>
    page
      .locator('.console-audience__figures div')
      .filter({ has: page.locator('dt', { hasText: new RegExp(`^${term}$`) }) })
      .locator('dd');
  await expect(figure('Consenting fans')).toHaveText(/^\d[\d,]*$/);
  const shown = Number((await figure('Consenting fans').textContent())!.replace(/,/g, ''));
  expect(shown).toBeGreaterThanOrEqual(1);
  await expect(figure('Unsubscribed')).not.toHaveText('0');
  await expect(page.getByRole('table', { name: 'Growth by week' })).toBeVisible();

  // The export: exactly the consenting fans the tab counts.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download consenting fans (CSV)' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^audience-\d{4}-\d{2}-\d{2}\.csv$/);
  const [header, ...rows] = readCsv(fs.readFileSync((await download.path())!, 'utf8'));
  expect(header).toEqual(['email', 'name', 'country', 'consented_at', 'consent_source', 'follows']);
  const emails = rows.map((row) => row[0]);
  expect(emails).toHaveLength(shown);
  expect(new Set(emails).size).toBe(shown);
  expect(emails).toContain(consenting.email);
  for (const absent of [withdrawn.email, pending, never.email]) expect(emails).not.toContain(absent);
  expect(rows.find((row) => row[0] === consenting.email)?.[4]).toBe('account');

  // The import: a Bandcamp-shaped file with two good rows and three broken ones.
  const tag = Date.now().toString(36);
  const [goodA, goodB] = [`e2e-import-a-${tag}@example.net`, `e2e-import-b-${tag}@example.net`];
  const file = [
    '"email","fullname","firstname","lastname","date added","country"',
    `"${goodA}","Import A","","","2021-03-14 18:15:42 UTC","Brazil"`,
    `"${goodB}","Import B","","","2022-01-02","Chile"`,
    `"${goodA.toUpperCase()}","Import A again","","","2022-01-02","Brazil"`,
    `"not an address","Nobody","","","2022-01-02",""`,
    `"e2e-import-nodate-${tag}@example.net","No Date","","","",""`,
  ].join('\n');
  await page.getByLabel('CSV file').setInputFiles({ name: 'bandcamp-mailing-list.csv', mimeType: 'text/csv', buffer: Buffer.from(file) });
  await page.getByRole('button', { name: 'Import fans' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Import done' })).toHaveText('Import done: 5 rows read, 2 added, 0 merged, 3 refused.');
  const refused = page.getByRole('table', { name: 'Refused rows' });
  await expect(refused.getByRole('row')).toHaveCount(4);
  await expect(refused.getByRole('row', { name: /^4 / })).toContainText(AUDIENCE_MESSAGES.duplicate(2));
  await expect(refused.getByRole('row', { name: /^5 / })).toContainText(AUDIENCE_MESSAGES.badEmail);
  await expect(refused.getByRole('row', { name: /^6 / })).toContainText(AUDIENCE_MESSAGES.noDate);
  await expect(figure('Consenting fans')).toHaveText((shown + 2).toLocaleString('en-US'));

  // The cart reminder (part 7): off by default; turned on with its hours, then off again (the e2e shop's other tests see it off).
  const remind = page.getByRole('checkbox', { name: 'Remind fans of an unpaid checkout' });
  await expect(remind).not.toBeChecked();
  await expect(page.getByLabel('after (hours)')).toBeDisabled();
  await remind.check();
  await page.getByLabel('after (hours)').fill('12');
  await page.getByRole('button', { name: 'Save reminder' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Cart reminders are on' })).toHaveText('Cart reminders are on: sent 12 hours after a checkout is left unpaid.');
  await remind.uncheck();
  await page.getByRole('button', { name: 'Save reminder' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Cart reminders are off.' })).toBeVisible();

  // A phone: the tab fits 375 px (its tables scroll inside their own regions) and the import is still there.
  await page.setViewportSize({ width: 375, height: 740 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await page.getByRole('button', { name: 'Import fans' }).scrollIntoViewIfNeeded();
  await expect(page.getByRole('button', { name: 'Import fans' })).toBeVisible();
});

test('a cart reminder’s link that is not valid rebuilds nothing and says so', async ({ page }) => {
  await page.goto('/cart/restore?token=not-a-signed-link');
  await expect(page.getByRole('heading', { name: 'Your cart', level: 1 })).toBeVisible();
  await expect(page.getByRole('status')).toHaveText('This link is not valid any more: your cart could not be rebuilt.');
  await expect(page.getByRole('link', { name: 'Back to the shop' })).toBeVisible();
});
