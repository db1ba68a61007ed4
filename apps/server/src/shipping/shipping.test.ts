import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_MESSAGES, quote as priceQuote } from '@storefront/domain/pricing.ts';
import { DEFAULT_SHIPPING_TAX_CONFIG, SHIPPING_TAX_MESSAGES, type ShippingTaxConfig } from '@storefront/domain/shipping-tax.ts';
import { STOCK_MESSAGES } from '@storefront/domain/variants.ts';
import type { FunctionsError } from '@storefront/sdk/callable.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { startSmtpPeer } from '../../test/smtp.ts';
import { releaseProduct } from '../catalog/catalog.service.ts';
import { checkouts, orderItems, orders, productVariants } from '../db/schema/index.ts';
import { grantCredits } from '../wallet/wallet.commands.ts';
import { getBalance } from '../wallet/wallet.service.ts';
import { SHIPPING_SETTINGS_MESSAGES } from './shipping.service.ts';

/**
 * Shipping zones, rates and tax by destination (issue 26, decision 051), through the callable
 * functions as the web calls them, on a real Postgres with a real SMTP peer for receipts.
 */

let shop: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
let lpId: string;
let fanId: string;
const tokens: Record<string, string> = {};
const contact = { name: 'Fan', email: 'fan@example.org', phone: '' };
const US_CA = { name: 'Fan', line1: '1 Main St', line2: '', city: 'Los Angeles', state: 'CA', postal_code: '90001', country: 'US' };
const CA_DEST = { country: 'US', state: 'CA', postal_code: '90001' };
const DE = { name: 'Fan', line1: 'Hauptstr. 1', line2: '', city: 'Berlin', state: '', postal_code: '10115', country: 'DE' };
const JP = { name: 'Fan', line1: '1-1', line2: '', city: 'Tokyo', state: '', postal_code: '150-0002', country: 'JP' };

const LABEL: ShippingTaxConfig = {
  taxProvider: 'builtin',
  zones: [
    {
      id: 'us',
      name: 'United States',
      regions: ['US'],
      ships: true,
      freeOverCents: null,
      methods: [
        { id: 'standard', name: 'Standard', basis: 'item', firstCents: 600, extraCents: 150, stepGrams: 1000 },
        { id: 'express', name: 'Express', basis: 'order', firstCents: 2500, extraCents: 0, stepGrams: 1000 },
      ],
    },
    {
      id: 'eu',
      name: 'EU',
      regions: ['DE', 'FR'],
      ships: true,
      freeOverCents: null,
      methods: [{ id: 'standard', name: 'Standard', basis: 'order', firstCents: 1500, extraCents: 0, stepGrams: 1000 }],
    },
    { id: 'uk', name: 'UK', regions: ['GB'], ships: false, freeOverCents: null, methods: [] },
  ],
  taxRules: [
    { region: 'US-CA', name: 'California', physicalBasisPoints: 725, digitalBasisPoints: 0, shippingTaxable: false, pricesIncludeTax: false },
    { region: 'DE', name: 'Germany', physicalBasisPoints: 1900, digitalBasisPoints: 1900, shippingTaxable: true, pricesIncludeTax: true },
  ],
};

const fan = () => shop.functions(() => tokens.fan);
const admin = () => shop.functions(() => tokens.admin);
async function errorOf(promise: Promise<unknown>) {
  return (await promise.then(
    () => undefined,
    (e: unknown) => e,
  )) as FunctionsError;
}

beforeAll(async () => {
  smtp = await startSmtpPeer();
  shop = await startTestApp({ config: { env: { SMTP_URL: smtp.url } } });
  fanId = await shop.account('fan');
  const adminId = await shop.account('boss');
  await shop.db.execute(sql`UPDATE "user" SET role = 'admin' WHERE id = ${adminId}`);
  tokens.fan = await shop.signIn('fan@example.org');
  tokens.admin = await shop.signIn('boss@example.org');
  lpId = await releaseProduct(shop.db, { name: 'Label LP', description: 'LP', priceCents: 2500, images: ['/content/covers/cover-01.svg'] });
});

afterAll(async () => {
  await shop?.close();
  await smtp?.close();
});

describe('the default configuration', () => {
  it('is the spec’s, version 0, and quotes exactly as before wherever the buyer lives', async () => {
    expect(await admin().call('getShippingTaxConfig', null)).toEqual({ config: DEFAULT_SHIPPING_TAX_CONFIG, version: 0 });
    const expected = priceQuote([{ unitCents: 2500, qty: 2 }], 0, false);
    for (const destination of [undefined, { country: 'US', state: 'CA' }, { country: 'JP' }]) {
      const quote = await fan().call('quoteCheckout', { items: [{ id: lpId, qty: 2 }], useWallet: false, destination });
      expect([quote.subtotalCents, quote.shippingCents, quote.taxCents, quote.totalCents]).toEqual([5000, 999, expected.taxCents, expected.totalCents]);
      expect(quote.shippingMethods).toEqual([{ id: 'standard', name: 'Standard', shippingCents: 999 }]);
    }
  });
});

describe('zones, rates and tax by destination', () => {
  beforeAll(async () => {
    await admin().call('saveShippingTaxConfig', { config: LABEL, version: 0 });
  });

  it('quotes a US and an EU buyer differently, naming the jurisdiction', async () => {
    const us = await fan().call('quoteCheckout', { items: [{ id: lpId, qty: 2 }], useWallet: false, destination: { country: 'US', state: 'CA' } });
    // 600 + 150 for the second LP; 7.25% of the goods only (shipping not taxable in California).
    expect(us).toMatchObject({ subtotalCents: 5000, shippingCents: 750, taxCents: 363, totalCents: 6113, taxJurisdiction: 'California', shippingMethodId: 'standard' });
    expect(us.shippingMethods).toEqual([
      { id: 'standard', name: 'Standard', shippingCents: 750 },
      { id: 'express', name: 'Express', shippingCents: 2500 },
    ]);
    const express = await fan().call('quoteCheckout', {
      items: [{ id: lpId, qty: 2 }],
      useWallet: false,
      destination: { country: 'US', state: 'CA' },
      shippingMethodId: 'express',
    });
    expect([express.shippingCents, express.totalCents]).toEqual([2500, 7863]);
    const de = await fan().call('quoteCheckout', { items: [{ id: lpId, qty: 2 }], useWallet: false, destination: { country: 'DE' } });
    // VAT included: 6500 x 19 / 119 = 1037.8 -> 1038, shown but not added.
    expect(de).toMatchObject({ subtotalCents: 5000, shippingCents: 1500, taxCents: 0, taxIncludedCents: 1038, totalCents: 6500, taxJurisdiction: 'Germany' });
  });

  it('refuses a country with no zone, or a zone that does not ship, before payment: nothing is held', async () => {
    for (const destination of [{ country: 'JP' }, { country: 'GB' }]) {
      const error = await errorOf(fan().call('quoteCheckout', { items: [{ id: lpId, qty: 1 }], useWallet: false, destination }));
      expect([error.code, error.message]).toEqual(['failed-precondition', SHIPPING_TAX_MESSAGES.noShipping]);
    }
    const error = await errorOf(fan().call('createPaymentLinkStreetFlavorMerch', { items: [{ id: lpId, qty: 1 }], useWallet: false, contact, shipping: JP }));
    expect([error.code, error.message]).toEqual(['failed-precondition', SHIPPING_TAX_MESSAGES.noShipping]);
    const unknownMethod = await errorOf(
      fan().call('createPaymentLinkStreetFlavorMerch', { items: [{ id: lpId, qty: 1 }], useWallet: false, contact, shipping: US_CA, shippingMethodId: 'overnight' }),
    );
    expect(unknownMethod.message).toBe(SHIPPING_TAX_MESSAGES.chooseMethod);
    expect(await shop.db.select().from(checkouts)).toHaveLength(0);
  });

  it('checks postal codes and states per country', async () => {
    const badZip = await errorOf(
      fan().call('createPaymentLinkStreetFlavorMerch', { items: [{ id: lpId, qty: 1 }], useWallet: false, contact, shipping: { ...US_CA, postal_code: '9000' } }),
    );
    expect([badZip.code, badZip.message]).toEqual(['invalid-argument', 'Please enter a postal code of United States (for example 62701 or 62701-1234).']);
    const noState = await errorOf(
      fan().call('createPaymentLinkStreetFlavorMerch', { items: [{ id: lpId, qty: 1 }], useWallet: false, contact, shipping: { ...US_CA, state: '' } }),
    );
    expect(noState.message).toBe('Please enter the state as its code (for example AL).');
  });

  it('charges a card checkout what was quoted for its address and method, and keeps the jurisdiction', async () => {
    const quote = await fan().call('quoteCheckout', { items: [{ id: lpId, qty: 1 }], useWallet: false, destination: CA_DEST, shippingMethodId: 'express' });
    const link = await fan().call('createPaymentLinkStreetFlavorMerch', {
      items: [{ id: lpId, qty: 1 }],
      useWallet: false,
      contact,
      shipping: US_CA,
      shippingMethodId: 'express',
      quote,
      checkoutId: 'ship-card-1',
    });
    const [row] = await shop.db.select().from(checkouts).where(eq(checkouts.id, link.checkoutId));
    expect(row).toMatchObject({ shippingCents: 2500, taxCents: 181, chargeCents: quote.chargeCents, taxJurisdiction: 'California', shippingMethod: 'Express' });
    await fan().call('cancelOpenPayment', { checkoutId: link.checkoutId });
  });

  it("refunds lines and shipping with the tax the order paid at its own rate: California's 7.25%, Germany's VAT inside the price", async () => {
    await grantCredits(shop.db, 'fan@example.org', '300', 'shipping-refunds');
    const place = async (shipping: typeof US_CA, checkoutId: string) => {
      const destination = { country: shipping.country, state: shipping.state, postal_code: shipping.postal_code };
      const quote = await fan().call('quoteCheckout', { items: [{ id: lpId, qty: 2 }], useWallet: true, destination });
      const placed = await fan().call('completeWalletOnlyOrderStreetFlavor', { items: [{ id: lpId, qty: 2 }], contact, shipping, quote, checkoutId });
      return { quote, orderId: placed.orderId };
    };
    const refund = async (orderId: string, request: { lines?: { lineId: number; quantity: number }[]; shipping?: boolean }, key: string) => {
      const { refund: made } = await admin().call('refundOrder', { orderId, ...request, idempotencyKey: key });
      return made.walletCents + made.cardCents;
    };
    const us = await place(US_CA, 'ship-refund-us');
    expect([us.quote.taxCents, us.quote.totalCents]).toEqual([363, 6113]);
    const [usOrder] = await shop.db.select().from(orders).where(eq(orders.id, us.orderId));
    expect(usOrder!.shippingTaxCents).toBe(0);
    expect((await shop.db.select().from(orderItems).where(eq(orderItems.orderId, us.orderId))).map((item) => [item.paidCents, item.taxCents])).toEqual([[5000, 363]]);
    // One LP: 2500 + its half of 7.25% of 5000 (362.5 -> 363; 181.5 -> 182), not 9.25% (231).
    expect(await refund(us.orderId, { lines: [{ lineId: 0, quantity: 1 }] }, 'ship-refund-us-1')).toBe(2682);
    // Shipping is not taxed in California: the shipping alone comes back.
    expect(await refund(us.orderId, { shipping: true }, 'ship-refund-us-2')).toBe(750);
    expect(await refund(us.orderId, { lines: [{ lineId: 0, quantity: 1 }] }, 'ship-refund-us-3')).toBe(2681);
    const [usAfter] = await shop.db.select().from(orders).where(eq(orders.id, us.orderId));
    expect([usAfter!.refundStatus, usAfter!.refundedWalletCents]).toEqual(['refunded', 6113]);

    const de = await place(DE, 'ship-refund-de');
    expect([de.quote.taxCents, de.quote.totalCents]).toEqual([0, 6500]);
    // VAT is inside the 2500 and the 1500: nothing comes back on top of them.
    expect(await refund(de.orderId, { lines: [{ lineId: 0, quantity: 1 }] }, 'ship-refund-de-1')).toBe(2500);
    expect(await refund(de.orderId, { shipping: true }, 'ship-refund-de-2')).toBe(1500);
    const detail = await admin().call('getOrder', { orderId: de.orderId });
    expect(detail.refundable.lines).toEqual([{ lineId: 0, unitCents: 2500, qty: 2, refundedQty: 1, paidCents: 5000, taxCents: 0 }]);
  });

  it('refuses a quote made before the rates changed, or for another address, with a clear message', async () => {
    await grantCredits(shop.db, 'fan@example.org', '500', 'shipping-test');
    const reviewed = await fan().call('quoteCheckout', { items: [{ id: lpId, qty: 1 }], useWallet: true, destination: CA_DEST });
    // The address changed since the quote: the same goods, another shipping and tax.
    const moved = await errorOf(
      fan().call('completeWalletOnlyOrderStreetFlavor', { items: [{ id: lpId, qty: 1 }], contact, shipping: DE, quote: reviewed, checkoutId: 'ship-stale-address' }),
    );
    expect([moved.code, moved.message]).toEqual(['failed-precondition', SHIPPING_TAX_MESSAGES.shippingChanged]);
    // The label changed its rates since the quote.
    const { version } = await admin().call('getShippingTaxConfig', null);
    const dearer = structuredClone(LABEL);
    dearer.zones[0]!.methods[0]!.firstCents = 700;
    await admin().call('saveShippingTaxConfig', { config: dearer, version });
    const before = await getBalance(shop.db, fanId);
    const stale = await errorOf(
      fan().call('completeWalletOnlyOrderStreetFlavor', { items: [{ id: lpId, qty: 1 }], contact, shipping: US_CA, quote: reviewed, checkoutId: 'ship-stale-rates' }),
    );
    expect([stale.code, stale.message]).toEqual(['failed-precondition', SHIPPING_TAX_MESSAGES.shippingChanged]);
    const staleCard = await errorOf(
      fan().call('createPaymentLinkStreetFlavorMerch', { items: [{ id: lpId, qty: 1 }], useWallet: false, contact, shipping: US_CA, quote: reviewed }),
    );
    expect(staleCard.message).toBe(SHIPPING_TAX_MESSAGES.shippingChanged);
    // A changed price is still the spec's message.
    const tampered = await errorOf(
      fan().call('completeWalletOnlyOrderStreetFlavor', {
        items: [{ id: lpId, qty: 1 }],
        contact,
        shipping: US_CA,
        quote: { ...reviewed, subtotalCents: 1 },
        checkoutId: 'ship-tampered',
      }),
    );
    expect(tampered.message).toBe(CHECKOUT_MESSAGES.quoteChanged);
    expect(await getBalance(shop.db, fanId)).toEqual(before);

    // The fresh quote goes through: the order keeps the jurisdiction and the receipt names it.
    const fresh = await fan().call('quoteCheckout', { items: [{ id: lpId, qty: 1 }], useWallet: true, destination: CA_DEST });
    expect([fresh.shippingCents, fresh.taxCents]).toEqual([700, 181]);
    const placed = await fan().call('completeWalletOnlyOrderStreetFlavor', { items: [{ id: lpId, qty: 1 }], contact, shipping: US_CA, quote: fresh, checkoutId: 'ship-fresh' });
    const [order] = await shop.db.select().from(orders).where(eq(orders.id, placed.orderId));
    expect(order).toMatchObject({ shippingCents: 700, taxCents: 181, taxJurisdiction: 'California', shippingMethod: 'Standard' });
    await smtp.waitForText('fan@example.org', 'Tax (California) $1.81');
    const mine = await fan().call('listMyOrders', null);
    expect(mine.items.find((item) => item.id === placed.orderId)?.tax).toEqual({ jurisdiction: 'California', includedCents: 0, shippingMethod: 'Standard' });
  });
});

describe('weight-based rates (decision 060)', () => {
  it('weighs each variant as the console set it and charges the weight bracket in the quote, the order and the receipt', async () => {
    const release = (weightGrams: number) =>
      admin().call('releaseBizarreProduct', {
        name: `Heavy LP ${weightGrams}`,
        description: 'A heavy record',
        priceCents: 2000,
        images: ['/content/covers/cover-01.svg'],
        variants: [{ options: [], sku: '', priceCents: null, stock: null, weightGrams }],
      });
    // A weight outside 0..100000 grams is refused with a sentence, nothing released.
    const wrong = await errorOf(release(100_001));
    expect([wrong.code, wrong.message]).toEqual(['invalid-argument', STOCK_MESSAGES.weight]);
    const { id: heavyId } = (await release(300)) as { id: string };
    expect((await shop.db.select().from(productVariants).where(eq(productVariants.productId, heavyId)))[0]!.weightGrams).toBe(300);

    const { version } = await admin().call('getShippingTaxConfig', null);
    const byWeight = structuredClone(DEFAULT_SHIPPING_TAX_CONFIG);
    byWeight.zones[0]!.methods = [
      {
        id: 'standard',
        name: 'Parcel',
        basis: 'weight',
        firstCents: 0,
        extraCents: 300,
        stepGrams: 500,
        brackets: [
          { upToGrams: 500, cents: 600 },
          { upToGrams: 1000, cents: 850 },
          { upToGrams: 2000, cents: 1200 },
        ],
      },
    ];
    await admin().call('saveShippingTaxConfig', { config: byWeight, version });
    const shippingFor = async (qty: number) =>
      (await fan().call('quoteCheckout', { items: [{ id: heavyId, qty }], useWallet: false, destination: { country: 'US', state: 'IL', postal_code: '62701' } })).shippingCents;
    // 300 g, 600 g, 1200 g, 2400 g (the last bracket's 12.00 + one started 500 g step), 3 kg (+ 2 steps).
    expect([await shippingFor(1), await shippingFor(2), await shippingFor(4), await shippingFor(8), await shippingFor(10)]).toEqual([600, 850, 1200, 1500, 1800]);

    await grantCredits(shop.db, 'fan@example.org', '200', 'shipping-weight');
    const IL = { name: 'Fan', line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };
    const quote = await fan().call('quoteCheckout', { items: [{ id: heavyId, qty: 4 }], useWallet: true, destination: { country: 'US', state: 'IL', postal_code: '62701' } });
    // The default tax still applies: 9.25% of 8000 + 1200.
    expect(quote).toMatchObject({ subtotalCents: 8000, shippingCents: 1200, taxCents: 851, totalCents: 10051, shippingMethodName: 'Parcel' });
    const placed = await fan().call('completeWalletOnlyOrderStreetFlavor', { items: [{ id: heavyId, qty: 4 }], contact, shipping: IL, quote, checkoutId: 'ship-weight' });
    const [order] = await shop.db.select().from(orders).where(eq(orders.id, placed.orderId));
    expect(order).toMatchObject({ shippingCents: 1200, taxCents: 851, shippingMethod: 'Parcel' });
    await smtp.waitForText('fan@example.org', 'Shipping (Parcel) $12.00');

    // The label weighs it again (edit): the next quote follows.
    await admin().call('editBizarreProduct', {
      id: heavyId,
      name: 'Heavy LP 300',
      description: 'A heavy record',
      priceCents: 2000,
      images: ['/content/covers/cover-01.svg'],
      variants: [{ options: [], sku: '', priceCents: null, stock: null, weightGrams: 100 }],
    });
    expect(await shippingFor(4)).toBe(600);

    // A product's default weight weighs its variants that have none of their own.
    const { id: boxId } = (await admin().call('releaseBizarreProduct', {
      name: 'Box set',
      description: 'Three LPs',
      priceCents: 6000,
      weightGrams: 1400,
      images: ['/content/covers/cover-01.svg'],
      options: [{ name: 'Colour', values: ['Black', 'Red'] }],
      variants: [
        { options: ['Black'], sku: '', priceCents: null, stock: null },
        { options: ['Red'], sku: '', priceCents: null, stock: null, weightGrams: 400 },
      ],
    })) as { id: string };
    const variants = await shop.db.select().from(productVariants).where(eq(productVariants.productId, boxId));
    const boxQuote = async (colour: string) =>
      (
        await fan().call('quoteCheckout', {
          items: [{ id: boxId, variantId: variants.find((variant) => variant.optionValues[0] === colour)!.id, qty: 1 }],
          useWallet: false,
          destination: { country: 'US', state: 'IL', postal_code: '62701' },
        })
      ).shippingCents;
    expect([await boxQuote('Black'), await boxQuote('Red')]).toEqual([1200, 600]);
    await admin().call('saveShippingTaxConfig', { config: DEFAULT_SHIPPING_TAX_CONFIG, version: version + 1 });
  });
});

describe('saving the settings', () => {
  it('lets one of two admins saving from the same version win; the other is told to reload', async () => {
    const { version, config } = await admin().call('getShippingTaxConfig', null);
    const results = await Promise.allSettled([0, 1, 2, 3].map(() => admin().call('saveShippingTaxConfig', { config, version })));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    for (const result of results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')) {
      expect([(result.reason as FunctionsError).code, (result.reason as FunctionsError).message]).toEqual(['aborted', SHIPPING_SETTINGS_MESSAGES.stale]);
    }
    expect((await admin().call('getShippingTaxConfig', null)).version).toBe(version + 1);
  });

  it('refuses a configuration that contradicts itself, with a sentence', async () => {
    const { version } = await admin().call('getShippingTaxConfig', null);
    const twice = { ...LABEL, zones: [LABEL.zones[0]!, { ...LABEL.zones[1]!, regions: ['US'] }] };
    const error = await errorOf(admin().call('saveShippingTaxConfig', { config: twice, version }));
    expect([error.code, error.message]).toEqual(['invalid-argument', expect.stringContaining('A region belongs to one zone only.')]);
    const negative = await errorOf(admin().callUntyped('saveShippingTaxConfig', { config: { ...LABEL, taxRules: [{ ...LABEL.taxRules[0]!, physicalBasisPoints: -5 }] }, version }));
    expect(negative.message).toContain('Rates cannot be negative.');
  });
});
