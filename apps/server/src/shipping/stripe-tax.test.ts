import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SHIPPING_TAX_CONFIG, type ShippingTaxConfig } from '@storefront/domain/shipping-tax.ts';
import type { FunctionsError } from '@storefront/sdk/callable.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { releaseProduct } from '../catalog/catalog.service.ts';
import { checkouts, orders } from '../db/schema/index.ts';
import { grantCredits } from '../wallet/wallet.commands.ts';
import { TAX_UNAVAILABLE } from '../checkout/pricing.step.ts';
import { createStripeTax } from './stripe-tax.ts';

/**
 * Stripe Tax (issue 26, decision 051) against a fake Stripe server that speaks the documented
 * requests and answers: POST /v1/tax/calculations (form-encoded line_items, shipping_cost,
 * customer_details[address]) answering a tax.calculation; create_from_calculation and
 * create_reversal answering tax.transaction objects. Nothing calls the real Stripe.
 */

type Seen = { path: string; form: URLSearchParams; idempotencyKey: string | undefined };
const seen: Seen[] = [];
let failCalculations = false;
let fake: http.Server;
let shop: TestApp;
let lpId: string;
const tokens: Record<string, string> = {};

/** The rates the fake applies: California 7.25% on top of goods and shipping; Germany 19% included. */
function calculationAnswer(form: URLSearchParams, id: string) {
  const country = form.get('customer_details[address][country]')!;
  const state = form.get('customer_details[address][state]') ?? null;
  let goods = 0;
  for (let i = 0; form.has(`line_items[${i}][amount]`); i += 1) goods += Number(form.get(`line_items[${i}][amount]`));
  const shipping = Number(form.get('shipping_cost[amount]') ?? 0);
  const inclusive = form.get('line_items[0][tax_behavior]') === 'inclusive';
  const percent = country === 'US' && state === 'CA' ? 7.25 : country === 'DE' ? 19 : 0;
  const base = goods + shipping;
  const tax = inclusive ? Math.round((base * percent) / (100 + percent)) : Math.round((base * percent) / 100);
  return {
    id,
    object: 'tax.calculation',
    amount_total: inclusive ? base : base + tax,
    currency: 'usd',
    customer: null,
    customer_details: {
      address: { country, state, postal_code: form.get('customer_details[address][postal_code]') },
      address_source: 'shipping',
      ip_address: null,
      tax_ids: [],
      taxability_override: 'none',
    },
    expires_at: Math.floor(Date.now() / 1000) + 90 * 24 * 3600,
    livemode: false,
    ship_from_details: null,
    shipping_cost: shipping ? { amount: shipping, amount_tax: 0, shipping_rate: null, tax_behavior: inclusive ? 'inclusive' : 'exclusive', tax_code: 'txcd_92010001' } : null,
    tax_amount_exclusive: inclusive ? 0 : tax,
    tax_amount_inclusive: inclusive ? tax : 0,
    tax_breakdown: [
      {
        amount: tax,
        inclusive,
        tax_rate_details: { country, flat_amount: null, percentage_decimal: percent.toFixed(4), rate_type: 'percentage', state, tax_type: country === 'US' ? 'sales_tax' : 'vat' },
        taxability_reason: percent ? 'standard_rated' : 'not_collecting',
        taxable_amount: percent ? base : 0,
      },
    ],
    tax_date: Math.floor(Date.now() / 1000),
  };
}

const fan = () => shop.functions(() => tokens.fan);
const admin = () => shop.functions(() => tokens.admin);
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let tries = 0; ; tries += 1) {
    const value = await read();
    if (done(value) || tries > 400) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

beforeAll(async () => {
  fake = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const form = new URLSearchParams(body);
      const key = req.headers['idempotency-key'];
      seen.push({ path: `${req.method} ${req.url}`, form, idempotencyKey: typeof key === 'string' ? key : undefined });
      res.setHeader('content-type', 'application/json');
      if (req.method === 'POST' && req.url === '/v1/tax/calculations') {
        if (failCalculations) {
          res.statusCode = 400;
          res.end(
            JSON.stringify({ error: { type: 'invalid_request_error', code: 'customer_tax_location_invalid', message: 'We could not determine the customer’s tax location.' } }),
          );
          return;
        }
        res.end(JSON.stringify(calculationAnswer(form, `taxcalc_${seen.length}`)));
      } else if (req.method === 'POST' && req.url === '/v1/tax/transactions/create_from_calculation') {
        res.end(JSON.stringify({ id: `tax_${form.get('calculation')}`, object: 'tax.transaction', reference: form.get('reference'), type: 'transaction', currency: 'usd' }));
      } else if (req.method === 'POST' && req.url === '/v1/tax/transactions/create_reversal') {
        res.end(
          JSON.stringify({ id: `taxrev_${form.get('original_transaction')}`, object: 'tax.transaction', reference: form.get('reference'), type: 'reversal', currency: 'usd' }),
        );
      } else {
        res.statusCode = 404;
        res.end(JSON.stringify({ error: { type: 'invalid_request_error', message: `No fake for ${req.method} ${req.url}` } }));
      }
    });
  });
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  const { port } = fake.address() as AddressInfo;
  shop = await startTestApp({ build: { tax: createStripeTax({ secretKey: 'sk_test_fake', api: { host: '127.0.0.1', port, protocol: 'http' } }) } });
  await shop.account('fan');
  const adminId = await shop.account('boss');
  await shop.db.execute(sql`UPDATE "user" SET role = 'admin' WHERE id = ${adminId}`);
  tokens.fan = await shop.signIn('fan@example.org');
  tokens.admin = await shop.signIn('boss@example.org');
  lpId = await releaseProduct(shop.db, { name: 'Label LP', description: 'LP', priceCents: 2500, images: ['/content/covers/cover-01.svg'] });
  const config: ShippingTaxConfig = {
    ...DEFAULT_SHIPPING_TAX_CONFIG,
    taxProvider: 'stripe',
    taxRules: [{ region: 'DE', name: 'Germany', physicalBasisPoints: 1900, digitalBasisPoints: 1900, shippingTaxable: true, pricesIncludeTax: true }],
  };
  await admin().call('saveShippingTaxConfig', { config, version: 0 });
});

afterAll(async () => {
  await shop?.close();
  await new Promise((resolve) => fake?.close(resolve));
});

const CA = { name: 'Fan', line1: '1 Main St', line2: '', city: 'Los Angeles', state: 'CA', postal_code: '90001', country: 'US' };

describe('Stripe Tax', () => {
  it('quotes with a Tax Calculation sent as Stripe documents it: goods and shipping on top in California, included in Germany', async () => {
    const us = await fan().call('quoteCheckout', { items: [{ id: lpId, qty: 2 }], useWallet: false, destination: { country: 'US', state: 'CA', postal_code: '90001' } });
    // 7.25% of 5000 + 999 = 434.9 -> 435, named by Stripe's country and state.
    expect(us).toMatchObject({ subtotalCents: 5000, shippingCents: 999, taxCents: 435, totalCents: 6434, taxIncludedCents: 0, taxJurisdiction: 'US-CA' });
    const request = seen.findLast((entry) => entry.path === 'POST /v1/tax/calculations')!;
    expect(Object.fromEntries(request.form)).toMatchObject({
      currency: 'usd',
      'line_items[0][amount]': '5000',
      'line_items[0][quantity]': '2',
      'line_items[0][tax_behavior]': 'exclusive',
      'line_items[0][tax_code]': 'txcd_99999999',
      'shipping_cost[amount]': '999',
      'customer_details[address][country]': 'US',
      'customer_details[address][state]': 'CA',
      'customer_details[address][postal_code]': '90001',
      'customer_details[address_source]': 'shipping',
    });
    const de = await fan().call('quoteCheckout', { items: [{ id: lpId, qty: 1 }], useWallet: false, destination: { country: 'DE', postal_code: '10115' } });
    expect(de).toMatchObject({ taxCents: 0, taxIncludedCents: 559, totalCents: 3499, taxJurisdiction: 'DE' });
  });

  it('records a tax transaction from the calculation once the order exists, and reverses it when the order is refunded in full', async () => {
    await grantCredits(shop.db, 'fan@example.org', '100', 'stripe-tax');
    const quote = await fan().call('quoteCheckout', { items: [{ id: lpId, qty: 1 }], useWallet: true, destination: { country: 'US', state: 'CA', postal_code: '90001' } });
    const placed = await fan().call('completeWalletOnlyOrderStreetFlavor', {
      items: [{ id: lpId, qty: 1 }],
      contact: { name: 'Fan', email: 'fan@example.org', phone: '' },
      shipping: CA,
      quote,
      checkoutId: 'stripe-tax-1',
    });
    const order = await until(
      async () => (await shop.db.select().from(orders).where(eq(orders.id, placed.orderId)))[0]!,
      (row) => row.taxTransactionId !== null,
    );
    expect(order.taxCalculationId).toMatch(/^taxcalc_/);
    expect(order.taxTransactionId).toBe(`tax_${order.taxCalculationId}`);
    const recorded = seen.filter((entry) => entry.path === 'POST /v1/tax/transactions/create_from_calculation');
    expect(recorded.map((entry) => [entry.form.get('calculation'), entry.form.get('reference'), entry.idempotencyKey])).toEqual([
      [order.taxCalculationId, placed.orderId, `tax-record-${placed.orderId}`],
    ]);

    await admin().call('refundOrder', { orderId: placed.orderId, idempotencyKey: 'stripe-tax-refund-1' });
    const reversals = await until(
      async () => seen.filter((entry) => entry.path === 'POST /v1/tax/transactions/create_reversal'),
      (list) => list.length > 0,
    );
    expect(reversals.map((entry) => [entry.form.get('mode'), entry.form.get('original_transaction'), entry.form.get('reference')])).toEqual([
      ['full', order.taxTransactionId, `${placed.orderId}-reversal`],
    ]);
  });

  it('refuses to start a checkout when Stripe cannot calculate the tax: nothing is held', async () => {
    failCalculations = true;
    try {
      const error = (await fan()
        .call('createPaymentLinkStreetFlavorMerch', {
          items: [{ id: lpId, qty: 1 }],
          useWallet: false,
          contact: { name: 'Fan', email: 'fan@example.org', phone: '' },
          shipping: CA,
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        )) as FunctionsError;
      expect([error.code, error.message]).toEqual(['unavailable', TAX_UNAVAILABLE]);
      expect(await shop.db.select().from(checkouts)).toHaveLength(0);
    } finally {
      failCalculations = false;
    }
  });
});
