// The wallet in a real browser (issue 6): the seeded shopper's figures and DATs, a DAT's
// page, a sister product's credit arriving live through the service API, Wallet
// Settings, the empty, error and not-found states, a phone-sized screen, and cash-outs:
// connecting a payout account through the local onboarding page, then requesting payouts.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { createVerifiedUser } from './support/accounts.ts';
import { test, expect, DEMO_ADMIN, DEMO_SHOPPER } from './support/fixtures.ts';
import { rememberingLogIn } from './support/login.ts';
import { WALLET_TEXTS } from '../apps/web/src/features/wallet/wallet-format.ts';
// The shop's one money formatter (issue 34): the texts the pages show.
import { formatUsd as usd } from '@storefront/domain/money.ts';

const SEEDED_BALANCE_CENTS = 50_000;
const ROOT = path.resolve(import.meta.dirname, '..');

/** What getWallet answers, as far as these tests read it. */
interface WalletFigures {
  balanceCents: number;
  balanceCredits: number;
  creditsTotal: number;
  earningsUsd: number;
  utilityPriceCents: number;
  tokenValueUsd: number;
  claimableTokens: number;
  claimableUsd: number;
  rewardTokens: number;
  ownedDats: { id: string; edition: number; songName: string; artistName: string }[];
}

interface DatFigures {
  SongName: string;
  ArtistName: string;
  creatorUsername: string;
  editions: { edition: number; sold: number; royaltiesCents: number; earningsCents: number }[];
}

// Figures formatted here, not by the code under test.
const dollars = (value: number) => usd(Math.round(value * 100));
const count = (value: number) => String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const unique = (what: string) => `e2e-${what}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/** A service token for a pretend sister product, made with the CLI against the e2e server's database. */
async function createServiceToken(): Promise<string> {
  const dataDir = process.env.E2E_DATA_DIR;
  if (!dataDir) throw new Error('E2E_DATA_DIR is not set: run through e2e/playwright.config.ts.');
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'apps/server/src/cli.ts', 'create-service-token', unique('wallet')], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, NODE_ENV: 'development', LOG_LEVEL: 'warn' },
  });
  const token = stdout.trim().split('\n').at(-1)?.trim();
  expect(token, `a token in the CLI's output:\n${stdout}`).toMatch(/^\S{20,}$/);
  return token!;
}

let serviceToken: string | undefined;

/** A write of a sister product through the service API (`kind` is the route's last segment). */
async function serviceWrite(request: APIRequestContext, kind: string, data: object) {
  serviceToken ??= await createServiceToken();
  const response = await request.post(`/api/service/${kind}`, { headers: { authorization: `Bearer ${serviceToken}` }, data });
  expect(response.ok(), await response.text()).toBe(true);
  return (await response.json()) as { ok: boolean; replayed: boolean };
}

/** Credits the shopper's wallet the way a sister product does. */
async function creditWallet(request: APIRequestContext, cents: number, externalId = unique('credit')) {
  return serviceWrite(request, 'wallet-credits', { externalId, email: DEMO_SHOPPER.email, cents });
}

/** A callable function with the page's session cookie. */
async function call<T>(page: Page, name: string, data: unknown): Promise<T> {
  const response = await page.request.post(`/fn/${name}`, { data: { data } });
  expect(response.ok(), await response.text()).toBe(true);
  return ((await response.json()) as { data: T }).data;
}

/** Opens /wallet signed out, logs in on the page it is sent to, and comes back to /wallet. */
const logInToWallet = rememberingLogIn({ from: '/wallet' });

const card = (page: Page, label: string): Locator => page.getByRole('listitem', { name: label, exact: true });
const datList = (page: Page) => page.getByRole('list', { name: 'Your DATs' });

test('the seeded shopper sees their figures and DATs, opens one, and a service credit appears without reload', async ({ page }) => {
  await logInToWallet(page, DEMO_SHOPPER);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Wallet');
  await expect(page.getByRole('heading', { level: 1 })).toHaveCount(1);
  await expect(page).toHaveTitle(/^Wallet · /);

  // checkout.spec.ts spends some of the seeded $500.00 when the whole suite runs: top it up.
  const before = await call<WalletFigures>(page, 'getWallet', null);
  expect(before.balanceCents, "no other test adds to the shopper's wallet").toBeLessThanOrEqual(SEEDED_BALANCE_CENTS);
  if (before.balanceCents < SEEDED_BALANCE_CENTS) await creditWallet(page.request, SEEDED_BALANCE_CENTS - before.balanceCents);
  const wallet = await call<WalletFigures>(page, 'getWallet', null);
  expect(wallet.balanceCents).toBe(SEEDED_BALANCE_CENTS);

  // The seed's figures, literally, and every card against getWallet.
  await expect(card(page, 'Balance')).toContainText('$500.00');
  await expect(card(page, 'Balance')).toContainText('500 credits');
  await expect(card(page, 'Credits total')).toContainText('1,590');
  await expect(card(page, 'Credits total')).toContainText(count(wallet.creditsTotal));
  await expect(card(page, 'Earnings')).toContainText('$149.00');
  await expect(card(page, 'Earnings')).toContainText(dollars(wallet.earningsUsd));
  await expect(card(page, 'Token value')).toContainText('$15.00');
  await expect(card(page, 'Token value')).toContainText(dollars(wallet.tokenValueUsd));
  await expect(card(page, 'Token value')).toContainText(`utility price ${usd(wallet.utilityPriceCents)}`);
  await expect(card(page, 'Claimable tokens').locator('.wallet-card__value')).toHaveText(count(wallet.claimableTokens));
  await expect(card(page, 'Claimable tokens')).toContainText(`Worth ${dollars(wallet.claimableUsd)}`);
  await expect(card(page, 'Reward tokens').locator('.wallet-card__value')).toHaveText('42');
  expect(wallet.rewardTokens).toBe(42);

  // One row per owned edition, in getWallet's order (newest release first).
  const rows = datList(page).getByRole('listitem');
  await expect(rows).toHaveCount(4);
  expect(wallet.ownedDats).toHaveLength(4);
  for (const [index, dat] of wallet.ownedDats.entries()) {
    const link = rows.nth(index).getByRole('link');
    await expect(link).toHaveAccessibleName(`${dat.songName} by ${dat.artistName}, edition ${dat.edition}`);
    await expect(link).toHaveAttribute('href', `/wallet/dat/${dat.id}`);
    await expect(link).toContainText(`Edition ${dat.edition}`);
    const image = link.locator('img');
    await expect(image).toHaveAttribute('alt', `Cover art of ${dat.songName}`);
    await expect(image).toHaveAttribute('width', /^\d+$/);
    await expect(image).toHaveAttribute('height', /^\d+$/);
  }
  await expect(datList(page)).toContainText('Two Dollar Dreams');
  await expect(datList(page)).toContainText('Saint Vinyl');

  // A DAT's page: artwork, song, artist, creator and the shopper's editions.
  const first = wallet.ownedDats[0]!;
  const dat = await call<DatFigures>(page, 'getDat', { id: first.id });
  await rows.first().getByRole('link').click();
  await expect(page).toHaveURL(new RegExp(`/wallet/dat/${first.id}$`));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(dat.SongName);
  await expect(page).toHaveTitle(/^DAT · /);
  await expect(page.locator('main')).toContainText(dat.ArtistName);
  await expect(page.locator('main')).toContainText(dat.creatorUsername);
  await expect(page.getByRole('img', { name: `Cover art of ${dat.SongName}` })).toBeVisible();
  const editions = page.getByRole('table', { name: 'Your editions' });
  await expect(editions.getByRole('row')).toHaveCount(dat.editions.length + 1);
  for (const edition of dat.editions) {
    const row = editions.getByRole('row', { name: new RegExp(`^${edition.edition} `) });
    await expect(row.getByRole('cell')).toHaveText([count(edition.sold), usd(edition.royaltiesCents), usd(edition.earningsCents)]);
  }
  await page.getByRole('link', { name: 'Back to Wallet' }).click();
  await expect(page).toHaveURL(/\/wallet$/);
  await expect(card(page, 'Balance')).toContainText('$500.00');

  // A sister product credits $12.34: the open page shows it with no reload.
  await page.evaluate(() => Object.assign(window, { e2eSameDocument: true }));
  const externalId = unique('live');
  expect(await creditWallet(page.request, 1234, externalId)).toEqual({ ok: true, replayed: false });
  await expect(card(page, 'Balance')).toContainText('$512.34');
  await expect(card(page, 'Balance')).toContainText('512.34 credits');
  expect(await page.evaluate(() => 'e2eSameDocument' in window), 'the page was not reloaded').toBe(true);

  // The same write again changes nothing.
  expect(await creditWallet(page.request, 1234, externalId)).toEqual({ ok: true, replayed: true });
  expect((await call<WalletFigures>(page, 'getWallet', null)).balanceCents).toBe(51_234);
  await expect(card(page, 'Balance')).toContainText('$512.34');
});

test('Wallet Settings links to the billing portal in a new tab; the keyboard reaches a DAT and Cash Out', async ({ page }) => {
  await logInToWallet(page, DEMO_SHOPPER);
  await expect(datList(page).getByRole('listitem')).toHaveCount(4);

  const settingsButton = page.getByRole('button', { name: 'Wallet Settings' });
  await settingsButton.click();
  const dialog = page.getByRole('dialog', { name: 'Wallet Settings' });
  await expect(dialog).toBeVisible();
  const billing = dialog.getByRole('link', { name: /^Edit Billing Info/ });
  await expect(billing).toHaveAttribute('target', '_blank');
  await expect(billing).toHaveAttribute('rel', /(?=.*\bnoopener\b)(?=.*\bnoreferrer\b)/);
  await expect(billing).toHaveAttribute('href', /^https:\/\//);
  await expect(dialog.getByRole('heading', { name: 'Payout account' })).toBeVisible();
  // The shopper has no payout account yet: the modal offers to connect one.
  await expect(dialog.getByText('Connect a payout account to cash out your earnings.')).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Connect payout account' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(settingsButton).toBeFocused();

  await page.keyboard.press('Shift+Tab');
  await expect(page.getByRole('link', { name: 'Cash Out' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/cashout$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Cash Out');
  await page.getByRole('link', { name: 'Back to Wallet' }).click();
  await expect(page).toHaveURL(/\/wallet$/);

  const lastDat = datList(page).getByRole('link').last();
  await lastDat.focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/wallet\/dat\/[^/]+$/);
  await expect(page.getByRole('heading', { level: 1 })).toBeFocused();
});

test('an unknown DAT id shows the not-found message', async ({ page, consoleErrors }) => {
  // Chromium logs the 404 of getDat.
  consoleErrors.allow(/status of 404 .*\/fn\/getDat/);
  await logInToWallet(page, DEMO_SHOPPER);
  await page.goto('/wallet/dat/no-such-dat');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(WALLET_TEXTS.datNotFound);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('This DAT does not exist.');
  await page.getByRole('link', { name: 'Back to Wallet' }).click();
  await expect(page).toHaveURL(/\/wallet$/);
});

test('signed out, a DAT page sends the visitor to log in', async ({ page }) => {
  await page.goto('/wallet/dat/dat-sample-1');
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Login');
});

test('a wallet that fails to load offers Retry, which loads it', async ({ page, consoleErrors }) => {
  consoleErrors.allow(/net::ERR_FAILED .*\/fn\/getWallet/);
  let failing = true;
  await page.route('**/fn/getWallet', (route) => (failing ? route.abort('failed') : route.fallback()));
  await logInToWallet(page, DEMO_SHOPPER);
  const error = page.getByRole('alert').filter({ hasText: WALLET_TEXTS.loadFailed });
  await expect(error).toBeVisible();
  failing = false;
  await error.getByRole('button', { name: 'Retry' }).click();
  await expect(card(page, 'Reward tokens')).toContainText('42');
  await expect(error).toBeHidden();
});

test('an account without DATs sees the empty state', async ({ page }) => {
  await logInToWallet(page, DEMO_ADMIN);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Wallet');
  await expect(page.getByText(WALLET_TEXTS.noDats)).toBeVisible();
  await expect(datList(page)).toHaveCount(0);
  await expect(card(page, 'Reward tokens').locator('.wallet-card__value')).toHaveText('0');
});

test('the wallet and a DAT page fit a 375 px phone', async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 740 });
  await logInToWallet(page, DEMO_SHOPPER);
  await expect(datList(page).getByRole('listitem')).toHaveCount(4);
  const fits = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  expect(await fits(), 'no sideways scrolling on /wallet').toBe(true);
  await datList(page).getByRole('link').first().click();
  await expect(page.getByRole('table', { name: 'Your editions' })).toBeVisible();
  expect(await fits(), 'no sideways scrolling on a DAT page').toBe(true);
});

const payoutSection = (page: Page) => page.getByRole('dialog', { name: 'Wallet Settings' }).locator('[data-area="payout-account"]');
const available = (page: Page) => page.getByText(/^Available to cash out:/);
const payoutList = (page: Page) => page.getByRole('list', { name: 'Payouts' });

test('a new creator connects a payout account in the onboarding tab, then cashes out part and then all of their earnings', async ({ page, consoleErrors }) => {
  // The server refuses a payout above what is available (400 failed-precondition); Chromium logs it.
  consoleErrors.allow(/status of 400 .*\/fn\/requestPayout/);
  const user = await createVerifiedUser(page.request);
  // $25.00 of sales earnings, from the music product.
  await serviceWrite(page.request, 'credit-strings', { externalId: unique('sales'), email: user.email, salesEarningsCents: 2500 });
  await logInToWallet(page, user);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Wallet');

  await page.getByRole('button', { name: 'Wallet Settings' }).click();
  const payout = payoutSection(page);
  await expect(payout.getByRole('heading', { name: 'Payout account' })).toBeVisible();
  await expect(payout).toContainText('Connect a payout account to cash out your earnings.');

  // The provider's onboarding opens in a new tab.
  const opened = page.context().waitForEvent('page');
  await payout.getByRole('button', { name: 'Connect payout account' }).click();
  const onboarding = await opened;
  consoleErrors.watch(onboarding);
  await onboarding.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/payouts\/onboard$/);
  await expect(onboarding.getByRole('heading', { level: 1 })).toHaveText('Set up payouts');
  // The account exists now, not yet enabled: the wallet offers to finish it.
  await expect(payout).toContainText('Finish setting up your payout account to cash out.');
  await expect(payout.getByRole('button', { name: 'Finish payout setup' })).toBeVisible();

  await onboarding.getByRole('button', { name: 'Enable payouts' }).click();
  // The onboarding tab lands on Cash Out, ready to request a payout...
  await onboarding.waitForURL(/\/cashout$/);
  await expect(onboarding.getByRole('heading', { level: 1 })).toHaveText('Cash Out');
  await expect(onboarding.getByRole('button', { name: 'Request payout' })).toBeEnabled();
  // ...and the wallet tab, still open behind it, learns of it without a reload.
  await expect(payout).toContainText('Your payout account is ready: you can cash out your earnings.');
  await expect(payout.getByRole('button')).toHaveCount(0);
  await onboarding.close();
  await page.keyboard.press('Escape');

  await page.getByRole('link', { name: 'Cash Out' }).click();
  await expect(page).toHaveURL(/\/cashout$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Cash Out');
  await expect(page).toHaveTitle(/^Cash Out · /);
  await expect(available(page)).toHaveText('Available to cash out: $25.00');
  await expect(page.getByText('No payouts yet.')).toBeVisible();
  const amount = page.getByLabel('Amount (USD, empty for everything)');
  const requestPayout = page.getByRole('button', { name: 'Request payout' });

  // More than is available: the server's message, and nothing recorded.
  await amount.fill('30');
  await requestPayout.click();
  await expect(page.getByRole('alert').filter({ hasText: 'You can cash out at most $25.00.' })).toBeVisible();
  await expect(page.getByText('No payouts yet.')).toBeVisible();

  // Part of it...
  await amount.fill('10.50');
  await requestPayout.click();
  await expect(page.getByRole('alert').filter({ hasText: 'Payout of $10.50 requested' })).toBeVisible();
  await expect(available(page)).toHaveText('Available to cash out: $14.50');
  await expect(payoutList(page).getByRole('listitem')).toHaveCount(1);
  await expect(payoutList(page).getByRole('listitem').first()).toHaveText(/^[A-Z][a-z]{2} \d{1,2}, \d{4} · \$10\.50 · Paid$/);
  await expect(amount).toHaveValue('');

  // ...then everything left: an empty amount.
  await requestPayout.click();
  await expect(page.getByRole('alert').filter({ hasText: 'Payout of $14.50 requested' })).toBeVisible();
  await expect(available(page)).toHaveText('Available to cash out: $0.00');
  await expect(requestPayout).toBeDisabled();
  const items = payoutList(page).getByRole('listitem');
  await expect(items).toHaveCount(2);
  await expect(items.nth(0)).toContainText('$14.50 · Paid');
  await expect(items.nth(1)).toContainText('$10.50 · Paid');
  const cashout = await call<{ availableCents: number; requests: { amountCents: number; status: string }[] }>(page, 'getCashout', null);
  expect(cashout.availableCents).toBe(0);
  expect(cashout.requests.map(({ amountCents, status }) => ({ amountCents, status }))).toEqual([
    { amountCents: 1450, status: 'paid' },
    { amountCents: 1050, status: 'paid' },
  ]);
});

test('without a payout account, Cash Out shows the earnings and guides the shopper to connect one', async ({ page }) => {
  await logInToWallet(page, DEMO_SHOPPER);
  await page.goto('/cashout');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Cash Out');
  const cashout = await call<{ hasAccount: boolean; availableCents: number }>(page, 'getCashout', null);
  expect(cashout.hasAccount).toBe(false);
  expect(cashout.availableCents).toBeGreaterThan(0);
  await expect(available(page)).toHaveText(`Available to cash out: ${usd(cashout.availableCents)}`);
  await expect(page.getByText('Connect a payout account to cash out your earnings.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Connect payout account' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Request payout' })).toHaveCount(0);
  await expect(page.getByLabel('Amount (USD, empty for everything)')).toHaveCount(0);
  await expect(page.getByText('No payouts yet.')).toBeVisible();
});

test('signed out, Cash Out sends the visitor to log in and back', async ({ page }) => {
  await page.goto('/cashout');
  await expect(page).toHaveURL(/\/login$/);
  await page.getByLabel('Email').fill(DEMO_ADMIN.email);
  await page.getByLabel('Password').fill(DEMO_ADMIN.password);
  await page.getByRole('button', { name: 'Login', exact: true }).click();
  await expect(page).toHaveURL(/\/cashout$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Cash Out');
  await expect(available(page)).toHaveText('Available to cash out: $0.00');
});
