// Announcements (issue 37 part 3, decision 079) in a real browser: the label writes one in the
// console's Announcements tab (to the followers of one artist, linking a product), previews it
// as mail, sends itself a test (the mail arrives), sends it for real to the one consenting
// follower (a follower without consent gets nothing) and reads the report.
import { createVerifiedUser, mailLink } from './support/accounts.ts';
import { callAs, tokenOf } from './support/api.ts';
import { test, expect, DEMO_ADMIN } from './support/fixtures.ts';
import { logIn } from './support/login.ts';

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

test('the label writes an announcement, sends a test and then for real, and reads the report', async ({ page, request }) => {
  test.setTimeout(120_000);
  const id = unique();
  const artistName = `E2E Announce Artist ${id}`;
  const subject = `E2E news ${id}`;
  const admin = await tokenOf(request, DEMO_ADMIN);
  const { id: artistId } = await callAs(request, admin, 'saveArtist', { name: artistName, links: [] });
  // Two followers of the artist: one said yes to news, one did not.
  const yes = await createVerifiedUser(request);
  const no = await createVerifiedUser(request);
  for (const fan of [yes, no]) await callAs(request, await tokenOf(request, fan), 'setFollow', { target: { kind: 'artist', artistId }, followed: true });
  await callAs(request, await tokenOf(request, yes), 'setMyConsent', { consented: true, page: '/account' });

  await logIn(page, DEMO_ADMIN);
  await page.goto('/release/announcements');
  await page.getByRole('button', { name: 'New announcement' }).click();
  const form = page.getByRole('form', { name: 'New announcement' });
  await form.getByLabel('Subject').fill(subject);
  await form.getByLabel('Text').fill(`The new record is out.\n\nCome and hear it, ${id}.`);
  await form.getByLabel('Link to').selectOption('product');
  const which = form.getByLabel('Which product');
  await expect(which.locator('option')).not.toHaveCount(1);
  const productName = (await which.locator('option').nth(1).textContent())!;
  await which.selectOption({ index: 1 });
  await form.getByRole('checkbox', { name: 'The label' }).uncheck();
  await form.getByRole('checkbox', { name: artistName }).check();
  await form.getByRole('button', { name: 'Save draft' }).click();

  await expect(page.getByRole('heading', { name: subject })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Send to 1 fan', exact: true })).toBeVisible();

  // The preview shows the mail as a fan gets it.
  await page.getByRole('button', { name: 'Preview as mail' }).click();
  const preview = page.frameLocator('iframe[title="The announcement as mail"]');
  await expect(preview.getByText(`Come and hear it, ${id}.`)).toBeVisible();
  await expect(preview.getByRole('link', { name: productName })).toBeVisible();

  // A test to the label's own address arrives.
  await page.getByRole('button', { name: 'Send me a test' }).click();
  await expect(page.locator('.Toastify').getByText(`Test sent to ${DEMO_ADMIN.email}.`)).toBeVisible();
  expect(await mailLink(request, DEMO_ADMIN.email, `[Test] ${subject}`, '/product/')).toMatch(/^\/product\//);

  // For real: to the one consenting follower; the report says so.
  await page.getByRole('button', { name: 'Send to 1 fan', exact: true }).click();
  await page.getByRole('button', { name: 'Yes, send it to 1 fan' }).click();
  await expect(page.getByRole('heading', { name: 'Report' })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('count-sent')).toHaveText('1');
  await expect(page.getByTestId('count-unknown')).toHaveText('0');
  await expect(page.getByTestId('count-failed')).toHaveText('0');
  const leave = await mailLink(request, yes.email, subject, '/news/leave');
  expect(leave).toMatch(/^\/news\/leave\?token=/);
  const mailbox = await (await request.get('/dev/mailbox')).text();
  const received = [...mailbox.matchAll(/<article><h2>(.*?)<\/h2><p>To: (.*?) · /g)].filter(([, title = '']) => title === subject).map(([, , to]) => to);
  expect(received).toEqual([yes.email]);

  // The list shows it sent.
  await page.getByRole('button', { name: 'All announcements' }).click();
  const row = page.getByRole('row').filter({ hasText: subject });
  await expect(row.getByText('sent', { exact: true })).toBeVisible();
  await expect(row.getByText('1 of 1')).toBeVisible();
});
