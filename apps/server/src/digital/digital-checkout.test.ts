import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { releaseProduct } from '../catalog/catalog.service.ts';
import { DIGITAL_MESSAGES } from '@storefront/domain/digital.ts';
import { checkouts, devMailbox, orders, users } from '../db/schema/index.ts';
import { grantCredits } from '../wallet/wallet.commands.ts';

/**
 * Buying digital releases through the shop's cart and checkout (issue 28): no shipping for an
 * all-digital order, the release in the buyer's library in the order's own transaction, a
 * receipt that links to the library, and a physical product that carries a release.
 */
let shop: TestApp;
let lpId: string;
const tokens: Record<string, string> = {};
const contact = { name: 'Fan', email: 'fan@example.org', phone: '' };
const shipping = { name: 'Fan', line1: '1 Main St', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };

beforeAll(async () => {
  shop = await startTestApp({
    async seed({ db }) {
      lpId = await releaseProduct(db, { name: 'Sine Waves LP', description: 'Vinyl with instant download.', priceCents: 2500, images: ['/content/covers/cover-01.svg'] });
    },
  });
  await shop.account('buyer');
  await shop.account('carder');
  await shop.account('vinyl');
  await shop.db.update(users).set({ role: 'admin' }).where(eq(users.email, 'buyer@example.org'));
  for (const name of ['buyer', 'carder', 'vinyl']) tokens[name] = await shop.signIn(`${name}@example.org`);
  for (const name of ['buyer', 'carder', 'vinyl']) await grantCredits(shop.db, `${name}@example.org`, '100', `digital-checkout-${name}`);
});

afterAll(async () => {
  await shop?.close();
});

const as = (name: string) => shop.functions(() => tokens[name]);

async function publishedRelease(trackPriceCents = 150) {
  const { id } = await as('buyer').call('saveRelease', {
    kind: 'album',
    title: 'For Sale',
    artist: 'The Sines',
    artwork: '/content/covers/cover-01.svg',
    releaseDate: '2026-01-15',
    priceCents: 800,
    published: true,
    tracks: [{ title: 'Single One', priceCents: trackPriceCents }, { title: 'Album Only' }],
  });
  const { release } = await shop.functions().call('getRelease', { id });
  return release!;
}

describe('digital lines in the cart and checkout', () => {
  it('sells the album and priced tracks as products, with no shipping for an all-digital order', async () => {
    const release = await publishedRelease();
    expect(release.productId).toEqual(expect.any(String));
    expect(release.tracks.map((track) => track.productId === null)).toEqual([false, true]);

    const digital = await as('buyer').call('quoteCheckout', { items: [{ id: release.productId!, qty: 1 }], useWallet: true });
    expect(digital).toMatchObject({ subtotalCents: 800, shippingCents: 0, taxCents: 74, totalCents: 874 });
    const mixed = await as('buyer').call('quoteCheckout', {
      items: [
        { id: release.productId!, qty: 1 },
        { id: lpId, qty: 1 },
      ],
      useWallet: true,
    });
    expect(mixed).toMatchObject({ subtotalCents: 3300, shippingCents: 999 });

    const quote = { subtotalCents: 800, shippingCents: 0, taxCents: 74, walletAppliedCents: 874, totalCents: 874 };
    const placed = await as('buyer').call('completeWalletOnlyOrderStreetFlavor', {
      items: [{ id: release.productId!, qty: 1 }],
      contact,
      shipping,
      quote,
      checkoutId: 'digital-album-1',
    });
    const { releases } = await as('buyer').call('getLibrary', null);
    expect(releases).toMatchObject([{ id: release.id, whole: true, sources: ['purchase'] }]);
    // The receipt links to the library.
    await vi.waitFor(
      async () => {
        const mails = await shop.db.select().from(devMailbox).where(eq(devMailbox.to, 'buyer@example.org'));
        const receipt = mails.find((mail) => mail.subject.includes(placed.orderId));
        expect(receipt?.text).toContain(`${shop.baseUrl}/library`);
      },
      { timeout: 20_000, interval: 100 },
    );
  });

  it('grants one track bought with wallet and card once the payment is in', async () => {
    // More than the wallet holds, so the card pays the rest.
    const release = await publishedRelease(15_000);
    const trackProduct = release.tracks[0]!.productId!;
    const link = await as('carder').call('createPaymentLinkStreetFlavorMerch', {
      items: [{ id: trackProduct, qty: 1 }],
      useWallet: true,
      contact,
      shipping,
      checkoutId: 'digital-card-1',
    });
    expect((await as('carder').call('getLibrary', null)).releases).toEqual([]);
    const paid = await fetch(`${shop.baseUrl}${link.url}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { authorization: `Bearer ${tokens.carder}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'card=4242424242424242',
    });
    expect(paid.headers.get('location')).toMatch(/redirect_status=succeeded/);
    await vi.waitFor(
      async () => {
        const { releases } = await as('carder').call('getLibrary', null);
        expect(releases).toMatchObject([{ id: release.id, whole: false, sources: ['purchase'], tracks: [{ owned: true }, { owned: false }] }]);
      },
      { timeout: 20_000, interval: 100 },
    );
  });

  it('gives the download with a physical product that carries the release', async () => {
    const release = await publishedRelease();
    await as('buyer').call('setProductRelease', { productId: lpId, releaseId: release.id });
    const quote = await as('vinyl').call('quoteCheckout', { items: [{ id: lpId, qty: 1 }], useWallet: true });
    expect(quote.shippingCents).toBe(999);
    await as('vinyl').call('completeWalletOnlyOrderStreetFlavor', {
      items: [{ id: lpId, qty: 1 }],
      contact,
      shipping,
      quote: {
        subtotalCents: quote.subtotalCents,
        shippingCents: quote.shippingCents,
        taxCents: quote.taxCents,
        walletAppliedCents: quote.walletAppliedCents,
        totalCents: quote.totalCents,
      },
      checkoutId: 'digital-lp-1',
    });
    expect((await as('vinyl').call('getLibrary', null)).releases).toMatchObject([{ id: release.id, whole: true, sources: ['bundle'] }]);
  });
});

describe('a download is bought once (issue 39 item 7): in the quote and at both checkouts', () => {
  const album = 'For Sale (digital album)';
  const track = 'Single One (digital track)';
  const reviewed = { subtotalCents: 950, shippingCents: 0, taxCents: 88, walletAppliedCents: 1038, totalCents: 1038 };
  let attempt = 0;
  const refusedEverywhere = async (name: string, items: { id: string; qty: number }[], message: string) => {
    await expect(as(name).call('quoteCheckout', { items, useWallet: true })).rejects.toThrow(message);
    await expect(as(name).call('completeWalletOnlyOrderStreetFlavor', { items, contact, quote: reviewed, checkoutId: `refused-${++attempt}` })).rejects.toThrow(message);
    await expect(as(name).call('createPaymentLinkStreetFlavorMerch', { items, useWallet: false, contact, checkoutId: `refused-${++attempt}` })).rejects.toThrow(message);
  };
  const ordersOf = async (email: string) => {
    const [user] = await shop.db.select().from(users).where(eq(users.email, email));
    return {
      orders: (await shop.db.select().from(orders).where(eq(orders.userId, user!.id))).length,
      checkouts: (await shop.db.select().from(checkouts).where(eq(checkouts.userId, user!.id))).length,
    };
  };

  it('takes one copy of a digital line', async () => {
    await shop.account('twice');
    tokens.twice = await shop.signIn('twice@example.org');
    const release = await publishedRelease();
    await refusedEverywhere('twice', [{ id: release.productId!, qty: 2 }], DIGITAL_MESSAGES.oneCopy(album));
    expect(await ordersOf('twice@example.org')).toEqual({ orders: 0, checkouts: 0 });
  });

  it('refuses a track beside its own album', async () => {
    await shop.account('both');
    tokens.both = await shop.signIn('both@example.org');
    const release = await publishedRelease();
    const items = [
      { id: release.productId!, qty: 1 },
      { id: release.tracks[0]!.productId!, qty: 1 },
    ];
    await refusedEverywhere('both', items, DIGITAL_MESSAGES.albumIncludes(album, track));
    expect(await ordersOf('both@example.org')).toEqual({ orders: 0, checkouts: 0 });
    // Another release's track is not part of this album.
    const other = await publishedRelease();
    await expect(as('both').call('quoteCheckout', { items: [items[0]!, { id: other.tracks[0]!.productId!, qty: 1 }], useWallet: true })).resolves.toMatchObject({
      subtotalCents: 950,
    });
  });

  it('refuses what the fan owns: the album owns its tracks; a track owned leaves the album on sale', async () => {
    await shop.account('keeper');
    tokens.keeper = await shop.signIn('keeper@example.org');
    await grantCredits(shop.db, 'keeper@example.org', '100', 'digital-checkout-keeper');
    const release = await publishedRelease();
    const quote = await as('keeper').call('quoteCheckout', { items: [{ id: release.productId!, qty: 1 }], useWallet: true });
    const { subtotalCents, shippingCents, taxCents, walletAppliedCents, totalCents } = quote;
    await as('keeper').call('completeWalletOnlyOrderStreetFlavor', {
      items: [{ id: release.productId!, qty: 1 }],
      contact,
      quote: { subtotalCents, shippingCents, taxCents, walletAppliedCents, totalCents },
      checkoutId: 'owner-album',
    });
    await refusedEverywhere('keeper', [{ id: release.tracks[0]!.productId!, qty: 1 }], DIGITAL_MESSAGES.alreadyOwned(track));
    await refusedEverywhere('keeper', [{ id: release.productId!, qty: 1 }], DIGITAL_MESSAGES.alreadyOwned(album));
    expect(await ordersOf('keeper@example.org')).toEqual({ orders: 1, checkouts: 0 });

    const single = await publishedRelease();
    await as('keeper').call('completeWalletOnlyOrderStreetFlavor', {
      items: [{ id: single.tracks[0]!.productId!, qty: 1 }],
      contact,
      quote: { subtotalCents: 150, shippingCents: 0, taxCents: 14, walletAppliedCents: 164, totalCents: 164 },
      checkoutId: 'owner-track',
    });
    await refusedEverywhere('keeper', [{ id: single.tracks[0]!.productId!, qty: 1 }], DIGITAL_MESSAGES.alreadyOwned(track));
    await expect(as('keeper').call('quoteCheckout', { items: [{ id: single.productId!, qty: 1 }], useWallet: true })).resolves.toMatchObject({ subtotalCents: 800 });
  });
});
