// Accounts in a real browser (issue 3): signup with the terms modal, the verification
// mail, login, a session that survives a reload, logout, password reset, the spec's
// login and signup messages, and the header links per role.
import { type Page } from '@playwright/test';
import { createUser, createVerifiedUser, mailLink, newUser } from './support/accounts.ts';
import { test, expect, DEMO_ADMIN, DEMO_SHOPPER } from './support/fixtures.ts';
import { fillLogin } from './support/login.ts';
import { ARTIST_NAME_NOTE, LOGIN_MESSAGES, SIGNUP_MESSAGES } from '@storefront/domain/accounts.ts';
import { ACCOUNT_TEXTS } from '../apps/web/src/features/accounts/messages.ts';

const logIn = (page: Page, email: string, password: string) => fillLogin(page, { email, password });

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

async function expectSignedInHeader(page: Page, role: 'user' | 'admin') {
  const header = nav(page);
  await expect(header.getByRole('button', { name: 'LOGOUT' })).toBeVisible();
  await expect(header.getByRole('link', { name: 'WALLET' })).toBeVisible();
  await expect(header.getByRole('link', { name: 'LOGIN' })).toHaveCount(0);
  if (role === 'admin') {
    await expect(header.getByRole('link', { name: 'ADMIN' })).toHaveAttribute('href', '/release');
    await expect(header.getByRole('link', { name: 'MY ORDERS' })).toHaveCount(0);
  } else {
    await expect(header.getByRole('link', { name: 'MY ORDERS' })).toHaveAttribute('href', '/my-orders');
    await expect(header.getByRole('link', { name: 'ADMIN' })).toHaveCount(0);
  }
}

async function expectSignedOutHeader(page: Page) {
  const header = nav(page);
  await expect(header.getByRole('link', { name: 'LOGIN' })).toBeVisible();
  await expect(header.getByRole('button', { name: 'LOGOUT' })).toHaveCount(0);
  await expect(header.getByRole('link', { name: 'WALLET' })).toHaveCount(0);
  await expect(header.getByRole('link', { name: 'MY ORDERS' })).toHaveCount(0);
}

test('a new user signs up, verifies the email, logs in, stays signed in after a reload and logs out', async ({ page }) => {
  const user = newUser();
  await page.goto('/signup');
  await expect(page.locator('h1')).toHaveText('Sign up');
  await expect(page.getByLabel('Account type').locator('option:checked')).toHaveText('Personal');
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password', { exact: true }).fill(user.password);
  await page.getByLabel('Confirm password').fill(user.password);
  await page.getByLabel('Name', { exact: true }).fill(user.name);
  await page.getByLabel('Username').fill(user.username);
  await page.getByLabel('City (optional)').fill('Houston');
  await expect(page.getByLabel('State (optional)')).toHaveCount(0);
  await page.getByLabel('Country (optional)').selectOption('US');
  await page.getByLabel('State (optional)').selectOption('TX');
  await page.getByRole('button', { name: 'Create', exact: true }).click();

  const terms = page.getByRole('dialog', { name: 'Terms of Service' });
  await expect(terms).toContainText('8% on all transactions');
  await expect(terms).toContainText('All sales are final.');
  await expect(terms).toContainText('13 or older');
  await terms.getByLabel('I have read and agree to the Terms of Service.').check();
  await terms.getByRole('button', { name: 'Agree and Create Account' }).click();

  // Signup does not sign in: the login page asks for the email to be verified.
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByRole('status').filter({ hasText: ACCOUNT_TEXTS.signupDone(user.email) })).toBeVisible();
  await expect(page.getByLabel('Email')).toHaveValue(user.email);
  await expectSignedOutHeader(page);

  await page.goto(await mailLink(page.request, user.email, 'Verify your email'));
  await expect(page).toHaveURL(/\/login\?verified=1$/);
  await expect(page.getByRole('status').filter({ hasText: ACCOUNT_TEXTS.verified })).toBeVisible();
  await expect(page.getByText(ACCOUNT_TEXTS.sisterProducts)).toBeVisible();

  await logIn(page, user.email, user.password);
  await expect(page).toHaveURL(/\/shop$/);
  await expectSignedInHeader(page, 'user');

  await page.reload();
  await expectSignedInHeader(page, 'user');
  // A signed-in visitor who opens the login page goes on to the shop.
  await page.goto('/login');
  await expect(page).toHaveURL(/\/shop$/);

  await nav(page).getByRole('button', { name: 'LOGOUT' }).click();
  await expect(page).toHaveURL(/\/home$/);
  await expectSignedOutHeader(page);
  await page.reload();
  await expectSignedOutHeader(page);
});

test('the signup form shows the spec messages, strips names and follows the account type', async ({ page }) => {
  await page.goto('/signup');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  const terms = page.getByRole('dialog', { name: 'Terms of Service' });
  await terms.getByRole('button', { name: 'Agree and Create Account' }).click();
  await expect(terms.getByRole('alert')).toHaveText(SIGNUP_MESSAGES.termsNotAccepted);

  await terms.getByLabel('I have read and agree to the Terms of Service.').check();
  await terms.getByRole('button', { name: 'Agree and Create Account' }).click();
  await expect(terms).toBeHidden();
  await expect(page.getByRole('alert')).toHaveText(SIGNUP_MESSAGES.mandatoryFields);

  await page.getByLabel('Email').fill('someone@example.com');
  await page.getByLabel('Password', { exact: true }).fill('first-pass-123');
  await page.getByLabel('Confirm password').fill('other-pass-123');
  await page.getByLabel('Name', { exact: true }).fill('Ann-Marie O’Neil!');
  await expect(page.getByLabel('Name', { exact: true })).toHaveValue('AnnMarie ONeil');
  await page.getByLabel('Username').fill('ann_marie 99');
  await expect(page.getByLabel('Username')).toHaveValue('annmarie99');
  await page.getByLabel('City (optional)').fill('A city with a very long name');
  await expect(page.getByLabel('City (optional)')).toHaveValue('A city with a ver');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await terms.getByRole('button', { name: 'Agree and Create Account' }).click();
  await expect(page.getByRole('alert')).toHaveText(SIGNUP_MESSAGES.passwordsDiffer);

  await page.getByLabel('Account type').selectOption('Artist');
  await expect(page.getByLabel('Artist Name')).toHaveValue('AnnMarie ONeil');
  await expect(page.getByText(ARTIST_NAME_NOTE)).toBeVisible();
  await expect(page.locator('h1')).toHaveCount(1);
});

test('signup refuses the label’s reserved usernames in the browser, with the message the server gives', async ({ page }) => {
  const sent: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes('/fn/createAccount')) sent.push(request.url());
  });
  const user = newUser();
  await page.goto('/signup');
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password', { exact: true }).fill(user.password);
  await page.getByLabel('Confirm password').fill(user.password);
  await page.getByLabel('Name', { exact: true }).fill(user.name);
  await page.getByLabel('Username').fill('StreetFlavor');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  const terms = page.getByRole('dialog', { name: 'Terms of Service' });
  await terms.getByLabel('I have read and agree to the Terms of Service.').check();
  await terms.getByRole('button', { name: 'Agree and Create Account' }).click();
  await expect(page.getByRole('alert')).toHaveText(SIGNUP_MESSAGES.usernameReserved);
  await page.getByLabel('Username').fill('Support');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await terms.getByRole('button', { name: 'Agree and Create Account' }).click();
  await expect(page.getByRole('alert')).toHaveText(SIGNUP_MESSAGES.usernameReserved);
  expect(sent).toEqual([]);
});

test('the login page shows its messages for empty fields and a reset without email', async ({ page }) => {
  await page.goto('/login');
  await expect(page.locator('h1')).toHaveText('Login');
  await page.getByRole('button', { name: 'Login', exact: true }).click();
  await expect(page.getByRole('alert')).toHaveText(LOGIN_MESSAGES.missingCredentials);
  await page.getByLabel('Email').fill('someone@example.com');
  await page.getByRole('button', { name: 'Login', exact: true }).click();
  await expect(page.getByRole('alert')).toHaveText(LOGIN_MESSAGES.missingCredentials);
  await page.getByLabel('Email').fill('');
  await page.getByRole('button', { name: 'Forgot Password?' }).click();
  await expect(page.getByRole('alert')).toHaveText(LOGIN_MESSAGES.resetNeedsEmail);
  const main = page.getByRole('main');
  await expect(main.getByRole('link', { name: 'Create account' })).toHaveAttribute('href', '/signup');
  await main.getByRole('link', { name: 'Privacy Policy' }).click();
  await expect(page).toHaveURL(/\/privacy-policy$/);
});

test('an unverified login gets the banner and a fresh link; a wrong password gets the inline error', async ({ page, consoleErrors }) => {
  consoleErrors.allow(/status of (401|403)/);
  const user = await createUser(page.request);
  const firstLink = await mailLink(page.request, user.email, 'Verify your email');
  await page.goto('/login');
  await logIn(page, user.email, user.password);
  await expect(page.getByRole('status').filter({ hasText: LOGIN_MESSAGES.verifyEmail })).toBeVisible();
  await expect(page).toHaveURL(/\/login$/);
  await expectSignedOutHeader(page);
  await expect.poll(() => mailLink(page.request, user.email, 'Verify your email')).not.toBe(firstLink);

  await page.getByLabel('Password').fill('not-the-password');
  await page.getByRole('button', { name: 'Login', exact: true }).click();
  await expect(page.getByRole('alert')).toHaveText(LOGIN_MESSAGES.invalidCredentials);
  await expectSignedOutHeader(page);
});

test('the demo admin sees ADMIN in place of MY ORDERS', async ({ page }) => {
  await page.goto('/login');
  await logIn(page, DEMO_ADMIN.email, DEMO_ADMIN.password);
  await expect(page).toHaveURL(/\/shop$/);
  await expectSignedInHeader(page, 'admin');
});

test("after login the visitor returns to the page that sent them, and the app's device token is stored", async ({ page }) => {
  await page.goto('/login?deviceToken=e2e-device-token');
  // What the cart's Checkout button does for a signed-out visitor (spec section 4).
  await page.evaluate(() => {
    window.history.replaceState({ usr: { from: '/checkout' }, key: 'e2e', idx: 0 }, '');
  });
  await page.reload();
  await logIn(page, DEMO_SHOPPER.email, DEMO_SHOPPER.password);
  await expect(page).toHaveURL(/\/checkout$/);
  await expectSignedInHeader(page, 'user');
  const profile = await page.request.post('/fn/getProfile', { data: { data: null } });
  expect(((await profile.json()) as { data: { deviceToken: string | null } }).data.deviceToken).toBe('e2e-device-token');
});

test('a forgotten password is reset through the mailed link', async ({ page }) => {
  const user = await createVerifiedUser(page.request);
  await page.goto('/login');
  await page.getByLabel('Email').fill(user.email);
  await page.getByRole('button', { name: 'Forgot Password?' }).click();
  await expect(page.getByRole('status').filter({ hasText: LOGIN_MESSAGES.resetSent })).toBeVisible();

  await page.goto(await mailLink(page.request, user.email, 'Reset your'));
  await expect(page).toHaveURL(/\/reset-password\?token=/);
  await expect(page.locator('h1')).toHaveText('Reset password');
  await page.getByLabel('New password', { exact: true }).fill('second-pass-456');
  await page.getByLabel('Confirm new password').fill('second-pass-457');
  await page.getByRole('button', { name: 'Set new password' }).click();
  await expect(page.getByRole('alert')).toHaveText(SIGNUP_MESSAGES.passwordsDiffer);
  await page.getByLabel('Confirm new password').fill('second-pass-456');
  await page.getByRole('button', { name: 'Set new password' }).click();
  await expect(page.getByRole('status').filter({ hasText: ACCOUNT_TEXTS.resetDone })).toBeVisible();

  await page.getByRole('link', { name: 'Go to Login' }).click();
  await logIn(page, user.email, 'second-pass-456');
  await expect(page).toHaveURL(/\/shop$/);
  await expectSignedInHeader(page, 'user');
});

test('a used or expired reset link says so and leads back to login', async ({ page }) => {
  await page.goto('/reset-password?error=INVALID_TOKEN');
  await expect(page.getByRole('alert')).toHaveText(ACCOUNT_TEXTS.resetInvalidLink);
  await page.getByRole('link', { name: 'Back to Login' }).click();
  await expect(page).toHaveURL(/\/login$/);
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 360, height: 740 } });

  test('the account pages fit the screen and the menu holds LOGOUT after login', async ({ page }) => {
    for (const path of ['/signup', '/login']) {
      await page.goto(path);
      await expect(page.locator('h1')).toHaveCount(1);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, `horizontal overflow on ${path}`).toBeLessThanOrEqual(0);
    }
    await logIn(page, DEMO_SHOPPER.email, DEMO_SHOPPER.password);
    await expect(page).toHaveURL(/\/shop$/);
    await page.getByRole('button', { name: 'Menu' }).click();
    await expectSignedInHeader(page, 'user');
  });
});

test('signing up with an email that has an account answers the same, and its owner is told', async ({ page, consoleErrors }) => {
  consoleErrors.allow(/status of 401/);
  const owner = await createVerifiedUser(page.request);
  const intruder = { ...newUser(), password: 'intruder-pass-456' };
  await page.goto('/signup');
  await page.getByLabel('Email').fill(owner.email);
  await page.getByLabel('Password', { exact: true }).fill(intruder.password);
  await page.getByLabel('Confirm password').fill(intruder.password);
  await page.getByLabel('Name', { exact: true }).fill(intruder.name);
  await page.getByLabel('Username').fill(intruder.username);
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  const terms = page.getByRole('dialog', { name: 'Terms of Service' });
  await terms.getByLabel('I have read and agree to the Terms of Service.').check();
  await terms.getByRole('button', { name: 'Agree and Create Account' }).click();

  // The visitor sees what a new signup sees; nothing tells them the email has an account.
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByRole('status').filter({ hasText: ACCOUNT_TEXTS.signupDone(owner.email) })).toBeVisible();

  // The owner gets a note with the way in, and their password is still theirs.
  await page.goto(await mailLink(page.request, owner.email, 'Someone tried to sign up with your email'));
  await expect(page).toHaveURL(/\/login$/);
  await logIn(page, owner.email, intruder.password);
  await expect(page.getByRole('alert')).toHaveText(LOGIN_MESSAGES.invalidCredentials);
  await logIn(page, owner.email, owner.password);
  await expect(page).toHaveURL(/\/shop$/);
});
