import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFunctionsClient } from '@storefront/sdk/callable.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import type { TestDatabase } from '../../test/database.ts';
import { releaseProduct } from '../catalog/catalog.service.ts';
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
let shop: TestApp;
let database: TestDatabase;
let base: string;
let listener: pg.Client;
let token: string;
let owner: string;
let productId: string;
const heard: LiveEvent[] = [];

const contact = { name: 'Wallet Owner', email: 'walletowner@example.org', phone: '' };
const shipping = { name: 'Wallet Owner', line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };
const fn = () => createFunctionsClient({ baseUrl: base, getAuthToken: () => token });
const form = (extra: Record<string, string> = {}) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded', ...extra });

beforeAll(async () => {
  shop = await startTestApp();
  ({ database, baseUrl: base } = shop);
  // 'owner' is a reserved username (decision 023).
  owner = await shop.account('walletowner');
  productId = await releaseProduct(database.db, { name: 'Cap', description: 'Cap', priceCents: 1999, images: ['/content/covers/cover-02.svg'] });
  token = await shop.signIn('walletowner@example.org');
  listener = new pg.Client({ connectionString: database.connectionString });
  await listener.connect();
  listener.on('notification', (message) => {
    if (message.channel === LIVE_CHANNEL && message.payload) heard.push(JSON.parse(message.payload) as LiveEvent);
  });
  await listener.query(`LISTEN ${LIVE_CHANNEL}`);
});

afterAll(async () => {
  await listener?.end();
  await shop?.close();
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
  return fn().call('createPaymentLinkStreetFlavorMerch', { items: [{ id: productId, qty: 20 }], useWallet: true, contact, shipping, checkoutId });
}

describe('every wallet change reaches the owner live', () => {
  it('a CLI grant (grant-credits)', async () => {
    await expectWalletAnnounced(() => grantCredits(database.db, 'walletowner@example.org', '20'));
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
    await grantCredits(database.db, 'walletowner@example.org', '100');
    const { subtotalCents, shippingCents, taxCents, walletAppliedCents, totalCents } = await fn().call('quoteCheckout', { items: [{ id: productId, qty: 1 }], useWallet: true });
    const quote = { subtotalCents, shippingCents, taxCents, walletAppliedCents, totalCents };
    await expectWalletAnnounced(() =>
      fn().call('completeWalletOnlyOrderStreetFlavor', { items: [{ id: productId, qty: 1 }], contact, shipping, quote, checkoutId: 'live-wallet-order' }),
    );
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
    await fn().call('createOrRetrieveAccount', { email: 'walletowner@example.org' });
    await enableLocalPayouts(database.db, owner);
    await expectWalletAnnounced(() => fn().call('requestPayout', { amountCents: 1_000 }));
  });

  it('announces nothing for a change that is rolled back', async () => {
    // Earlier tests' changes may still be announcing (their jobs run after them): wait until
    // the channel has been quiet for half a second, so that only this test's events follow.
    for (let count = -1; count !== heard.length;) {
      count = heard.length;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const from = heard.length;
    await expect(
      runTransaction(database.db, async (tx) => {
        await credit(tx, owner, 100, 'live-rolled-back');
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    await expectWalletAnnounced(() => grantCredits(database.db, 'walletowner@example.org', '1'));
    // The marker came through, and nothing before it.
    const since = heard.slice(from).filter((event) => event.topic === 'wallet');
    expect(since).toHaveLength(1);
  });
});
