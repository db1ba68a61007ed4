import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthClient } from '@storefront/sdk/auth.ts';
import { createFunctionsClient } from '@storefront/sdk/callable.ts';
import { createTestDatabase, testConfig, type TestDatabase } from '../../test/database.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import { buildApp } from '../app.ts';
import { releaseProduct } from '../catalog/catalog.service.ts';
import { freePort } from '../db/embedded.ts';
import { runTransaction } from '../db/transaction.ts';
import { LIVE_CHANNEL, type LiveEvent } from '../live/live.publish.ts';
import { enableLocalPayouts } from '../payouts/payouts.service.ts';
import { createServiceToken } from '../service/service.tokens.ts';
import { applyServiceWrite } from '../service/service.writes.ts';
import { grantCredits } from './wallet.commands.ts';
import { credit } from './wallet.service.ts';

/**
 * Issue 17, item 9: every change to a wallet announces the owner's 'wallet' topic, on
 * commit only, whichever path made it (spec section 7: the wallet is a live read).
 */
let database: TestDatabase;
let app: FastifyInstance;
let base: string;
let listener: pg.Client;
let token: string;
let owner: string;
let productId: string;
const heard: LiveEvent[] = [];

const contact = { name: 'Wallet Owner', email: 'owner@example.org', phone: '' };
const shipping = { name: 'Wallet Owner', line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };
const fn = () => createFunctionsClient({ baseUrl: base, getAuthToken: () => token });
const form = (extra: Record<string, string> = {}) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded', ...extra });

beforeAll(async () => {
  database = await createTestDatabase();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const config = testConfig({ env: { PORT: String(port), PUBLIC_URL: base } });
  owner = (await createAccount(database.db, config, { email: 'owner@example.org', username: 'walletowner', name: 'Owner', password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true }, { emailVerified: true })).userId;
  productId = await releaseProduct(database.db, { name: 'Cap', description: 'Cap', priceCents: 1999, images: ['/content/covers/cover-02.svg'] });
  app = await buildApp({ config, db: database.db, logger: false });
  await app.listen({ port, host: '127.0.0.1' });
  token = (await createAuthClient({ baseUrl: base, functions: createFunctionsClient({ baseUrl: base }) }).signIn('owner@example.org', 'pass words')).token!;
  listener = new pg.Client({ connectionString: database.connectionString });
  await listener.connect();
  listener.on('notification', (message) => {
    if (message.channel === LIVE_CHANNEL && message.payload) heard.push(JSON.parse(message.payload) as LiveEvent);
  });
  await listener.query(`LISTEN ${LIVE_CHANNEL}`);
});

afterAll(async () => {
  await listener?.end();
  await app?.close();
  await database?.close();
});

/** Runs the change and waits for the owner's wallet topic, announced after it. */
async function expectWalletAnnounced(change: () => Promise<unknown>) {
  const from = heard.length;
  await change();
  const deadline = Date.now() + 5_000;
  while (!heard.slice(from).some((event) => event.topic === 'wallet' && event.userId === owner)) {
    if (Date.now() > deadline) throw new Error(`No wallet event for the owner; heard ${JSON.stringify(heard.slice(from))}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function startCardCheckout(checkoutId: string) {
  return fn().call<{ url: string; checkoutId: string }>('createPaymentLinkStreetFlavorMerch', { items: [{ id: productId, qty: 20 }], useWallet: true, contact, shipping, checkoutId });
}

describe('every wallet change reaches the owner live', () => {
  it('a CLI grant (grant-credits)', async () => {
    await expectWalletAnnounced(() => grantCredits(database.db, 'owner@example.org', '20'));
  });

  it('a service API write', async () => {
    const service = await createServiceToken(database.db, 'music');
    await expectWalletAnnounced(async () => {
      const response = await fetch(`${base}/api/service/wallet-credits`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${service.token}` },
        body: JSON.stringify({ externalId: 'live-service-1', userId: owner, cents: 500 }),
      });
      expect(response.status).toBe(200);
    });
  });

  it('a wallet-only order (debit)', async () => {
    await grantCredits(database.db, 'owner@example.org', '100');
    const quote = await fn().call<Record<string, unknown>>('quoteCheckout', { items: [{ id: productId, qty: 1 }], useWallet: true });
    delete quote.lines;
    await expectWalletAnnounced(() => fn().call('completeWalletOnlyOrderStreetFlavor', { items: [{ id: productId, qty: 1 }], contact, shipping, quote, checkoutId: 'live-wallet-order' }));
  });

  it('a card checkout’s hold, its release on cancel, and its capture on payment', async () => {
    let link!: { url: string; checkoutId: string };
    await expectWalletAnnounced(async () => (link = await startCardCheckout('live-hold-one')));
    await expectWalletAnnounced(() => fetch(`${base}${link.url}/cancel`, { method: 'POST', redirect: 'manual', headers: form(), body: '' }));
    const paid = await startCardCheckout('live-hold-two');
    await expectWalletAnnounced(async () => {
      const response = await fetch(`${base}${paid.url}`, { method: 'POST', redirect: 'manual', headers: form(), body: 'card=4242424242424242' });
      expect(response.headers.get('location')).toMatch(/redirect_status=succeeded/);
    });
  });

  it('a refund to the wallet', async () => {
    await expectWalletAnnounced(() => runTransaction(database.db, (tx) => credit(tx, owner, 250, 'live-refund-1', 'refund', 'refunded by an admin')));
  });

  it('a cash-out request', async () => {
    await applyServiceWrite(database.db, 'test', 'credit-strings', { externalId: 'live-earnings', userId: owner, salesEarningsCents: 4_000 });
    await fn().call('createOrRetrieveAccount', { email: 'owner@example.org' });
    await enableLocalPayouts(database.db, owner);
    await expectWalletAnnounced(() => fn().call('requestPayout', { amountCents: 1_000 }));
  });

  it('announces nothing for a change that is rolled back', async () => {
    const from = heard.length;
    await expect(
      runTransaction(database.db, async (tx) => {
        await credit(tx, owner, 100, 'live-rolled-back');
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    await expectWalletAnnounced(() => grantCredits(database.db, 'owner@example.org', '1'));
    // The marker came through, and nothing before it.
    const since = heard.slice(from).filter((event) => event.topic === 'wallet');
    expect(since).toHaveLength(1);
  });
});
