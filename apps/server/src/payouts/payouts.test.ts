import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthClient } from '@storefront/sdk/auth.ts';
import { createFunctionsClient, type FunctionsError } from '@storefront/sdk/callable.ts';
import { createTestDatabase, testConfig, type TestDatabase } from '../../test/database.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import { buildApp } from '../app.ts';
import { freePort } from '../db/embedded.ts';
import { payoutAccounts, payoutRequests } from '../db/schema/index.ts';
import { applyServiceWrite } from '../service/service.writes.ts';

let database: TestDatabase;
let app: FastifyInstance;
let base: string;
const ids: Record<string, string> = {};
const tokens: Record<string, string> = {};
const fn = (who: string) => createFunctionsClient({ baseUrl: base, getAuthToken: () => tokens[who] });
const errorOf = async (p: Promise<unknown>) => (await p.then(() => undefined, (e: unknown) => e)) as FunctionsError;

beforeAll(async () => {
  database = await createTestDatabase();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const config = testConfig({ env: { PORT: String(port), PUBLIC_URL: base } });
  for (const name of ['maker', 'fan']) {
    ids[name] = (await createAccount(database.db, config, { email: `${name}@example.org`, username: name, name, password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true }, { emailVerified: true })).userId;
  }
  app = await buildApp({ config, db: database.db, logger: false });
  await app.listen({ port, host: '127.0.0.1' });
  for (const name of ['maker', 'fan']) {
    tokens[name] = (await createAuthClient({ baseUrl: base, functions: createFunctionsClient({ baseUrl: base }) }).signIn(`${name}@example.org`, 'pass words')).token!;
  }
  // $100.00 of earnings: one DAT edition paying $60 and $40 of sales.
  await applyServiceWrite(database.db, 'test', 'dats', {
    externalId: 'e1',
    userId: ids.maker,
    asset: { id: 'dat-x', creatorId: ids.maker, creatorUsername: 'maker', songName: 'S', artistName: 'A', artworkUrl: '/content/covers/cover-01.svg', releasedAt: '2026-01-01T00:00:00Z' },
    edition: 1,
    earningsCents: 6_000,
  });
  await applyServiceWrite(database.db, 'test', 'credit-strings', { externalId: 'e2', userId: ids.maker, salesEarningsCents: 4_000 });
});

afterAll(async () => {
  await app?.close();
  await database?.close();
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
    const done = await fetch(`${base}${link.url}`, { method: 'POST', redirect: 'manual', headers: { authorization: `Bearer ${tokens.maker}`, 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
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
