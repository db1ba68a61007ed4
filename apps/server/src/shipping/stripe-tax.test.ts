import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SHIPPING_TAX_CONFIG, type ShippingTaxConfig } from '@storefront/domain/shipping-tax.ts';
import type { FunctionsError } from '@storefront/sdk/callable.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { releaseProduct } from '../catalog/catalog.service.ts';
import { checkouts, orderItems, orders, taxCalculations } from '../db/schema/index.ts';
import { reverseTax } from '../orders/tax.step.ts';
import { grantCredits } from '../wallet/wallet.commands.ts';
import { TAX_UNAVAILABLE } from '../checkout/pricing.step.ts';
import { createStripeTax } from './stripe-tax.ts';
import { sweepTaxCalculations, withCalculationCache } from './tax-cache.service.ts';

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

type FakeLine = { id: string; object: string; amount: number; amount_tax: number; reference: string; quantity: number; tax_behavior: string; tax_code: string };
type FakeTransaction = { id: string; lines: FakeLine[]; shipping: { amount: number; amount_tax: number } | null; reversed: Map<string, { amount: number; amount_tax: number }> };
const calculations = new Map<string, { lines: FakeLine[]; shipping: { amount: number; amount_tax: number } | null }>();
const transactions = new Map<string, FakeTransaction>();
/** Stripe answers a repeated idempotency key with the first answer; a reference is unique across transactions. */
const answered = new Map<string, { status: number; body: unknown }>();
const references = new Set<string>();

/** The rates the fake applies, per line and the shipping: California 7.25% on top; Germany 19% included. */
function calculationAnswer(form: URLSearchParams, id: string) {
  const country = form.get('customer_details[address][country]')!;
  const state = form.get('customer_details[address][state]') ?? null;
  const inclusive = form.get('line_items[0][tax_behavior]') === 'inclusive';
  const percent = country === 'US' && state === 'CA' ? 7.25 : country === 'DE' ? 19 : 0;
  const taxOf = (amount: number) => (inclusive ? Math.round((amount * percent) / (100 + percent)) : Math.round((amount * percent) / 100));
  const lines: FakeLine[] = [];
  for (let i = 0; form.has(`line_items[${i}][amount]`); i += 1) {
    const amount = Number(form.get(`line_items[${i}][amount]`));
    lines.push({
      id: `tax_li_${id}_${i}`,
      object: 'tax.calculation_line_item',
      amount,
      amount_tax: taxOf(amount),
      reference: form.get(`line_items[${i}][reference]`)!,
      quantity: Number(form.get(`line_items[${i}][quantity]`) ?? 1),
      tax_behavior: form.get(`line_items[${i}][tax_behavior]`)!,
      tax_code: form.get(`line_items[${i}][tax_code]`)!,
    });
  }
  const shipping = Number(form.get('shipping_cost[amount]') ?? 0);
  const goods = lines.reduce((sum, line) => sum + line.amount, 0);
  const base = goods + shipping;
  const tax = lines.reduce((sum, line) => sum + line.amount_tax, 0) + taxOf(shipping);
  calculations.set(id, { lines, shipping: shipping ? { amount: shipping, amount_tax: taxOf(shipping) } : null });
  const expanded = [...form.entries()].some(([name, value]) => name.startsWith('expand[') && value === 'line_items');
  return {
    ...(expanded ? { line_items: { object: 'list', data: lines, has_more: false, url: `/v1/tax/calculations/${id}/line_items` } } : {}),
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
    shipping_cost: shipping
      ? { amount: shipping, amount_tax: taxOf(shipping), shipping_rate: null, tax_behavior: inclusive ? 'inclusive' : 'exclusive', tax_code: 'txcd_92010001' }
      : null,
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

function transactionAnswer(transaction: FakeTransaction, reference: string) {
  const shipping = transaction.shipping ? { ...transaction.shipping, shipping_rate: null, tax_behavior: 'exclusive', tax_code: 'txcd_92010001' } : null;
  return { id: transaction.id, object: 'tax.transaction', reference, type: 'transaction', currency: 'usd', shipping_cost: shipping };
}

const refuse = (message: string) => ({ status: 400, body: { error: { type: 'invalid_request_error', message } } });

/**
 * create_reversal as Stripe documents it: mode, original_transaction and a reference unique across
 * transactions; a partial one names line items (original_line_item, negative amount and
 * amount_tax, reference), a shipping cost, or a flat amount alone, never more than is left.
 */
function reversalAnswer(form: URLSearchParams): { status: number; body: unknown } {
  const transaction = transactions.get(form.get('original_transaction') ?? '');
  const reference = form.get('reference');
  const mode = form.get('mode');
  if (!transaction) return refuse('No such transaction.');
  if (!reference) return refuse('Missing required param: reference.');
  if (references.has(reference)) return refuse(`A transaction with reference ${reference} already exists.`);
  const wholeOf = (amounts: { amount: number; amount_tax: number }[]) => amounts.reduce((sum, part) => sum + part.amount + part.amount_tax, 0);
  const total = wholeOf([...transaction.lines, ...(transaction.shipping ? [transaction.shipping] : [])]);
  const already = wholeOf([...transaction.reversed.values()]);
  const take = new Map<string, { amount: number; amount_tax: number }>();
  if (mode === 'full') {
    if (transaction.reversed.size > 0) return refuse('This transaction was already reversed in part; reverse the rest in part.');
    take.set('all', { amount: total, amount_tax: 0 });
  } else if (mode === 'partial') {
    const flat = form.get('flat_amount');
    const hasLines = form.has('line_items[0][original_line_item]');
    const hasShipping = form.has('shipping_cost[amount]');
    if (flat !== null && (hasLines || hasShipping)) return refuse('flat_amount cannot be combined with line_items or shipping_cost.');
    if (flat === null && !hasLines && !hasShipping) return refuse('A partial reversal needs line_items, shipping_cost or flat_amount.');
    if (flat !== null) {
      if (!/^-\d+$/.test(flat) || Number(flat) >= 0) return refuse('flat_amount must be a negative integer.');
      take.set(`flat-${reference}`, { amount: -Number(flat), amount_tax: 0 });
    }
    for (let i = 0; form.has(`line_items[${i}][original_line_item]`); i += 1) {
      const line = transaction.lines.find((candidate) => candidate.id === form.get(`line_items[${i}][original_line_item]`));
      const amount = Number(form.get(`line_items[${i}][amount]`));
      const amountTax = Number(form.get(`line_items[${i}][amount_tax]`));
      if (!line) return refuse('original_line_item is not a line item of the original transaction.');
      if (!form.get(`line_items[${i}][reference]`)) return refuse('Missing required param: line_items[][reference].');
      if (!Number.isInteger(amount) || !Number.isInteger(amountTax) || amount > 0 || amountTax > 0) return refuse('Line item amounts must be negative integers.');
      const before = transaction.reversed.get(line.id) ?? { amount: 0, amount_tax: 0 };
      if (before.amount - amount > line.amount || before.amount_tax - amountTax > line.amount_tax) return refuse('The reversal is more than is left of the line item.');
      take.set(line.id, { amount: before.amount - amount, amount_tax: before.amount_tax - amountTax });
    }
    if (hasShipping) {
      const amount = Number(form.get('shipping_cost[amount]'));
      const amountTax = Number(form.get('shipping_cost[amount_tax]'));
      const before = transaction.reversed.get('shipping') ?? { amount: 0, amount_tax: 0 };
      if (!transaction.shipping || amount > 0 || amountTax > 0 || before.amount - amount > transaction.shipping.amount)
        return refuse('The shipping reversal is more than is left.');
      take.set('shipping', { amount: before.amount - amount, amount_tax: before.amount_tax - amountTax });
    }
  } else {
    return refuse('mode must be full or partial.');
  }
  const after = new Map([...transaction.reversed, ...take]);
  if (wholeOf([...after.values()]) > total) return refuse(`The reversal is more than is left of the transaction (${total - already}).`);
  transaction.reversed = after;
  references.add(reference);
  return { status: 200, body: { id: `taxrev_${reference}`, object: 'tax.transaction', reference, type: 'reversal', currency: 'usd' } };
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
        const calculation = calculations.get(form.get('calculation')!)!;
        const id = `tax_${form.get('calculation')}`;
        if (!transactions.has(id)) {
          transactions.set(id, {
            id,
            lines: calculation.lines.map((line) => ({ ...line, id: line.id.replace('tax_li_', 'tax_tli_'), object: 'tax.transaction_line_item' })),
            shipping: calculation.shipping,
            reversed: new Map(),
          });
        }
        res.end(JSON.stringify(transactionAnswer(transactions.get(id)!, form.get('reference')!)));
      } else if (req.method === 'GET' && /^\/v1\/tax\/transactions\/[^/]+\/line_items/.test(req.url!)) {
        const transaction = transactions.get(req.url!.split('/')[4]!);
        res.end(JSON.stringify({ object: 'list', data: transaction?.lines ?? [], has_more: false, url: req.url }));
      } else if (req.method === 'GET' && req.url!.startsWith('/v1/tax/transactions/')) {
        res.end(JSON.stringify(transactionAnswer(transactions.get(req.url!.split('/')[4]!.split('?')[0]!)!, 'x')));
      } else if (req.method === 'POST' && req.url === '/v1/tax/transactions/create_reversal') {
        const replay = key ? answered.get(String(key)) : undefined;
        const answer = replay ?? reversalAnswer(form);
        if (key && !replay) answered.set(String(key), answer);
        res.statusCode = answer.status;
        res.end(JSON.stringify(answer.body));
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
    // 7.25% of 5000 (362.5 -> 363) + of 999 (72): 435, named for people from Stripe's country and state.
    expect(us).toMatchObject({ subtotalCents: 5000, shippingCents: 999, taxCents: 435, totalCents: 6434, taxIncludedCents: 0, taxJurisdiction: 'California' });
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
    expect(de).toMatchObject({ taxCents: 0, taxIncludedCents: 559, totalCents: 3499, taxJurisdiction: 'Germany VAT' });
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

  it("refunds lines and shipping at the order's own rate and reverses each refund in part, once across retries", async () => {
    await grantCredits(shop.db, 'fan@example.org', '200', 'stripe-tax-partial');
    const destination = { country: 'US', state: 'CA', postal_code: '90001' };
    const quote = await fan().call('quoteCheckout', { items: [{ id: lpId, qty: 2 }], useWallet: true, destination });
    const placed = await fan().call('completeWalletOnlyOrderStreetFlavor', {
      items: [{ id: lpId, qty: 2 }],
      contact: { name: 'Fan', email: 'fan@example.org', phone: '' },
      shipping: CA,
      quote,
      checkoutId: 'stripe-tax-partial',
    });
    // The order keeps Stripe's own tax per line (363 on the two LPs) and on the shipping (72).
    const [kept] = await shop.db.select().from(orderItems).where(eq(orderItems.orderId, placed.orderId));
    expect([kept!.paidCents, kept!.taxCents]).toEqual([5000, 363]);
    expect((await shop.db.select().from(orders).where(eq(orders.id, placed.orderId)))[0]!.shippingTaxCents).toBe(72);

    // One LP: 2500 and half its line's tax (181.5 -> 182) at California's 7.25%, not the default 9.25% (231).
    const { refund: one } = await admin().call('refundOrder', { orderId: placed.orderId, lines: [{ lineId: 0, quantity: 1 }], idempotencyKey: 'partial-1' });
    expect(one.walletCents + one.cardCents).toBe(2682);
    const { refund: shipping } = await admin().call('refundOrder', { orderId: placed.orderId, shipping: true, idempotencyKey: 'partial-2' });
    expect(shipping.walletCents + shipping.cardCents).toBe(999 + 72);
    const { refund: rest } = await admin().call('refundOrder', { orderId: placed.orderId, idempotencyKey: 'partial-3' });
    expect(rest.walletCents + rest.cardCents).toBe(2681);
    const reversals = await until(
      async () => seen.filter((entry) => entry.path === 'POST /v1/tax/transactions/create_reversal' && entry.form.get('reference')!.startsWith(placed.orderId)),
      (list) => list.length >= 3,
    );
    const sent = (refundId: string) => Object.fromEntries(reversals.find((entry) => entry.form.get('reference') === `${placed.orderId}-${refundId}`)!.form);
    const transactionId = `tax_${(await shop.db.select().from(orders).where(eq(orders.id, placed.orderId)))[0]!.taxCalculationId}`;
    expect(sent(one.id)).toMatchObject({
      mode: 'partial',
      original_transaction: transactionId,
      'line_items[0][original_line_item]': expect.stringMatching(/^tax_tli_/),
      'line_items[0][amount]': '-2500',
      'line_items[0][amount_tax]': '-182',
      'line_items[0][quantity]': '1',
    });
    expect(sent(shipping.id)).toMatchObject({ mode: 'partial', 'shipping_cost[amount]': '-999', 'shipping_cost[amount_tax]': '-72' });
    expect(sent(rest.id)).toMatchObject({ mode: 'partial', 'line_items[0][amount]': '-2500', 'line_items[0][amount_tax]': '-181' });
    // The three reversals took exactly the whole transaction: Stripe refuses more.
    expect([...transactions.get(transactionId)!.reversed.values()].reduce((sum, part) => sum + part.amount + part.amount_tax, 0)).toBe(6434);

    // A retried job sends the same reversal with the same key: Stripe answers it once, nothing more is reversed.
    const tax = createStripeTax({ secretKey: 'sk_test_fake', api: { host: '127.0.0.1', port: (fake.address() as AddressInfo).port, protocol: 'http' } });
    await reverseTax({ db: shop.db, tax }, placed.orderId, one.id);
    const again = seen.filter((entry) => entry.form.get('reference') === `${placed.orderId}-${one.id}`);
    expect(again.map((entry) => entry.idempotencyKey)).toEqual([`tax-reverse-${one.id}`, `tax-reverse-${one.id}`]);
    expect(references.has(`${placed.orderId}-${one.id}`)).toBe(true);
    expect([...transactions.get(transactionId)!.reversed.values()].reduce((sum, part) => sum + part.amount + part.amount_tax, 0)).toBe(6434);
  });

  it('refunds a VAT-inclusive line at its gross price and reverses an amount as a flat amount', async () => {
    await grantCredits(shop.db, 'fan@example.org', '200', 'stripe-tax-vat');
    const destination = { country: 'DE', postal_code: '10115' };
    const quote = await fan().call('quoteCheckout', { items: [{ id: lpId, qty: 2 }], useWallet: true, destination });
    const placed = await fan().call('completeWalletOnlyOrderStreetFlavor', {
      items: [{ id: lpId, qty: 2 }],
      contact: { name: 'Fan', email: 'fan@example.org', phone: '' },
      shipping: { name: 'Fan', line1: 'Unter den Linden 1', line2: '', city: 'Berlin', state: '', postal_code: '10115', country: 'DE' },
      quote,
      checkoutId: 'stripe-tax-vat',
    });
    expect(quote).toMatchObject({ totalCents: 5999, taxCents: 0, taxJurisdiction: 'Germany VAT' });
    // The VAT is inside the 2500: a refund of one LP gives back 2500, nothing on top.
    const { refund: one } = await admin().call('refundOrder', { orderId: placed.orderId, lines: [{ lineId: 0, quantity: 1 }], idempotencyKey: 'vat-refund-1' });
    expect(one.walletCents + one.cardCents).toBe(2500);
    const { refund: amount } = await admin().call('refundOrder', { orderId: placed.orderId, amountCents: 1000, idempotencyKey: 'vat-refund-2' });
    const reversals = await until(
      async () => seen.filter((entry) => entry.path === 'POST /v1/tax/transactions/create_reversal' && entry.form.get('reference')!.startsWith(placed.orderId)),
      (list) => list.length >= 2,
    );
    const sent = (refundId: string) => Object.fromEntries(reversals.find((entry) => entry.form.get('reference') === `${placed.orderId}-${refundId}`)!.form);
    // Included: the line's amount holds its tax (798 of 5000 at 19% -> 399 each).
    expect(sent(one.id)).toMatchObject({ mode: 'partial', 'line_items[0][amount]': '-2500', 'line_items[0][amount_tax]': '-399' });
    expect(sent(amount.id)).toMatchObject({ mode: 'partial', flat_amount: '-1000' });
    expect(sent(amount.id)['line_items[0][amount]']).toBeUndefined();

    // Stripe's codes (DE, vat; US, CA) are named for people wherever the tax line shows (decision 060).
    const mine = await fan().call('listMyOrders', null);
    expect(mine.items.find((item) => item.id === placed.orderId)?.tax?.jurisdiction).toBe('Germany VAT');
    const desk = await admin().call('getOrder', { orderId: placed.orderId });
    expect(JSON.stringify(desk.order)).toContain('Germany VAT');
    const overview = await admin().call('getSalesOverview', { days: 1 });
    expect(overview.byTaxJurisdiction?.map((row) => row.jurisdiction)).toEqual(expect.arrayContaining(['California', 'Germany VAT']));
  });

  it('refuses to start a checkout when Stripe cannot calculate the tax: nothing is held', async () => {
    failCalculations = true;
    try {
      // A cart no calculation is kept for (the kept ones would answer without Stripe).
      const error = (await fan()
        .call('createPaymentLinkStreetFlavorMerch', {
          items: [{ id: lpId, qty: 7 }],
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

  it('keeps a calculation 10 minutes for an unchanged request, shared by instances; a changed cart, address or an expired one asks Stripe again (issue 40 item 7)', async () => {
    const calls = () => seen.filter((entry) => entry.path === 'POST /v1/tax/calculations').length;
    const destination = { country: 'US', state: 'CA', postal_code: '90001' };
    const first = await fan().call('quoteCheckout', { items: [{ id: lpId, qty: 4 }], useWallet: false, destination });
    const before = calls();
    // The same cart and address again, and a checkout with it: no new billed calculation, the same tax.
    const again = await fan().call('quoteCheckout', { items: [{ id: lpId, qty: 4 }], useWallet: false, destination });
    expect(again.taxCents).toBe(first.taxCents);
    expect(calls()).toBe(before);
    // Another address or another cart: asked again.
    await fan().call('quoteCheckout', { items: [{ id: lpId, qty: 4 }], useWallet: false, destination: { country: 'US', state: 'CA', postal_code: '94110' } });
    expect(calls()).toBe(before + 1);
    await fan().call('quoteCheckout', { items: [{ id: lpId, qty: 5 }], useWallet: false, destination });
    expect(calls()).toBe(before + 2);
    // Another instance (its own calculator on the same database) finds it kept.
    const { port } = fake.address() as AddressInfo;
    const otherInstance = withCalculationCache(shop.db, createStripeTax({ secretKey: 'sk_test_fake', api: { host: '127.0.0.1', port, protocol: 'http' } }));
    const request = {
      lines: [{ id: lpId, name: 'Label LP', qty: 1, unitCents: 2500 }],
      shippingCents: 999,
      address: { country: 'US', state: 'NY', postal_code: '10001' },
      inclusive: false,
    };
    const fromFirst = await withCalculationCache(shop.db, createStripeTax({ secretKey: 'sk_test_fake', api: { host: '127.0.0.1', port, protocol: 'http' } })).calculate(request);
    expect(await otherInstance.calculate({ ...request, address: { postal_code: '10001', state: 'NY', country: 'US' } })).toEqual(fromFirst);
    expect(calls()).toBe(before + 3);
    // Past its 10 minutes: asked again, and the sweep removes what is past.
    await shop.db.update(taxCalculations).set({ expiresAt: new Date(Date.now() - 1000) });
    await fan().call('quoteCheckout', { items: [{ id: lpId, qty: 4 }], useWallet: false, destination });
    expect(calls()).toBe(before + 4);
    expect(await sweepTaxCalculations(shop.db)).toBeGreaterThanOrEqual(3);
    expect((await shop.db.select().from(taxCalculations)).length).toBe(1);
  });
});
