import http from 'node:http';
import { and, eq, isNull } from 'drizzle-orm';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../../test/app.ts';
import { releaseProduct } from '../catalog/catalog.service.ts';
import { checkouts, fanFollows, orders, users } from '../db/schema/index.ts';
import { createStripeProvider } from '../payments/stripe.provider.ts';
import { grantCredits } from '../wallet/wallet.commands.ts';
import { FOLLOW_MESSAGES } from './follows.service.ts';

/**
 * Follows of the label and of roster artists (issue 37 part 1, decision 074): signed-in fans
 * only, one follow per target, a purchase follows what was bought when its box is ticked (a
 * wallet order in its transaction, a card payment when its webhook makes the order, once),
 * and deleting an account removes them while the export lists them.
 */
const WEBHOOK_SECRET = 'whsec_follows';
let shop: TestApp;
let fake: http.Server;
const ids: Record<string, string> = {};
const tokens: Record<string, string> = {};
let artistId = 0;
let teeId = '';
let recordId = '';

const contact = { name: 'Fan', email: 'fan@example.org', phone: '' };
const shipping = { name: 'Fan', line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };

beforeAll(async () => {
  // Stripe's API, as far as a checkout session goes: the webhook below pays it.
  let sessions = 0;
  fake = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      sessions += 1;
      const id = `cs_test_${sessions}`;
      res.end(JSON.stringify({ id, object: 'checkout.session', url: `https://pay.example.test/${id}` }));
    });
  });
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  const port = (fake.address() as { port: number }).port;
  shop = await startTestApp({
    config: { env: { PAYMENT_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET } },
    build: (config) => ({
      payments: {
        provider: createStripeProvider({
          secretKey: 'sk_test_x',
          webhookSecret: WEBHOOK_SECRET,
          publicUrl: config.PUBLIC_URL!,
          api: { host: '127.0.0.1', port, protocol: 'http' },
        }),
        local: null,
      },
    }),
  });
  for (const name of ['boss', 'fan', 'buyer', 'nobox', 'carder', 'gone']) {
    ids[name] = await shop.account(name);
    if (name === 'boss') await shop.db.update(users).set({ role: 'admin' }).where(eq(users.id, ids.boss!));
    tokens[name] = await shop.signIn(`${name}@example.org`);
  }
  artistId = (await as('boss').call('saveArtist', { name: 'Mira Vale', links: [] })).id;
  teeId = await releaseProduct(shop.db, { name: 'Label Tee', description: 'Tee', priceCents: 1000, images: ['/content/covers/cover-01.svg'] });
  recordId = await releaseProduct(shop.db, { name: 'Mira LP', description: 'LP', priceCents: 1500, images: ['/content/covers/cover-02.svg'] });
  await as('boss').call('linkArtist', { artistId, subject: { kind: 'product', id: recordId }, linked: true });
});

afterAll(async () => {
  await shop?.close();
  await new Promise((resolve) => fake?.close(resolve));
});

const as = (name: string) => shop.functions(() => tokens[name]);

async function fails(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = (await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )) as { code: string; message: string } | undefined;
  expect(error).toBeDefined();
  return error!;
}

async function followsOf(name: string) {
  return shop.db.select({ artistId: fanFollows.artistId, source: fanFollows.source }).from(fanFollows).where(eq(fanFollows.userId, ids[name]!)).orderBy(fanFollows.id);
}

describe('following', () => {
  it('is for signed-in fans: a signed-out call is refused', async () => {
    expect((await fails(shop.functions().call('setFollow', { target: { kind: 'label' }, followed: true }))).code).toBe('unauthenticated');
    expect((await fails(shop.functions().call('listFollows', null))).code).toBe('unauthenticated');
  });

  it('follows the label and an artist once each, lists them, and unfollows', async () => {
    await as('fan').call('setFollow', { target: { kind: 'label' }, followed: true });
    await as('fan').call('setFollow', { target: { kind: 'label' }, followed: true });
    const after = await as('fan').call('setFollow', { target: { kind: 'artist', artistId }, followed: true });
    await as('fan').call('setFollow', { target: { kind: 'artist', artistId }, followed: true });
    expect(await followsOf('fan')).toEqual([
      { artistId: null, source: 'button' },
      { artistId, source: 'button' },
    ]);
    expect(after).toMatchObject({ label: true, artists: [{ id: artistId, name: 'Mira Vale', slug: 'mira-vale' }] });
    const listed = await as('fan').call('listFollows', null);
    expect(listed.label).toBe(true);
    expect(listed.artists.map((artist) => artist.slug)).toEqual(['mira-vale']);

    const unfollowed = await as('fan').call('setFollow', { target: { kind: 'artist', artistId }, followed: false });
    expect(unfollowed).toMatchObject({ label: true, artists: [] });
    await as('fan').call('setFollow', { target: { kind: 'label' }, followed: false });
    expect(await followsOf('fan')).toEqual([]);
  });

  it('refuses an artist not on the roster and a malformed target', async () => {
    expect(await fails(as('fan').call('setFollow', { target: { kind: 'artist', artistId: 999_999 }, followed: true }))).toMatchObject({
      code: 'not-found',
      message: FOLLOW_MESSAGES.noArtist,
    });
    expect((await fails(as('fan').call('setFollow', { target: { kind: 'artist', artistId: -1 }, followed: true } as never))).code).toBe('invalid-argument');
  });

  it("names a product's artists for its page, signed out too", async () => {
    expect(await shop.functions().call('listProductArtists', { productId: recordId })).toEqual({ artists: [{ id: artistId, name: 'Mira Vale', slug: 'mira-vale' }] });
    expect(await shop.functions().call('listProductArtists', { productId: teeId })).toEqual({ artists: [] });
  });
});

describe('a purchase follows what was bought', () => {
  async function walletOrder(name: string, followArtists: boolean | undefined) {
    await grantCredits(shop.db, `${name}@example.org`, '50', `follows-${name}`);
    const items = [
      { id: recordId, qty: 1 },
      { id: teeId, qty: 1 },
    ];
    const quote = await as(name).call('quoteCheckout', { items, useWallet: true, destination: { country: 'US', state: 'IL', postal_code: '62701' } });
    return as(name).call('completeWalletOnlyOrderStreetFlavor', {
      items,
      contact: { ...contact, email: `${name}@example.org` },
      shipping,
      quote,
      checkoutId: `follows-${name}`,
      ...(followArtists === undefined ? {} : { followArtists }),
    });
  }

  it('a wallet order with the box ticked follows the record’s artist and, for the tee without one, the label', async () => {
    const order = await walletOrder('buyer', true);
    expect(order.ok).toBe(true);
    expect(await followsOf('buyer')).toEqual(
      expect.arrayContaining([
        { artistId: null, source: 'purchase' },
        { artistId, source: 'purchase' },
      ]),
    );
    expect(await followsOf('buyer')).toHaveLength(2);
  });

  it('a wallet order with the box unticked (or not sent) follows nobody', async () => {
    await walletOrder('nobox', false);
    expect(await followsOf('nobox')).toEqual([]);
  });

  it('a card payment follows when its webhook makes the order, once, however often it is delivered', async () => {
    const link = await as('carder').call('createPaymentLinkStreetFlavorMerch', {
      items: [{ id: recordId, qty: 1 }],
      useWallet: false,
      contact: { ...contact, email: 'carder@example.org' },
      shipping,
      followArtists: true,
    });
    const [checkout] = await shop.db.select().from(checkouts).where(eq(checkouts.id, link.checkoutId));
    expect(checkout!.followArtists).toBe(true);
    // Nothing followed before the payment.
    expect(await followsOf('carder')).toEqual([]);
    const sessionId = link.url.split('/').pop()!;
    const deliver = async (eventId: string) => {
      const payload = JSON.stringify({
        id: eventId,
        object: 'event',
        type: 'checkout.session.completed',
        data: {
          object: {
            id: sessionId,
            object: 'checkout.session',
            payment_status: 'paid',
            payment_intent: 'pi_follow',
            amount_total: checkout!.chargeCents,
            metadata: { checkoutId: link.checkoutId },
          },
        },
      });
      const signature = new Stripe('sk_test_x').webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
      const response = await fetch(`${shop.baseUrl}/webhooks/stripe`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': signature },
        body: payload,
      });
      expect(response.status).toBe(200);
    };
    await deliver('evt_follow_1');
    expect(await shop.db.select().from(orders).where(eq(orders.checkoutId, link.checkoutId))).toHaveLength(1);
    expect(await followsOf('carder')).toEqual([{ artistId, source: 'purchase' }]);
    // The fan unfollows; the same payment told again (a new event id) follows nothing again.
    await as('carder').call('setFollow', { target: { kind: 'artist', artistId }, followed: false });
    await deliver('evt_follow_1');
    await deliver('evt_follow_2');
    expect(await followsOf('carder')).toEqual([]);
  });
});

describe('a roster merge', () => {
  it("moves the merged artist's followers to the artist kept, one follow each", async () => {
    const twin = (await as('boss').call('saveArtist', { name: 'Mira Vale Twin', links: [] })).id;
    await as('fan').call('setFollow', { target: { kind: 'artist', artistId: twin }, followed: true });
    await as('nobox').call('setFollow', { target: { kind: 'artist', artistId: twin }, followed: true });
    await as('nobox').call('setFollow', { target: { kind: 'artist', artistId }, followed: true });
    await as('boss').call('mergeArtist', { from: twin, into: artistId });
    expect((await followsOf('fan')).filter((row) => row.artistId !== null)).toEqual([{ artistId, source: 'button' }]);
    expect((await followsOf('nobox')).filter((row) => row.artistId !== null)).toEqual([{ artistId, source: 'button' }]);
    await as('fan').call('setFollow', { target: { kind: 'artist', artistId }, followed: false });
    await as('nobox').call('setFollow', { target: { kind: 'artist', artistId }, followed: false });
  });
});

describe('the account', () => {
  it('lists follows in the data export and removes them with the account', async () => {
    await as('gone').call('setFollow', { target: { kind: 'artist', artistId }, followed: true });
    await as('gone').call('setFollow', { target: { kind: 'label' }, followed: true });
    const exported = await as('gone').call('exportMyData', null);
    expect(exported.follows).toEqual([
      { target: 'artist:mira-vale', source: 'button', createdAt: expect.any(String) },
      { target: 'label', source: 'button', createdAt: expect.any(String) },
    ]);
    await as('gone').call('deleteAccount', { password: TEST_PASSWORD, confirm: 'DELETE' });
    expect(await followsOf('gone')).toEqual([]);
    // Another fan's follows stay.
    expect(
      await shop.db
        .select()
        .from(fanFollows)
        .where(and(eq(fanFollows.userId, ids.buyer!), isNull(fanFollows.artistId))),
    ).toHaveLength(1);
  });
});
