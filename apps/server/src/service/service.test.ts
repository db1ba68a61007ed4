import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFunctionsClient } from '@storefront/sdk/callable.ts';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../../test/app.ts';
import type { TestDatabase } from '../../test/database.ts';
import { openSse } from '../../test/sse.ts';
import { publishLive } from '../live/live.publish.ts';
import { getBalance } from '../wallet/wallet.service.ts';
import { createServiceToken, revokeServiceToken } from './service.tokens.ts';

let shop: TestApp;
let database: TestDatabase;
let base: string;
let serviceToken: string;
const ids: Record<string, string> = {};
const tokens: Record<string, string> = {};

const post = (path: string, body: unknown, token = serviceToken) =>
  fetch(`${base}/api/service/${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
const fn = (who: string) => createFunctionsClient({ baseUrl: base, getAuthToken: () => tokens[who] });

beforeAll(async () => {
  shop = await startTestApp();
  ({ database, baseUrl: base } = shop);
  for (const name of ['alice', 'bob']) ids[name] = await shop.account(name);
  for (const name of ['alice', 'bob']) tokens[name] = await shop.signIn(`${name}@example.org`);
  serviceToken = (await createServiceToken(database.db, 'music')).token;
});

afterAll(async () => {
  await shop?.close();
});

describe('service API', () => {
  it('refuses missing, malformed, wrong and revoked tokens', async () => {
    const body = { externalId: 'x1', userId: ids.alice, cents: 100 };
    expect((await fetch(`${base}/api/service/wallet-credits`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).status).toBe(401);
    expect((await post('wallet-credits', body, 'sst_nothing')).status).toBe(401);
    expect((await post('wallet-credits', body, `${serviceToken.slice(0, -2)}xx`)).status).toBe(401);
    expect((await post('wallet-credits', body, tokens.alice)).status).toBe(401);
    const revoked = await createServiceToken(database.db, 'video');
    expect((await post('wallet-credits', { ...body, externalId: 'x2' }, revoked.token)).status).toBe(200);
    await revokeServiceToken(database.db, revoked.id);
    expect((await post('wallet-credits', { ...body, externalId: 'x3' }, revoked.token)).status).toBe(401);
    expect(await getBalance(database.db, ids.alice!)).toEqual({ balanceCents: 100, heldCents: 0 });
  });

  it('applies a write once however often its external id is replayed', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => post('wallet-credits', { externalId: 'grant-42', email: 'bob@example.org', cents: 2_500 })));
    const bodies = await Promise.all(results.map((r) => r.json() as Promise<{ replayed: boolean }>));
    expect(bodies.filter((b) => !b.replayed)).toHaveLength(1);
    expect(await getBalance(database.db, ids.bob!)).toEqual({ balanceCents: 2_500, heldCents: 0 });
  });

  it.each([
    ['wallet-credits', { externalId: 'bad-1', userId: 'u', cents: -5 }],
    ['wallet-credits', { externalId: 'bad-2', userId: 'u', cents: 1.5 }],
    ['wallet-credits', { externalId: 'bad 3', userId: 'u', cents: 1 }],
    ['metrics', { externalId: 'bad-4' }],
    [
      'dats',
      {
        externalId: 'bad-5',
        asset: { id: '../x', creatorId: 'c', creatorUsername: 'c', songName: 's', artistName: 'a', artworkUrl: 'javascript:alert(1)', releasedAt: 'yesterday' },
      },
    ],
    ['utility-spend', { externalId: 'bad-6', userId: 'u', addCents: '100' }],
  ])('refuses bad input to %s with 400 and changes nothing', async (kind, body) => {
    const before = await getBalance(database.db, ids.alice!);
    const response = await post(kind, body);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message.length).toBeGreaterThan(3);
    expect(await getBalance(database.db, ids.alice!)).toEqual(before);
  });
});

describe('a deleted account (issue 25, security 18)', () => {
  it('takes no sister-product credit or write, by id or by its old or replaced email', async () => {
    const userId = await shop.account('gonefan');
    const token = await shop.signIn('gonefan@example.org');
    expect(await post('wallet-credits', { externalId: 'gone-0', userId, cents: 100 }).then((r) => r.status)).toBe(200);
    await createFunctionsClient({ baseUrl: base, getAuthToken: () => token }).call('deleteAccount', { password: TEST_PASSWORD, confirm: 'DELETE' });
    const writes: [string, Record<string, unknown>][] = [
      ['wallet-credits', { externalId: 'gone-1', userId, cents: 500 }],
      ['wallet-credits', { externalId: 'gone-2', email: `deleted-${userId}@deleted.invalid`, cents: 500 }],
      ['reward-tokens', { externalId: 'gone-4', userId, qty: 3 }],
      ['utility-spend', { externalId: 'gone-5', userId, addCents: 100 }],
    ];
    for (const [kind, body] of writes) {
      const answer = await post(kind, body);
      expect(answer.status, kind).toBe(404);
    }
    expect(await post('wallet-credits', { externalId: 'gone-3', email: 'gonefan@example.org', cents: 500 }).then((r) => r.status)).toBe(404);
    expect(await getBalance(database.db, userId)).toEqual({ balanceCents: 100, heldCents: 0 });
  });
});

describe('wallet page data', () => {
  it('computes the totals from what the sister products sent, live to the owner only', async () => {
    const aliceStream = await openSse(`${base}/api/live`, { authorization: `Bearer ${tokens.alice}` });
    const bobStream = await openSse(`${base}/api/live`, { authorization: `Bearer ${tokens.bob}` });
    await aliceStream.waitFor((e) => e.event === 'ready');
    await bobStream.waitFor((e) => e.event === 'ready');
    // Bob's wallet changed in the test before: its NOTIFY may still be on its way to this
    // process. Notifications arrive in commit order, so once a marker committed now has
    // reached both streams, every earlier one has; only what comes after it counts.
    await publishLive(database.db, { topic: 'products', id: 'marker' });
    const marker = (e: { event: string; data: string }) => e.event === 'products' && JSON.parse(e.data).id === 'marker';
    await aliceStream.waitFor(marker);
    await bobStream.waitFor(marker);
    const bobFrom = bobStream.events.findIndex(marker) + 1;
    await post('metrics', { externalId: 'm1', utilitySoldCents: 3_000_000_000, poolCents: 0, circulating: 0 });
    await post('utility-spend', { externalId: 's1', userId: ids.alice, addCents: 100_000, awarded: 1 });
    await post('credit-strings', {
      externalId: 'c1',
      userId: ids.alice,
      currentCredits: '1,000',
      earnedCredits: '250 credits',
      streamEarningsCents: 10_000,
      salesEarningsCents: 500,
    });
    await post('reward-tokens', { externalId: 'r1', userId: ids.alice, qty: 7 });
    const asset = {
      id: 'dat-1',
      creatorId: 'c',
      creatorUsername: 'maker',
      songName: 'Song',
      artistName: 'Artist',
      artworkUrl: 'https://cdn.example.test/a.png',
      releasedAt: '2026-05-01T00:00:00Z',
    };
    await post('dats', { externalId: 'd1', userId: ids.alice, asset, edition: 3 });
    await post('dats', { externalId: 'd2', userId: ids.alice, asset, edition: 25 });
    await aliceStream.waitFor((e) => e.event === 'wallet' && JSON.parse(e.data).id === 'd2');
    expect(bobStream.events.slice(bobFrom).filter((e) => e.event === 'wallet')).toEqual([]);

    const wallet = await fn('alice').call('getWallet', null);
    expect(wallet).toMatchObject({
      balanceCents: 100,
      creditsTotal: 1250,
      utilityPriceCents: 30_000,
      claimableTokens: 2, // floor(100000 / 30000) - 1
      rewardTokens: 7,
    });
    expect(wallet.tokenValueUsd).toBeCloseTo(900_000_000 / 100_000 / 100, 6); // 30% of sold / fallback circulating / 100
    expect(wallet.earningsUsd).toBeCloseTo(0.05 * 100 + 5, 6);
    expect(wallet.ownedDats.map((d) => d.edition)).toEqual([3]); // editions 1 to 20 only

    const bobView = await fn('bob').call('getDat', { id: 'dat-1' });
    expect(bobView.editions).toEqual([]);
    const aliceView = await fn('alice').call('getDat', { id: 'dat-1' });
    expect([aliceView.SongName, aliceView.editions.map((e) => e.edition)]).toEqual(['Song', [3]]);
    await aliceStream.close();
    await bobStream.close();
  });
});
