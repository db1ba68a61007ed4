// The account page (issue 17, decision 032): profile, email change by link, password
// change that signs out the other sessions, saved addresses, data download, deletion.
import fs from 'node:fs';
import type { APIRequestContext, Page } from '@playwright/test';
import { createVerifiedUser, mailLink } from './support/accounts.ts';
import { callAs, tokenOf } from './support/api.ts';
import { runCli } from './support/cli.ts';
import { fillLogin, logIn } from './support/login.ts';
import { test, expect, DEMO_ADMIN, ORIGIN } from './support/fixtures.ts';

const COVER = '/content/covers/cover-01.svg';

async function openAccount(page: Page) {
  await page.getByRole('link', { name: 'MY ACCOUNT' }).click();
  await expect(page).toHaveURL(/\/account$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('My account');
}

/** A wallet order by `user` shipped to `line1`, placed through the functions (as the checkout does). */
async function placeOrder(request: APIRequestContext, user: { email: string; password: string; name: string }, line1: string) {
  const admin = await tokenOf(request, DEMO_ADMIN);
  const { id: productId } = await callAs(request, admin, 'releaseBizarreProduct', {
    name: `E2E Account ${Date.now().toString(36)}`,
    description: 'For the account page test.',
    priceCents: 1200,
    images: [COVER],
  });
  const token = await tokenOf(request, user);
  const items = [{ id: productId, qty: 1 }];
  const quote = await callAs(request, token, 'quoteCheckout', { items, useWallet: true });
  await callAs(request, token, 'completeWalletOnlyOrderStreetFlavor', {
    items,
    quote,
    checkoutId: `e2e-account-${Date.now()}`,
    contact: { name: user.name, email: user.email, phone: '' },
    shipping: { name: 'Ann Account', line1, line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' },
  });
}

test('the header links to My account; the profile saves by keyboard and keeps the username', async ({ page, request }) => {
  const user = await createVerifiedUser(request);
  await logIn(page, user);
  await openAccount(page);
  await expect(page.getByText(user.username, { exact: true })).toBeVisible();
  await expect(page.getByText('cannot be changed', { exact: false }).first()).toBeVisible();

  const name = page.getByLabel('Name', { exact: true });
  await name.fill('Edna Account');
  await page.getByLabel('City (optional)').fill('Portland');
  await page.getByLabel('Country (optional)').selectOption('US');
  await page.getByLabel('State (optional)').selectOption('OR');
  // Enter in a field sends the form: no mouse needed.
  await name.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: 'Your profile has been saved.' })).toBeVisible();

  await page.reload();
  await expect(page.getByLabel('Name', { exact: true })).toHaveValue('Edna Account');
  await expect(page.getByLabel('City (optional)')).toHaveValue('Portland');
  await expect(page.getByLabel('State (optional)')).toHaveValue('OR');
});

test('changing the password signs out the other browser and keeps this one', async ({ page, browser, request, consoleErrors }) => {
  consoleErrors.allow(/status of 400/);
  const user = await createVerifiedUser(request);
  const other = await browser.newContext();
  const otherPage = await other.newPage();
  await logIn(otherPage, user);
  await logIn(page, user);
  await openAccount(page);

  const card = page.getByRole('region', { name: 'Password' });
  await card.getByLabel('Current password').fill('not the password');
  await card.getByLabel('New password', { exact: true }).fill('second-pass-456');
  await card.getByLabel('Confirm new password').fill('second-pass-456');
  await card.getByRole('button', { name: 'Change password' }).click();
  await expect(card.getByRole('alert')).toHaveText('Your current password is not right.');

  await card.getByLabel('Current password').fill(user.password);
  await card.getByRole('button', { name: 'Change password' }).click();
  await expect(card.getByRole('status')).toHaveText('Your password has been changed. Every other session has been signed out.');

  // This browser stays signed in; the other is signed out.
  await page.reload();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('My account');
  await otherPage.goto('/wallet');
  await expect(otherPage).toHaveURL(/\/login$/);
  await fillLogin(otherPage, user);
  await expect(otherPage.getByRole('alert')).toContainText('Invalid email or password');
  await fillLogin(otherPage, { email: user.email, password: 'second-pass-456' });
  await expect(otherPage).toHaveURL(/\/wallet$/);
  await other.close();
});

test('changing the email takes effect only when the link in the mail is opened', async ({ page, request, consoleErrors }) => {
  const user = await createVerifiedUser(request);
  const newEmail = user.email.replace('@', '.new@');
  await logIn(page, user);
  await openAccount(page);
  const card = page.getByRole('region', { name: 'Email' });
  await card.getByLabel('New email').fill(newEmail);
  await card.getByLabel('Current password').fill(user.password);
  await card.getByRole('button', { name: 'Change email' }).click();
  await expect(card.getByRole('status')).toContainText(`We sent a link to ${newEmail}. Your email changes when you open that link`);
  await page.reload();
  await expect(page.getByRole('region', { name: 'Email' })).toContainText(`Your email address is ${user.email}.`);

  const link = await mailLink(request, newEmail, 'Confirm your new email');
  await page.goto(link);
  await expect(page.getByRole('status')).toHaveText(`Your email is now ${newEmail}. Use it the next time you log in.`);
  await page.getByRole('link', { name: 'Go to My account' }).click();
  await expect(page.getByRole('region', { name: 'Email' })).toContainText(`Your email address is ${newEmail}.`);

  // The same link again: a sentence, not a change.
  consoleErrors.allow(/404/);
  await page.goto(link);
  await expect(page.getByRole('alert')).toHaveText('This link has expired or was already used. Please ask for a new one from your account page.');
});

test('saved addresses can be deleted from the account page', async ({ page, request, playwright }) => {
  const user = await createVerifiedUser(request);
  await runCli(['grant-credits', user.email, '100']);
  const api = await playwright.request.newContext({ baseURL: ORIGIN });
  await placeOrder(api, user, '7 Delete Lane');
  await api.dispose();
  await logIn(page, user);
  await openAccount(page);
  const card = page.getByRole('region', { name: 'Saved addresses' });
  await expect(card.getByText('Ann Account, 7 Delete Lane, Springfield IL 62701, US')).toBeVisible();
  await card.getByRole('button', { name: 'Delete address Ann Account, 7 Delete Lane, Springfield IL 62701, US' }).click();
  await expect(card).toContainText('You have no saved addresses.');
  await page.reload();
  await expect(page.getByRole('region', { name: 'Saved addresses' })).toContainText('You have no saved addresses.');
});

test('download my data saves a JSON file of the user’s own data', async ({ page, request }) => {
  const user = await createVerifiedUser(request);
  await runCli(['grant-credits', user.email, '12.50']);
  await logIn(page, user);
  await openAccount(page);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download my data' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^street-flavor-records-my-data-\d{4}-\d\d-\d\d\.json$/);
  const data = JSON.parse(fs.readFileSync(await download.path(), 'utf8')) as {
    profile: { email: string; username: string };
    wallet: { balanceCents: number };
    walletLedger: { kind: string }[];
  };
  expect(data.profile).toMatchObject({ email: user.email, username: user.username });
  expect(data.wallet.balanceCents).toBe(1250);
  expect(data.walletLedger.map((entry) => entry.kind)).toEqual(['grant']);
  await expect(page.getByText('Your data has been downloaded.')).toBeVisible();
});

test('deleting the account says what happens, needs the password, and the account cannot log in afterwards', async ({ page, request, consoleErrors }) => {
  const user = await createVerifiedUser(request);
  await runCli(['grant-credits', user.email, '20']);
  await logIn(page, user);
  await openAccount(page);
  const card = page.getByRole('region', { name: 'Delete my account' });
  await expect(card).toContainText('Your wallet credit of $20.00 is given up');
  await expect(card).toContainText('You are signed out everywhere at once');
  await card.getByRole('button', { name: 'Delete my account…' }).click();
  // The password field takes the focus: the rest works from the keyboard.
  await expect(card.getByLabel('Your password')).toBeFocused();
  await page.keyboard.type('wrong-password');
  await card.getByLabel('Type DELETE to confirm').fill('DELETE');
  consoleErrors.allow(/400/);
  await card.getByRole('button', { name: 'Delete my account permanently' }).click();
  await expect(card.getByRole('alert')).toHaveText('Your current password is not right.');

  await card.getByLabel('Your password').fill(user.password);
  await card.getByLabel('Your password').press('Enter');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Account deleted');
  await expect(page.getByRole('link', { name: 'LOGIN' })).toBeVisible();

  await page.goto('/login');
  consoleErrors.allow(/401/);
  await fillLogin(page, user);
  await expect(page.getByRole('alert')).toContainText('Invalid email or password');
});

test('on a phone the menu holds MY ACCOUNT and the page fits the screen; a failed load offers Retry', async ({ page, request, consoleErrors }) => {
  const user = await createVerifiedUser(request);
  await page.setViewportSize({ width: 375, height: 800 });
  await logIn(page, user);
  await page.getByRole('button', { name: 'Menu' }).click();
  await page.getByRole('link', { name: 'MY ACCOUNT' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('My account');
  await expect(page.getByRole('region', { name: 'Delete my account' })).toBeVisible();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);

  // The server unreachable for the profile: a sentence and Retry, which loads it.
  consoleErrors.allow(/503/);
  let fail = true;
  await page.route('**/fn/getProfile', (route) =>
    fail
      ? route.fulfill({ status: 503, contentType: 'application/json', body: '{"error":{"status":"UNAVAILABLE","message":"The shop is not reachable right now."}}' })
      : route.continue(),
  );
  await page.reload();
  await expect(page.getByRole('alert').filter({ hasText: 'Your account could not be loaded.' })).toBeVisible();
  fail = false;
  await page.getByRole('button', { name: 'Retry' }).click();
  await expect(page.getByRole('region', { name: 'Profile' })).toBeVisible();
});
