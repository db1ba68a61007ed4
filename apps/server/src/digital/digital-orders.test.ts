import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DIGITAL_MESSAGES } from '@storefront/domain/digital.ts';
import { CHECKOUT_MESSAGES, MAX_NAMED_PRICE_CENTS } from '@storefront/domain/pricing.ts';
import { salesCsv } from '@storefront/domain/sales.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { releaseProduct } from '../catalog/catalog.service.ts';
import { devMailbox, digitalOwnership, orderEvents, orders, users } from '../db/schema/index.ts';
import { grantCredits } from '../wallet/wallet.commands.ts';

/**
 * Digital lines after checkout (issue 28, decision 061): an all-digital cart needs no address
 * (a cart that ships still does), the order desk, My Orders, the sales overview and its CSV
 * tell digital from physical lines, and a refund takes back the downloads it paid for.
 */
let shop: TestApp;
let lpId: string;
const tokens: Record<string, string> = {};
const contact = { name: 'Fan', email: 'fan@example.org', phone: '' };
const shipping = { name: 'Fan', line1: '1 Main St', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };
const BUYERS = ['nobox', 'mixed', 'refundee', 'liner', 'carder', 'generous'];

beforeAll(async () => {
  shop = await startTestApp({
    async seed({ db }) {
      lpId = await releaseProduct(db, { name: 'Square Waves LP', description: 'Vinyl.', priceCents: 2500, images: ['/content/covers/cover-01.svg'] });
    },
  });
  await shop.account('seller');
  await shop.db.update(users).set({ role: 'admin' }).where(eq(users.email, 'seller@example.org'));
  for (const name of BUYERS) await shop.account(name);
  for (const name of ['seller', ...BUYERS]) tokens[name] = await shop.signIn(`${name}@example.org`);
  tokens.label = tokens.seller!;
  for (const name of BUYERS) await grantCredits(shop.db, `${name}@example.org`, '200', `digital-orders-${name}`);
});

afterAll(async () => {
  await shop?.close();
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

async function publishedRelease(title: string) {
  const { id } = await as('label').call('saveRelease', {
    kind: 'album',
    title,
    artist: 'The Squares',
    releaseDate: '2026-01-15',
    priceCents: 800,
    published: true,
    tracks: [{ title: 'First', priceCents: 150 }, { title: 'Second' }],
  });
  const { release } = await shop.functions().call('getRelease', { id });
  return release!;
}

/** A wallet-only order of these items, at the server's own quote. */
async function walletOrder(name: string, items: { id: string; qty: number }[], checkoutId: string, address?: typeof shipping) {
  const quote = await as(name).call('quoteCheckout', { items, useWallet: true, ...(address ? { destination: { country: address.country, state: address.state } } : {}) });
  const { subtotalCents, shippingCents, taxCents, walletAppliedCents, totalCents } = quote;
  return as(name).call('completeWalletOnlyOrderStreetFlavor', {
    items,
    contact,
    ...(address ? { shipping: address } : {}),
    quote: { subtotalCents, shippingCents, taxCents, walletAppliedCents, totalCents },
    checkoutId,
  });
}

async function packingList(status: string): Promise<string> {
  const response = await fetch(`${shop.baseUrl}/api/admin/packing-list?status=${status}`, { headers: { authorization: `Bearer ${tokens.label}` } });
  expect(response.status).toBe(200);
  return response.text();
}

describe('an all-digital order ships nothing', () => {
  it('places an all-digital order without an address, with card too, and refuses a cart that ships without one', async () => {
    const release = await publishedRelease('No Box');
    const quote = await as('nobox').call('quoteCheckout', { items: [{ id: release.productId!, qty: 1 }], useWallet: true });
    expect(quote).toMatchObject({ shippingCents: 0, shippingMethodId: null, lines: [{ id: release.productId, digital: true }] });

    const placed = await walletOrder('nobox', [{ id: release.productId!, qty: 1 }], 'nobox-wallet-1');
    const [row] = await shop.db.select().from(orders).where(eq(orders.id, placed.orderId));
    expect(row).toMatchObject({ shipping: {}, shippingCents: 0, orderFulfilled: true, orderStatus: 'delivered' });
    expect((await as('nobox').call('getLibrary', null)).releases).toMatchObject([{ id: release.id, whole: true }]);

    // A card checkout of a track alone, without an address either.
    const link = await as('carder').call('createPaymentLinkStreetFlavorMerch', {
      items: [{ id: release.tracks[0]!.productId!, qty: 1 }],
      useWallet: false,
      contact,
      checkoutId: 'carder-digital-1',
    });
    expect(link.url).toMatch(/^\/pay\//);

    // Anything that ships needs the address, for a wallet order and for a card checkout alike
    // (beside another album: this one is theirs now, and a download is bought once, issue 39 item 7).
    const another = await publishedRelease('No Box Two');
    for (const call of [
      () => walletOrder('nobox', [{ id: lpId, qty: 1 }], 'nobox-lp-1'),
      () =>
        walletOrder(
          'nobox',
          [
            { id: another.productId!, qty: 1 },
            { id: lpId, qty: 1 },
          ],
          'nobox-mixed-1',
        ),
      () => as('nobox').call('createPaymentLinkStreetFlavorMerch', { items: [{ id: lpId, qty: 1 }], useWallet: false, contact, checkoutId: 'nobox-card-lp-1' }),
    ]) {
      const refused = await fails(call());
      expect(refused).toMatchObject({ code: 'invalid-argument', message: CHECKOUT_MESSAGES.shippingAddressNeeded });
    }
  });

  it('keeps digital lines off the packing list and the to-ship list, and marks them in My Orders, the desk and the sales overview', async () => {
    const release = await publishedRelease('Mixed Bag');
    const digitalOnly = await walletOrder('mixed', [{ id: release.productId!, qty: 1 }], 'mixed-digital-1');
    // A track of another album: the fan owns this one's (issue 39 item 7).
    const other = await publishedRelease('Mixed Bag Two');
    const mixed = await walletOrder(
      'mixed',
      [
        { id: other.tracks[0]!.productId!, qty: 1 },
        { id: lpId, qty: 1 },
      ],
      'mixed-both-1',
      shipping,
    );

    // The desk: the mixed order waits to ship, the all-digital one never does.
    const open = await as('label').call('listOrders', { status: 'unfulfilled', limit: 100 });
    const openIds = open.items.map((order) => order.id);
    expect(openIds).toContain(mixed.orderId);
    expect(openIds).not.toContain(digitalOnly.orderId);
    const shipped = await as('label').call('listOrders', { status: 'shipped', limit: 100 });
    expect(shipped.items.map((order) => order.id)).not.toContain(digitalOnly.orderId);
    const { order: deskOrder } = await as('label').call('getOrder', { orderId: mixed.orderId });
    expect(deskOrder.lines.map((line) => [line.name, line.digital ?? false])).toEqual([
      ['First (digital track)', true],
      ['Square Waves LP', false],
    ]);

    // The packing list has the LP's line and no digital line, of any order.
    const csv = await packingList('all');
    const rows = csv.trim().split('\r\n').slice(1);
    expect(rows.filter((line) => line.startsWith(`${mixed.orderId},`))).toEqual([expect.stringContaining(',Square Waves LP,1,25.00')]);
    expect(rows.some((line) => line.startsWith(`${digitalOnly.orderId},`))).toBe(false);
    expect(rows.some((line) => line.includes('(digital'))).toBe(false);

    // My Orders: the lines say which are downloads; the all-digital order is delivered.
    const mine = await as('mixed').call('listMyOrders', { limit: 10 });
    const byId = new Map(mine.items.map((order) => [order.id, order]));
    expect(byId.get(digitalOnly.orderId)).toMatchObject({ orderFulfilled: true, orderStatus: 'delivered', items: [{ digital: true }] });
    expect(byId.get(mixed.orderId)!.items.map((item) => item.digital ?? false)).toEqual([true, false]);

    // The sales overview splits the goods, and its CSV says the same.
    const overview = await as('label').call('getSalesOverview', { days: 1 });
    const kinds = Object.fromEntries((overview.byKind ?? []).map((row) => [row.kind, row]));
    expect(kinds.digital).toMatchObject({ unitsSold: expect.any(Number), grossSalesCents: expect.any(Number) });
    const soldGoods = overview.byProduct.reduce((sum, row) => sum + row.grossSalesCents, 0);
    expect(kinds.digital!.grossSalesCents + kinds.physical!.grossSalesCents).toBe(soldGoods);
    // This test's orders: 800 + 150 digital, 2500 physical (the file's other tests add to both).
    expect(kinds.digital!.grossSalesCents).toBeGreaterThanOrEqual(950);
    expect(kinds.physical!.grossSalesCents).toBeGreaterThanOrEqual(2500);
    const table = salesCsv(overview);
    expect(table).toContain('kind,units_sold,gross_sales_usd,units_refunded,refunded_goods_usd,net_units,net_goods_usd');
    expect(table).toContain(`digital,${kinds.digital!.unitsSold},${(kinds.digital!.grossSalesCents / 100).toFixed(2)},`);
    expect(overview.ordersToShip).toBe((await as('label').call('listOrders', { status: 'unfulfilled', limit: 100 })).items.length);
  });
});

describe('a refund takes back the downloads it paid for', () => {
  it('revokes a refunded digital line once, in the refund, and a link already issued stops working', async () => {
    const release = await publishedRelease('Refunded');
    const placed = await walletOrder(
      'refundee',
      [
        { id: release.tracks[0]!.productId!, qty: 1 },
        { id: lpId, qty: 1 },
      ],
      'refundee-1',
      shipping,
    );
    // A code for the same release, redeemed by the same fan, is not the order's to take back.
    const other = await publishedRelease('Also Owned');
    const { codes } = await as('label').call('createDownloadCodes', { releaseId: other.id, count: 1 });
    await as('refundee').call('redeemDownloadCode', { code: codes[0]! });

    const trackId = release.tracks[0]!.id;
    const { url } = await as('refundee').call('createDownloadLink', { releaseId: release.id, trackId, format: 'flac' });
    // Owned: the link passes the ownership check (the track has no master, so there is no file yet).
    const before = await fetch(`${shop.baseUrl}${url}`);
    expect(before.status).toBe(404);
    expect(await before.json()).toMatchObject({ error: { message: DIGITAL_MESSAGES.notEncoded } });

    const { order } = await as('label').call('getOrder', { orderId: placed.orderId });
    const trackLine = order.lines.find((line) => line.digital)!;
    // The same click twice (one idempotency key) refunds once.
    const refunds = await Promise.all(
      [1, 2].map(() => as('label').call('refundOrder', { orderId: placed.orderId, lines: [{ lineId: trackLine.lineId, quantity: 1 }], idempotencyKey: 'refundee-track-1' })),
    );
    expect(new Set(refunds.map(({ refund }) => refund.id)).size).toBe(1);
    expect(refunds[0]!.refund.status).toBe('succeeded');

    const { releases } = await as('refundee').call('getLibrary', null);
    expect(releases.map((entry) => entry.id)).toEqual([other.id]);
    const after = await fetch(`${shop.baseUrl}${url}`);
    expect(after.status).toBe(403);
    expect(await after.json()).toMatchObject({ error: { message: DIGITAL_MESSAGES.notOwned, requestId: expect.any(String) } });
    await expect(as('refundee').call('createDownloadLink', { releaseId: release.id, trackId, format: 'flac' })).rejects.toMatchObject({ code: 'permission-denied' });

    // Taken back exactly once, and recorded with the refund.
    const events = await shop.db.select().from(orderEvents).where(eq(orderEvents.orderId, placed.orderId));
    expect(events.filter((event) => event.kind === 'refunded').map((event) => event.detail.revokedDownloads)).toEqual([1]);
  });

  it('takes back what a whole order granted, the LP’s bundled download included', async () => {
    const release = await publishedRelease('Bundled');
    await as('label').call('setProductRelease', { productId: lpId, releaseId: release.id });
    const placed = await walletOrder('liner', [{ id: lpId, qty: 1 }], 'liner-order-1', shipping);
    await as('label').call('setProductRelease', { productId: lpId, releaseId: null });
    const granted = await shop.db.select().from(digitalOwnership).where(eq(digitalOwnership.sourceRef, placed.orderId));
    expect(granted.map((row) => row.source)).toEqual(['bundle']);

    // A partial amount leaves the download; the rest of the order takes it.
    await as('label').call('refundOrder', { orderId: placed.orderId, amountCents: 100, idempotencyKey: 'liner-part-1' });
    expect((await as('liner').call('getLibrary', null)).releases.map((entry) => entry.id)).toEqual([release.id]);
    const whole = await as('label').call('refundOrder', { orderId: placed.orderId, idempotencyKey: 'liner-rest-1' });
    expect(whole.refund.status).toBe('succeeded');
    expect((await as('liner').call('getLibrary', null)).releases).toEqual([]);
    expect(await shop.db.select().from(digitalOwnership).where(eq(digitalOwnership.sourceRef, placed.orderId))).toEqual([]);
  });
});

describe('name your price', () => {
  it('charges the fan’s amount, at least the minimum, re-priced by the server, in the quote, the order and the receipt', async () => {
    const { id } = await as('label').call('saveRelease', {
      kind: 'ep',
      title: 'Pay What You Like',
      artist: 'The Squares',
      releaseDate: '2026-01-15',
      priceCents: 500,
      nameYourPrice: true,
      published: true,
      tracks: [{ title: 'Only', priceCents: 100 }],
    });
    const { release } = await shop.functions().call('getRelease', { id });
    const album = release!.productId!;
    const track = release!.tracks[0]!.productId!;

    const quote = await as('generous').call('quoteCheckout', { items: [{ id: album, qty: 1, amountCents: 1234 }], useWallet: true });
    expect(quote).toMatchObject({ subtotalCents: 1234, lines: [{ id: album, unitCents: 1234, digital: true }] });
    // Without an amount: the minimum.
    expect((await as('generous').call('quoteCheckout', { items: [{ id: album, qty: 1 }], useWallet: true })).subtotalCents).toBe(500);

    // Below the minimum, on a fixed-price item, or not whole cents: refused, by the server.
    const low = await fails(as('generous').call('quoteCheckout', { items: [{ id: album, qty: 1, amountCents: 499 }], useWallet: true }));
    expect(low).toMatchObject({ code: 'invalid-argument', message: CHECKOUT_MESSAGES.belowMinimum('Pay What You Like (digital ep)', 500) });
    const fixed = await fails(as('generous').call('quoteCheckout', { items: [{ id: track, qty: 1, amountCents: 5000 }], useWallet: true }));
    expect(fixed).toMatchObject({ code: 'invalid-argument', message: CHECKOUT_MESSAGES.fixedPrice('Only (digital track)') });
    const fraction = await fails(as('generous').call('quoteCheckout', { items: [{ id: album, qty: 1, amountCents: 700.5 }], useWallet: true }));
    expect(fraction).toMatchObject({ code: 'invalid-argument', message: expect.stringContaining(CHECKOUT_MESSAGES.namedPriceCents) });
    const huge = await fails(as('generous').call('quoteCheckout', { items: [{ id: album, qty: 1, amountCents: MAX_NAMED_PRICE_CENTS + 1 }], useWallet: true }));
    expect(huge).toMatchObject({ code: 'invalid-argument', message: expect.stringContaining(CHECKOUT_MESSAGES.namedPriceTooHigh) });

    // A reviewed quote at the minimum does not buy at the higher amount: the server prices the amount sent.
    const atMinimum = { subtotalCents: 500, shippingCents: 0, taxCents: 46, walletAppliedCents: 546, totalCents: 546 };
    const stale = await fails(
      as('generous').call('completeWalletOnlyOrderStreetFlavor', { items: [{ id: album, qty: 1, amountCents: 1234 }], contact, quote: atMinimum, checkoutId: 'generous-stale-1' }),
    );
    expect(stale.message).toBe(CHECKOUT_MESSAGES.quoteChanged);

    const { subtotalCents, shippingCents, taxCents, walletAppliedCents, totalCents } = quote;
    const placed = await as('generous').call('completeWalletOnlyOrderStreetFlavor', {
      items: [{ id: album, qty: 1, amountCents: 1234 }],
      contact,
      quote: { subtotalCents, shippingCents, taxCents, walletAppliedCents, totalCents },
      checkoutId: 'generous-1',
    });
    const [row] = await shop.db.select().from(orders).where(eq(orders.id, placed.orderId));
    expect(row).toMatchObject({ subtotalCents: 1234, walletAppliedCents: totalCents });
    const { order } = await as('label').call('getOrder', { orderId: placed.orderId });
    expect(order.lines).toMatchObject([{ unitCents: 1234, digital: true }]);
    await vi.waitFor(
      async () => {
        const mails = await shop.db.select().from(devMailbox).where(eq(devMailbox.to, 'generous@example.org'));
        expect(mails.find((mail) => mail.subject.includes(placed.orderId))?.text).toContain('$12.34');
      },
      { timeout: 20_000, interval: 100 },
    );
  });
});
