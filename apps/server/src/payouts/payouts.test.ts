import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFunctionsClient, type FunctionsError } from '@storefront/sdk/callable.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import type { TestDatabase } from '../../test/database.ts';
import { payoutAccounts, payoutRequests } from '../db/schema/index.ts';
import { applyServiceWrite } from '../service/service.writes.ts';

let shop: TestApp;
let database: TestDatabase;
let base: string;
const ids: Record<string, string> = {};
const tokens: Record<string, string> = {};
const fn = (who: string) => createFunctionsClient({ baseUrl: base, getAuthToken: () => tokens[who] });
const errorOf = async (p: Promise<unknown>) =>
  (await p.then(
    () => undefined,
    (e: unknown) => e,
  )) as FunctionsError;

beforeAll(async () => {
  shop = await startTestApp();
  ({ database, baseUrl: base } = shop);
  for (const name of ['maker', 'fan']) ids[name] = await shop.account(name);
  for (const name of ['maker', 'fan']) tokens[name] = await shop.signIn(`${name}@example.org`);
  // $100.00 of earnings: one DAT edition paying $60 and $40 of sales.
  await applyServiceWrite(database.db, 'test', 'dats', {
    externalId: 'e1',
    userId: ids.maker,
    asset: {
      id: 'dat-x',
      creatorId: ids.maker,
      creatorUsername: 'maker',
      songName: 'S',
      artistName: 'A',
      artworkUrl: '/content/covers/cover-01.svg',
      releasedAt: '2026-01-01T00:00:00Z',
    },
    edition: 1,
    earningsCents: 6_000,
  });
  await applyServiceWrite(database.db, 'test', 'credit-strings', { externalId: 'e2', userId: ids.maker, salesEarningsCents: 4_000 });
});

afterAll(async () => {
  await shop?.close();
});

describe('payout accounts and cash-out (local provider)', () => {
  it('creates one account per user even under concurrent calls', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => fn('maker').call('createOrRetrieveAccount', { email: 'maker@example.org' })));
    expect(new Set(answers.map((a) => a.stripeAccountId)).size).toBe(1);
    expect(answers[0]!.payouts_enabled).toBe(false);
    expect(await database.db.select().from(payoutAccounts)).toHaveLength(1);
  });

  it('refuses a payout before onboarding, then enables payouts through the onboarding page', async () => {
    expect((await errorOf(fn('maker').call('requestPayout', null))).message).toBe('Finish setting up your payout account first.');
    const link = await fn('maker').call('createStripeOnboardingLinkIOS', null);
    expect(link.url).toBe('/payouts/onboard');
    const done = await fetch(`${base}${link.url}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { authorization: `Bearer ${tokens.maker}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(done.headers.get('location')).toBe('/cashout');
    expect(await fn('maker').call('createOrRetrieveAccount', { email: 'maker@example.org' })).toMatchObject({ payouts_enabled: true });
  });

  it('never pays out more than was earned, however many requests arrive at once', async () => {
    const attempts = await Promise.allSettled(Array.from({ length: 10 }, () => fn('maker').call('requestPayout', { amountCents: 3_000 })));
    expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(3);
    const rows = await database.db.select().from(payoutRequests).where(eq(payoutRequests.userId, ids.maker!));
    expect(rows.reduce((sum, r) => sum + r.amountCents, 0)).toBe(9_000);
    expect(rows.every((r) => r.status === 'paid')).toBe(true);
    const overview = await fn('maker').call('getCashout', null);
    expect([overview.availableCents, overview.requests.length]).toEqual([1_000, 3]);
    await fn('maker').call('requestPayout', null);
    expect((await errorOf(fn('maker').call('requestPayout', null))).message).toBe('You have no earnings to cash out yet.');
  });

  it('keeps each user to their own payout data', async () => {
    expect(await fn('fan').call('getCashout', null)).toMatchObject({ hasAccount: false, availableCents: 0, requests: [] });
    expect((await errorOf(fn('fan').call('requestPayout', null))).message).toBe('Connect a payout account first.');
  });
});
