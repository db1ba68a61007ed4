import type { Cookie, Page } from '@playwright/test';
import { expect } from './fixtures.ts';

export interface Credentials {
  email: string;
  password: string;
}

/** Fills and sends the login form of the page shown. */
export async function fillLogin(page: Page, user: Credentials) {
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Login', exact: true }).click();
}

/**
 * Opens `from` signed out (by default the login page itself), logs in on the login page it
 * leads to, and waits until it is back there (the shop, after /login).
 */
export async function logIn(page: Page, user: Credentials, options: { from?: string } = {}) {
  const from = options.from ?? '/login';
  await page.goto(from);
  if (from !== '/login') {
    await expect(page).toHaveURL(/\/login$/);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Login');
  }
  await fillLogin(page, user);
  await expect(page).toHaveURL(from === '/login' ? /\/shop$/ : new RegExp(`${from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
}

/**
 * logIn the first time for each account, and that session's cookies afterwards: sign-ins
 * are rate limited (10 a minute), so each account signs in through the page once per run.
 * Each call makes its own memory (one per spec file).
 */
export function rememberingLogIn(options: { from?: string } = {}) {
  const saved = new Map<string, Cookie[]>();
  const logInOnce = async (page: Page, user: Credentials) => {
    const cookies = saved.get(user.email);
    if (cookies) {
      await page.context().addCookies(cookies);
      if (options.from) await page.goto(options.from);
      return;
    }
    await logIn(page, user, options);
    saved.set(user.email, await page.context().cookies());
  };
  /** Keeps the session of a login the test made another way (e.g. sent to it by a guarded page). */
  logInOnce.remember = async (page: Page, email: string) => {
    saved.set(email, await page.context().cookies());
  };
  return logInOnce;
}
