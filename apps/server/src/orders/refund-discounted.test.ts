import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { releaseProduct } from '../catalog/catalog.service.ts';
import { users } from '../db/schema/index.ts';
import { grantCredits } from '../wallet/wallet.commands.ts';

/**
 * A line refund of a discounted order (issue 27) gives back what the line paid: its share of
 * the code's discount is taken off (a code for the LP only leaves the tee at its list price),
 * and the tax on that, not the list price and its tax.
 */
let shop: TestApp;
let lpId: string;
let teeId: string;
const tokens: Record<string, string> = {};
const contact = { name: 'Fan', email: 'fan@example.org', phone: '' };
const shipping = { name: 'Fan', line1: '1 Main St', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };

beforeAll(async () => {
  shop = await startTestApp({
    async seed({ db }) {
      lpId = await releaseProduct(db, { name: 'Share LP', description: 'Vinyl.', priceCents: 3000, images: ['/content/covers/cover-01.svg'] });
      teeId = await releaseProduct(db, { name: 'Share Tee', description: 'Cotton.', priceCents: 1500, images: ['/content/covers/cover-01.svg'] });
    },
  });
  await shop.account('seller');
  await shop.account('fan');
  await shop.db.update(users).set({ role: 'admin' }).where(eq(users.email, 'seller@example.org'));
  for (const name of ['seller', 'fan']) tokens[name] = await shop.signIn(`${name}@example.org`);
  await grantCredits(shop.db, 'fan@example.org', '100', 'refund-discounted-fan');
}, 120_000);

afterAll(async () => {
  await shop?.close();
});

const as = (name: string) => shop.functions(() => tokens[name]);

describe('a line refund of a discounted order', () => {
  it('gives back what each line paid after the discount, with its tax; the packing list and the data export name the code', async () => {
    await as('seller').call('createDiscountCode', { code: 'LPSHARE', kind: 'percent', value: 20, scope: 'products', productIds: [lpId] });
    const items = [
      { id: lpId, qty: 1 },
      { id: teeId, qty: 1 },
    ];
    const quote = await as('fan').call('quoteCheckout', { items, useWallet: true, destination: { country: 'US', state: 'IL' }, discountCode: 'LPSHARE' });
    // 20% of the LP only; shipping and tax on the discounted goods (spec section 9).
    expect(quote).toMatchObject({ subtotalCents: 4500, discountCents: 600, shippingCents: 999, taxCents: 453, totalCents: 5352, walletAppliedCents: 5352 });
    const { subtotalCents, shippingCents, taxCents, walletAppliedCents, totalCents, discountCents } = quote;
    const { orderId } = await as('fan').call('completeWalletOnlyOrderStreetFlavor', {
      items,
      contact,
      shipping,
      quote: { subtotalCents, shippingCents, taxCents, walletAppliedCents, totalCents, discountCents },
      checkoutId: 'refund-discounted-1',
      discountCode: 'LPSHARE',
    });
    // The buyer's data export names it.
    const exported = await as('fan').call('exportMyData', null);
    expect(exported.orders[0]).toMatchObject({ id: orderId, totals: { discountCents: 600, discountCode: 'LPSHARE' } });
    // The packing list names the code (issue 27); the last column is a bundle line's parts (none here).
    const csv = await (await fetch(`${shop.baseUrl}/api/admin/packing-list?status=all`, { headers: { authorization: `Bearer ${tokens.seller}` } })).text();
    expect(csv.split('\r\n')[0]).toMatch(/,unit_price_usd,discount_code,includes$/);
    expect(csv).toContain(`${orderId},`);
    expect(
      csv
        .split('\r\n')
        .filter((line) => line.startsWith(`${orderId},`))
        .every((line) => line.endsWith(',LPSHARE,')),
    ).toBe(true);
    // The LP paid $24.00 (+ $2.22 tax), not $30.00 (+ $2.78).
    const lp = await as('seller').call('refundOrder', { orderId, lines: [{ lineId: 0, quantity: 1 }], idempotencyKey: 'share-lp' });
    expect(lp.refund).toMatchObject({ walletCents: 2400 + 222, cardCents: 0 });
    // The tee took no share of an LP-only code: its list price and tax.
    const tee = await as('seller').call('refundOrder', { orderId, lines: [{ lineId: 1, quantity: 1 }], idempotencyKey: 'share-tee' });
    expect(tee.refund).toMatchObject({ walletCents: 1500 + 139, cardCents: 0 });
  });
});
