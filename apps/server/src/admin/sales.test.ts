import { and, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FunctionsError } from '@storefront/sdk/callable.ts';
import { splitRefund } from '@storefront/domain/refunds.ts';
import { SALES_FIGURES, SALES_MESSAGES, salesCsv, type SalesFigures, type SalesOverview } from '@storefront/domain/sales.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { releaseProduct } from '../catalog/catalog.service.ts';
import { giftCards, ledgerEntries, orderEvents, orderRefunds, orders, productVariants } from '../db/schema/index.ts';
import { credit, debit } from '../wallet/wallet.service.ts';
import { runTransaction } from '../db/transaction.ts';
import { insertOrder } from '../orders/orders.service.ts';

/**
 * The sales overview as an accountant reads it (issue 29 item 1, decision 045): a generated
 * month of orders and refunds in a time zone with a daylight-saving change, every cell compared
 * with sums computed here from the rows, independently of the service's SQL.
 */
const ZONE = 'America/New_York';
let testApp: TestApp;
let admin: ReturnType<TestApp['functions']>;
let adminId: string;
let buyerId: string;

type Variant = { productId: string; variantId: string; name: string; label: string; unitCents: number };
let tee: Variant[];
let record: Variant;

beforeAll(async () => {
  testApp = await startTestApp({ config: { env: { LABEL_TIME_ZONE: ZONE } } });
  adminId = await testApp.account('accountant');
  buyerId = await testApp.account('buyer');
  await testApp.db.execute(sql`UPDATE "user" SET role = 'admin' WHERE id = ${adminId}`);
  const token = await testApp.signIn('accountant@example.org');
  admin = testApp.functions(() => token);
  const teeId = await releaseProduct(testApp.db, {
    name: 'Tour Tee 2026',
    description: 'Tee',
    priceCents: 2500,
    images: ['/content/covers/cover-01.svg'],
    options: [{ name: 'Size', values: ['S', 'M', 'L'] }],
    variants: ['S', 'M', 'L'].map((size) => ({ options: [size], sku: '', priceCents: size === 'L' ? 2700 : null, stock: null })),
  });
  const recordId = await releaseProduct(testApp.db, { name: 'Debut LP', description: 'Vinyl', priceCents: 3199, images: ['/content/covers/cover-02.svg'] });
  const variants = await testApp.db
    .select()
    .from(productVariants)
    .where(inArray(productVariants.productId, [teeId, recordId]))
    .orderBy(productVariants.position);
  tee = variants
    .filter((variant) => variant.productId === teeId)
    .map((variant) => ({ productId: teeId, variantId: variant.id, name: 'Tour Tee 2026', label: variant.optionValues.join(' / '), unitCents: variant.priceCents ?? 2500 }));
  const lp = variants.find((variant) => variant.productId === recordId)!;
  record = { productId: recordId, variantId: lp.id, name: 'Debut LP', label: '', unitCents: 3199 };
});

afterAll(async () => {
  await testApp?.close();
});

async function errorOf(promise: Promise<unknown>): Promise<FunctionsError> {
  return (await promise.then(
    () => undefined,
    (e: unknown) => e,
  )) as FunctionsError;
}

/** A deterministic stream of numbers in [0, 1). */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

type Line = { variant: Variant; qty: number };
type PlacedOrder = { id: string; at: Date; lines: Line[]; subtotal: number; shipping: number; tax: number; wallet: number; card: number };
type GivenRefund = {
  orderId: string;
  at: Date;
  wallet: number;
  card: number;
  lines: { lineId: number; quantity: number }[];
  status: 'pending' | 'succeeded' | 'failed';
  /** A shipping refund's shipping and tax (decision 050). */
  shipping?: number;
  /** What it gave back: every line and all paid, an amount, the shipping, or one unit of the first line and its tax. */
  kind: 'full' | 'amount' | 'shipping' | 'line';
};

/** An order as checkout prices it (spec section 9): flat shipping, 9.25% tax, wallet first, the card grossed up. */
async function placeOrder(lines: Line[], at: Date, walletShare: number, key: string): Promise<PlacedOrder> {
  const subtotal = lines.reduce((sum, line) => sum + line.qty * line.variant.unitCents, 0);
  const shipping = 999;
  const tax = Math.round((subtotal + shipping) * 0.0925);
  const total = subtotal + shipping + tax;
  const wallet = Math.floor(total * walletShare);
  const card = total - wallet === 0 ? 0 : Math.ceil((total - wallet + 30) / 0.971);
  const { id } = await runTransaction(testApp.db, (tx) =>
    insertOrder(tx, {
      userId: buyerId,
      checkoutId: `sales-${key}`,
      paymentIntentId: `pi_sales_${key}`,
      items: lines.map((line) => ({
        id: line.variant.productId,
        variantId: line.variant.variantId,
        name: line.variant.label ? `${line.variant.name} - ${line.variant.label}` : line.variant.name,
        qty: line.qty,
        unitCents: line.variant.unitCents,
      })),
      subtotalCents: subtotal,
      shippingCents: shipping,
      taxCents: tax,
      walletAppliedCents: wallet,
      chargedCents: card,
      contact: { name: 'Buyer', email: 'buyer@example.org', phone: '' },
      shipping: { name: 'Buyer' },
    }),
  );
  await testApp.db.update(orders).set({ createdAt: at }).where(eq(orders.id, id));
  return { id, at, lines, subtotal, shipping, tax, wallet, card };
}

/** A desk refund row as the desk writes it; a refund that did not fail is added to the order's refunded parts. */
async function giveRefund(refund: GivenRefund, key: string) {
  await testApp.db.insert(orderRefunds).values({
    id: `rf_${key}`,
    orderId: refund.orderId,
    idempotencyKey: key,
    adminId,
    walletCents: refund.wallet,
    cardCents: refund.card,
    lines: refund.lines,
    shippingCents: refund.shipping ?? 0,
    status: refund.status,
    createdAt: refund.at,
  });
  if (refund.status !== 'failed') {
    await testApp.db
      .update(orders)
      .set({
        refundedWalletCents: sql`${orders.refundedWalletCents} + ${refund.wallet}`,
        refundedCardCents: sql`${orders.refundedCardCents} + ${refund.card}`,
        refundStatus: 'partially_refunded',
      })
      .where(eq(orders.id, refund.orderId));
  }
}

/** Largest remainder: `total` over `weights`, the shares summing to it (written here, not taken from the domain). */
function byWeight(total: number, weights: number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  const shares = weights.map((weight) => Math.floor((weight * total) / sum));
  const order = weights.map((weight, index) => ({ index, rest: (weight * total) % sum })).sort((a, b) => b.rest - a.rest || a.index - b.index);
  for (let left = total - shares.reduce((a, b) => a + b, 0), at = 0; left > 0; left -= 1, at += 1) shares[order[at]!.index]! += 1;
  return shares;
}

/**
 * What a refund of one of the generated orders (9.25% on goods and shipping, no discount) gave
 * back, part by part, from the order: a full refund each part; the shipping its 999 and their tax;
 * one unit its price and tax; an amount (or the provider's) shared over goods, tax, shipping, fee.
 */
function refundPartsOf(order: PlacedOrder, refund: Pick<GivenRefund, 'kind' | 'wallet' | 'card'>) {
  const fee = order.wallet + order.card - order.subtotal - order.shipping - order.tax;
  if (refund.kind === 'full') return { goods: order.subtotal, tax: order.tax, shipping: order.shipping, fee };
  if (refund.kind === 'shipping') return { goods: 0, tax: refund.wallet + refund.card - order.shipping, shipping: order.shipping, fee: 0 };
  if (refund.kind === 'line') {
    const unit = order.lines[0]!.variant.unitCents;
    return { goods: unit, tax: refund.wallet + refund.card - unit, shipping: 0, fee: 0 };
  }
  const [goods, tax, shipping, cardFee] = byWeight(refund.wallet + refund.card, [order.subtotal, order.tax, order.shipping, fee]);
  return { goods: goods!, tax: tax!, shipping: shipping!, fee: cardFee! };
}

const dayIn = (at: Date) => new Intl.DateTimeFormat('en-CA', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);

describe('the sales overview', () => {
  it('counts an order of M x2 and S x1 by variant, and a fully refunded order as no net sale (the issue’s example)', async () => {
    const [s, m] = [tee[0]!, tee[1]!];
    const at = new Date('2026-06-10T15:00:00Z');
    const kept = await placeOrder(
      [
        { variant: m, qty: 2 },
        { variant: s, qty: 1 },
      ],
      at,
      0,
      'example-kept',
    );
    const returned = await placeOrder([{ variant: record, qty: 3 }], at, 0.5, 'example-returned');
    await giveRefund(
      { orderId: returned.id, at, wallet: returned.wallet, card: returned.card, lines: [{ lineId: 0, quantity: 3 }], status: 'succeeded', kind: 'full' },
      'example-full',
    );

    const overview = await admin.call('getSalesOverview', { from: '2026-06-10', to: '2026-06-10' });
    expect(overview.timeZone).toBe(ZONE);
    expect(overview.byVariant.filter((row) => row.productId === s.productId).map((row) => [row.variant, row.unitsSold, row.grossSalesCents])).toEqual([
      ['S', 1, 2500],
      ['M', 2, 5000],
    ]);
    expect(overview.byProduct.find((row) => row.productId === s.productId)).toMatchObject({ name: 'Tour Tee 2026', unitsSold: 3, grossSalesCents: 7500 });
    expect(overview.byProduct.find((row) => row.productId === record.productId)).toMatchObject({ unitsSold: 3, unitsRefunded: 3, refundedGoodsCents: 9597 });
    // Net sales are the kept order's goods: the returned one's goods came back as returns.
    expect(overview.totals.netSalesCents).toBe(kept.subtotal);
    expect(overview.totals.returnsCents).toBe(returned.subtotal);
    expect(overview.totals.netReceiptsCents).toBe(kept.wallet + kept.card);
    expect(overview.totals.totalCollectedCents).toBe(kept.wallet + kept.card + returned.wallet + returned.card);
    expect(overview.totals.cardFeesCents).toBe(
      kept.card - (kept.subtotal + kept.shipping + kept.tax) + returned.wallet + returned.card - (returned.subtotal + returned.shipping + returned.tax),
    );
    const csv = salesCsv(overview);
    expect(csv).toContain(`${m.productId},${m.variantId},Tour Tee 2026,M,2,50.00,0,0.00,2,50.00`);
    expect(csv).toContain(`${s.productId},${s.variantId},Tour Tee 2026,S,1,25.00,0,0.00,1,25.00`);
  });

  it('reconciles every cell of a generated month with the orders and refunds it is made of', async () => {
    const next = random(2911);
    const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)]!;
    const catalogue = [...tee, record];
    // November 2026 in New York (the clocks go back on the 1st), with days either side: some
    // orders and refunds fall just before and after midnight there.
    const start = Date.parse('2026-10-29T00:00:00Z');
    const span = Date.parse('2026-12-03T00:00:00Z') - start;
    const placed: PlacedOrder[] = [];
    for (let index = 0; index < 90; index += 1) {
      const lines = Array.from({ length: 1 + Math.floor(next() * 3) }, () => ({ variant: pick(catalogue), qty: 1 + Math.floor(next() * 3) }));
      // Every fifth order lands within a minute of a New York midnight (04:00 or 05:00 UTC).
      const at =
        index % 5 === 0
          ? new Date(Date.parse(`2026-11-${String(1 + (index % 28)).padStart(2, '0')}T0${index % 2 ? 4 : 5}:00:00Z`) + (next() < 0.5 ? -30_000 : 30_000))
          : new Date(start + Math.floor(next() * span));
      placed.push(await placeOrder(lines, at, pick([0, 0, 0.3, 1]), `month-${index}`));
    }
    const refunds: GivenRefund[] = [];
    for (const [index, order] of placed.entries()) {
      if (next() > 0.35) continue;
      const at = new Date(order.at.getTime() + Math.floor(next() * 6 * 86_400_000));
      const status = pick(['succeeded', 'succeeded', 'pending', 'failed'] as const);
      const kind = next();
      if (kind < 0.3) {
        refunds.push({
          orderId: order.id,
          at,
          wallet: order.wallet,
          card: order.card,
          lines: order.lines.map((line, lineId) => ({ lineId, quantity: line.qty })),
          status,
          kind: 'full',
        });
      } else if (kind < 0.55) {
        // By amount (decision 050): no lines, split in proportion to what each part has left.
        const amount = 1 + Math.floor(next() * (order.wallet + order.card - 1));
        const split = splitRefund(amount, { walletCents: order.wallet, cardCents: order.card });
        refunds.push({ orderId: order.id, at, wallet: split.walletCents, card: split.cardCents, lines: [], status, kind: 'amount' });
      } else if (kind < 0.75) {
        // The shipping and its tax only: no lines either.
        const shippingBack = order.shipping + Math.round(order.shipping * 0.0925);
        const split = splitRefund(shippingBack, { walletCents: order.wallet, cardCents: order.card });
        refunds.push({ orderId: order.id, at, wallet: split.walletCents, card: split.cardCents, lines: [], status, shipping: shippingBack, kind: 'shipping' });
      } else {
        const line = order.lines[0]!;
        const amount = line.variant.unitCents + Math.round(line.variant.unitCents * 0.0925);
        const split = splitRefund(amount, { walletCents: order.wallet, cardCents: order.card });
        if (split.walletCents + split.cardCents === 0) continue;
        refunds.push({ orderId: order.id, at, wallet: split.walletCents, card: split.cardCents, lines: [{ lineId: 0, quantity: 1 }], status, kind: 'line' });
      }
      await giveRefund(refunds.at(-1)!, `month-${index}`);
    }
    // A refund given in the card provider's dashboard: its amount is the order's card part beyond the desk's.
    const dashboard = placed.find((order) => order.card > 2000 && !refunds.some((refund) => refund.orderId === order.id))!;
    const dashboardAt = new Date('2026-11-20T16:00:00Z');
    await testApp.db.update(orders).set({ refundedCardCents: 1500, refundStatus: 'partially_refunded' }).where(eq(orders.id, dashboard.id));
    await testApp.db.insert(orderEvents).values({ orderId: dashboard.id, kind: 'provider-refund', detail: { refundedCents: 1500 }, createdAt: dashboardAt });

    const overview: SalesOverview = await admin.call('getSalesOverview', { from: '2026-11-01', to: '2026-11-30' });

    const inMonth = (at: Date) => dayIn(at).startsWith('2026-11-');
    const expected = new Map<string, SalesFigures>();
    const cell = (day: string) => {
      const figures = expected.get(day) ?? (Object.fromEntries(SALES_FIGURES.map(([key]) => [key, 0])) as SalesFigures);
      expected.set(day, figures);
      return figures;
    };
    for (const order of placed.filter((candidate) => inMonth(candidate.at))) {
      const figures = cell(dayIn(order.at));
      figures.orders += 1;
      figures.grossSalesCents += order.subtotal;
      figures.netSalesCents += order.subtotal;
      figures.shippingCents += order.shipping;
      figures.taxCollectedCents += order.tax;
      figures.cardFeesCents += order.wallet + order.card - order.subtotal - order.shipping - order.tax;
      figures.totalCollectedCents += order.wallet + order.card;
      figures.paidWalletCents += order.wallet;
      figures.paidCardCents += order.card;
      figures.netReceiptsCents += order.wallet + order.card;
    }
    const given = [
      ...refunds.filter((refund) => refund.status !== 'failed'),
      { orderId: dashboard.id, at: dashboardAt, wallet: 0, card: 1500, lines: [], status: 'succeeded' as const, kind: 'amount' as const },
    ];
    for (const refund of given.filter((candidate) => inMonth(candidate.at))) {
      const figures = cell(dayIn(refund.at));
      figures.refundsCents += refund.wallet + refund.card;
      figures.refundedWalletCents += refund.wallet;
      figures.refundedCardCents += refund.card;
      figures.netReceiptsCents -= refund.wallet + refund.card;
      const order = placed.find((candidate) => candidate.id === refund.orderId)!;
      const parts = refundPartsOf(order, refund);
      figures.returnsCents += parts.goods;
      figures.netSalesCents -= parts.goods;
      figures.refundedTaxCents += parts.tax;
      figures.refundedShippingCents += parts.shipping;
      figures.refundedCardFeesCents += parts.fee;
    }

    expect(overview.from).toBe('2026-11-01');
    expect(overview.byDay.map((day) => day.day)).toEqual(Array.from({ length: 30 }, (_, index) => `2026-11-${String(index + 1).padStart(2, '0')}`));
    for (const day of overview.byDay) expect({ day: day.day, ...cell(day.day) }, day.day).toEqual(day);
    const totals = [...expected.values()].reduce((sum, figures) => {
      for (const key of Object.keys(sum) as (keyof SalesFigures)[]) sum[key] += figures[key];
      return sum;
    }, cell('total'));
    expect(overview.totals).toEqual(totals);
    // The generated month has both kinds of day in it, refunds of orders from October, and every kind of refund.
    expect(totals.refundsCents).toBeGreaterThan(0);
    const counted = given.filter((refund) => inMonth(refund.at));
    expect(counted.some((refund) => refund.lines.length === 0 && !('shipping' in refund && refund.shipping))).toBe(true);
    expect(counted.some((refund) => 'shipping' in refund && refund.shipping)).toBe(true);
    expect(counted.some((refund) => refund.lines.length > 0)).toBe(true);
    expect(placed.some((order) => !inMonth(order.at))).toBe(true);

    // By variant and by product: goods of the month's orders, and the lines refunded in the month.
    const goods = new Map<string, { unitsSold: number; grossSalesCents: number; unitsRefunded: number; refundedGoodsCents: number }>();
    const goodsOf = (variantId: string) =>
      goods.get(variantId) ?? goods.set(variantId, { unitsSold: 0, grossSalesCents: 0, unitsRefunded: 0, refundedGoodsCents: 0 }).get(variantId)!;
    for (const order of placed.filter((candidate) => inMonth(candidate.at))) {
      for (const line of order.lines) {
        goodsOf(line.variant.variantId).unitsSold += line.qty;
        goodsOf(line.variant.variantId).grossSalesCents += line.qty * line.variant.unitCents;
      }
    }
    for (const refund of refunds.filter((candidate) => candidate.status !== 'failed' && inMonth(candidate.at))) {
      const order = placed.find((candidate) => candidate.id === refund.orderId)!;
      for (const { lineId, quantity } of refund.lines) {
        const line = order.lines[lineId]!;
        goodsOf(line.variant.variantId).unitsRefunded += quantity;
        goodsOf(line.variant.variantId).refundedGoodsCents += quantity * line.variant.unitCents;
      }
    }
    const monthVariants = overview.byVariant;
    expect(monthVariants.map((row) => row.variantId).sort()).toEqual([...goods.keys()].sort());
    for (const row of monthVariants) {
      const variant = catalogue.find((candidate) => candidate.variantId === row.variantId)!;
      expect(row, variant.label).toEqual({
        productId: variant.productId,
        variantId: variant.variantId,
        name: variant.name,
        variant: variant.label,
        ...goods.get(variant.variantId),
      });
    }
    for (const product of overview.byProduct) {
      const rows = monthVariants.filter((row) => row.productId === product.productId);
      expect(product.unitsSold).toBe(rows.reduce((sum, row) => sum + row.unitsSold, 0));
      expect(product.grossSalesCents).toBe(rows.reduce((sum, row) => sum + row.grossSalesCents, 0));
      expect(product.unitsRefunded).toBe(rows.reduce((sum, row) => sum + row.unitsRefunded, 0));
      expect(product.refundedGoodsCents).toBe(rows.reduce((sum, row) => sum + row.refundedGoodsCents, 0));
    }
    // The goods of the products are the gross sales (no VAT-inclusive orders nor gift cards here).
    expect(overview.byProduct.reduce((sum, row) => sum + row.grossSalesCents, 0)).toBe(totals.grossSalesCents);

    // The CSV holds the same cells.
    const csv = salesCsv(overview).split('\r\n');
    expect(csv).toContain(
      `total,${totals.orders},${SALES_FIGURES.slice(1)
        .map(([key]) => (totals[key] / 100).toFixed(2))
        .join(',')}`,
    );
    expect(csv.filter((line) => line.startsWith('2026-11-'))).toHaveLength(30);
  });

  it('counts a gift card as a liability until its credit is spent, VAT inside prices as tax, a discount and a line refund, each figure to the cent (issue 39)', async () => {
    const at = new Date('2026-06-20T16:00:00Z');
    const later = (minutes: number) => new Date(at.getTime() + minutes * 60_000);
    const holderId = await testApp.account('holder');
    const cardOf = (amount: number) => (amount === 0 ? 0 : Math.ceil((amount + 30) / 0.971));
    const order = async (
      key: string,
      fields: Partial<Parameters<typeof insertOrder>[1]> & Pick<Parameters<typeof insertOrder>[1], 'items' | 'subtotalCents'>,
      userId = buyerId,
    ) => {
      const { id } = await runTransaction(testApp.db, (tx) =>
        insertOrder(tx, {
          userId,
          checkoutId: `sales-${key}`,
          paymentIntentId: `pi_sales_${key}`,
          shippingCents: 0,
          taxCents: 0,
          walletAppliedCents: 0,
          chargedCents: 0,
          contact: { name: 'Buyer', email: 'buyer@example.org', phone: '' },
          shipping: { name: 'Buyer' },
          ...fields,
        }),
      );
      await testApp.db.update(orders).set({ createdAt: at }).where(eq(orders.id, id));
      return id;
    };

    // Two $50 gift cards sold by card: one redeemed into the holder's wallet, one not.
    const giftCard = { subtotal: 10_000, card: cardOf(10_000) };
    const giftOrderId = await order('gift-cards', {
      items: [{ id: 'gift-card-product', variantId: 'gift-card-50', name: 'Gift card - $50.00', qty: 2, unitCents: 5000, digital: true, paidCents: 10_000, taxCents: 0 }],
      subtotalCents: giftCard.subtotal,
      chargedCents: giftCard.card,
    });
    const card = {
      checkoutId: 'sales-gift-cards',
      orderId: giftOrderId,
      buyerId,
      productId: 'gift-card-product',
      variantId: 'gift-card-50',
      amountCents: 5000,
      recipientEmail: 'holder@example.org',
      activatedAt: at,
    };
    await testApp.db.insert(giftCards).values([
      { ...card, id: 'sales-card-1', status: 'redeemed', redeemedBy: holderId, redeemedAt: later(10) },
      { ...card, id: 'sales-card-2', status: 'active' },
    ]);
    // The holder had $10.00 granted before redeeming the card, then spends $45.86 of the wallet on an LP.
    await runTransaction(testApp.db, (tx) => credit(tx, holderId, 1000, 'sales-operator-grant', 'grant', 'granted by an operator'));
    await runTransaction(testApp.db, (tx) => credit(tx, holderId, 5000, 'gift-card:sales-card-1', 'grant', 'Gift card redeemed'));
    const spent = { subtotal: 3199, shipping: 999, tax: Math.round((3199 + 999) * 0.0925) };
    const spentTotal = spent.subtotal + spent.shipping + spent.tax;
    const spentOrderId = await order(
      'gift-spent',
      {
        items: [{ id: record.productId, variantId: record.variantId, name: 'Debut LP', qty: 1, unitCents: 3199 }],
        subtotalCents: spent.subtotal,
        shippingCents: spent.shipping,
        taxCents: spent.tax,
        walletAppliedCents: spentTotal,
      },
      holderId,
    );
    await runTransaction(testApp.db, (tx) => debit(tx, holderId, spentTotal, spentOrderId));
    await testApp.db
      .update(ledgerEntries)
      .set({ createdAt: later(20) })
      .where(eq(ledgerEntries.userId, holderId));

    // Germany: 19% VAT inside the prices of two LPs and the shipping.
    const vat = { subtotal: 6398, shipping: 999, included: Math.round(((6398 + 999) * 1900) / 11_900) };
    const vatCard = cardOf(vat.subtotal + vat.shipping);
    await order('vat-included', {
      items: [{ id: record.productId, variantId: record.variantId, name: 'Debut LP', qty: 2, unitCents: 3199, paidCents: 6398, taxCents: 0 }],
      subtotalCents: vat.subtotal,
      shippingCents: vat.shipping,
      taxJurisdiction: 'Germany',
      taxIncludedCents: vat.included,
      shippingTaxCents: 0,
      chargedCents: vatCard,
    });
    // The VAT inside the shipping is its share of the included VAT (shipping over goods + shipping).
    const vatOnShipping = Math.round((vat.included * vat.shipping) / (vat.subtotal + vat.shipping));

    // Two tees with $5.00 off, 9.25% added, and a refund of one tee and its tax by card.
    const [tee2] = [tee[1]!];
    const discounted = { subtotal: 5000, discount: 500, shipping: 999, lineTax: Math.round(4500 * 0.0925), shippingTax: Math.round(999 * 0.0925) };
    const discountedTotal = discounted.subtotal - discounted.discount + discounted.shipping + discounted.lineTax + discounted.shippingTax;
    const discountedCard = cardOf(discountedTotal);
    const discountedId = await order('discounted', {
      items: [{ id: tee2.productId, variantId: tee2.variantId, name: 'Tour Tee 2026 - M', qty: 2, unitCents: 2500, paidCents: 4500, taxCents: discounted.lineTax }],
      subtotalCents: discounted.subtotal,
      discountCents: discounted.discount,
      discountCode: 'SPRING',
      shippingCents: discounted.shipping,
      shippingTaxCents: discounted.shippingTax,
      taxCents: discounted.lineTax + discounted.shippingTax,
      chargedCents: discountedCard,
    });
    const returned = { goods: 2250, tax: Math.round(discounted.lineTax / 2) };
    await giveRefund(
      { orderId: discountedId, at: later(60), wallet: 0, card: returned.goods + returned.tax, lines: [{ lineId: 0, quantity: 1 }], status: 'succeeded', kind: 'line' },
      'issue-39-line',
    );

    const overview = await admin.call('getSalesOverview', { from: '2026-06-20', to: '2026-06-20' });
    const gross = spent.subtotal + (vat.subtotal - (vat.included - vatOnShipping)) + discounted.subtotal;
    const fees = giftCard.card - giftCard.subtotal + (vatCard - vat.subtotal - vat.shipping) + (discountedCard - discountedTotal);
    const collected = giftCard.card + spentTotal + vatCard + discountedCard;
    expect(overview.totals).toEqual({
      orders: 4,
      grossSalesCents: gross,
      discountsCents: 500,
      returnsCents: 2250,
      netSalesCents: gross - 500 - 2250,
      shippingCents: spent.shipping + (vat.shipping - vatOnShipping) + discounted.shipping,
      taxCollectedCents: spent.tax + vat.included + discounted.lineTax + discounted.shippingTax,
      taxIncludedCents: vat.included,
      cardFeesCents: fees,
      giftCardsSoldCents: 10_000,
      totalCollectedCents: collected,
      paidWalletCents: spentTotal,
      paidCardCents: giftCard.card + vatCard + discountedCard,
      refundsCents: returned.goods + returned.tax,
      refundedWalletCents: 0,
      refundedCardCents: returned.goods + returned.tax,
      refundedShippingCents: 0,
      refundedTaxCents: returned.tax,
      refundedCardFeesCents: 0,
      refundedGiftCardsCents: 0,
      netReceiptsCents: collected - returned.goods - returned.tax,
    });
    // Total collected is every figure it is made of.
    const t = overview.totals;
    expect(t.grossSalesCents - t.discountsCents + t.shippingCents + t.taxCollectedCents + t.cardFeesCents + t.giftCardsSoldCents).toBe(t.totalCollectedCents);
    // The card sold is not revenue: no product row, no digital goods; its redeemed credit, spent first, leaves $4.14 owed in the wallet.
    expect(overview.byProduct.map((row) => row.productId)).not.toContain('gift-card-product');
    expect(overview.byKind?.find((row) => row.kind === 'digital')).toMatchObject({ unitsSold: 0, grossSalesCents: 0 });
    expect(overview.giftCards).toEqual({
      soldCount: 2,
      soldCents: 10_000,
      redeemedCents: 5000,
      voidedCents: 0,
      spentCents: spentTotal,
      outstandingCents: 5000,
      walletCreditCents: 5000 - spentTotal,
      liabilityCents: 5000 + 5000 - spentTotal,
    });
    expect(overview.byTaxJurisdiction).toEqual([
      { jurisdiction: '', orders: 3, taxCents: spent.tax + discounted.lineTax + discounted.shippingTax, taxIncludedCents: 0 },
      { jurisdiction: 'Germany', orders: 1, taxCents: 0, taxIncludedCents: vat.included },
    ]);
    const csv = salesCsv(overview).split('\r\n');
    expect(csv).toContain(`Sales tax,3,${((spent.tax + discounted.lineTax + discounted.shippingTax) / 100).toFixed(2)},0.00`);
    expect(csv).toContain(`2,100.00,50.00,0.00,${(spentTotal / 100).toFixed(2)},50.00,${((5000 - spentTotal) / 100).toFixed(2)},${((10_000 - spentTotal) / 100).toFixed(2)}`);
  });

  it('ties out a random week of gift cards sold, redeemed and spent, VAT-inclusive and discounted orders and refunds, each total to the cent (issue 39)', async () => {
    const next = random(3939);
    const holderId = await testApp.account('random-holder');
    const base = await admin.call('getSalesOverview', { from: '2026-08-02', to: '2026-08-02' });
    const [lp, shirt] = [record, tee[2]!];
    const cardOf = (amount: number) => (amount === 0 ? 0 : Math.ceil((amount + 30) / 0.971));
    const stamp = async (userId: string, reference: string, at: Date) =>
      testApp.db
        .update(ledgerEntries)
        .set({ createdAt: at })
        .where(and(eq(ledgerEntries.userId, userId), eq(ledgerEntries.reference, reference)));
    const expected = Object.fromEntries(SALES_FIGURES.map(([key]) => [key, 0])) as SalesFigures;
    const cards = { sold: 0, count: 0, redeemed: 0, unredeemed: 0 };
    // The holder's wallet by the rule of decision 053 as amended: gift-card credit is spent first.
    const holder = { gift: 0, other: 0, spent: 0, spentBy: new Map<string, number>() };
    for (let index = 0; index < 60; index += 1) {
      const at = new Date(Date.parse('2026-08-03T13:00:00Z') + index * 2.5 * 3_600_000);
      const key = `week-${index}`;
      if (next() < 0.25) {
        // Gift cards by card; each redeemed by the holder at once or kept.
        const amounts = Array.from({ length: 1 + Math.floor(next() * 2) }, () => (next() < 0.5 ? 2500 : 5000));
        const subtotal = amounts.reduce((a, b) => a + b, 0);
        const card = cardOf(subtotal);
        const { id } = await runTransaction(testApp.db, (tx) =>
          insertOrder(tx, {
            userId: buyerId,
            checkoutId: `sales-${key}`,
            paymentIntentId: `pi_sales_${key}`,
            items: amounts.map((amount, position) => ({
              id: 'gift-card-product',
              variantId: `gift-card-${amount}-${position}`,
              name: 'Gift card',
              qty: 1,
              unitCents: amount,
              digital: true,
            })),
            subtotalCents: subtotal,
            shippingCents: 0,
            taxCents: 0,
            walletAppliedCents: 0,
            chargedCents: card,
            contact: { name: 'Buyer', email: 'buyer@example.org', phone: '' },
            shipping: { name: 'Buyer' },
          }),
        );
        await testApp.db.update(orders).set({ createdAt: at }).where(eq(orders.id, id));
        for (const [position, amount] of amounts.entries()) {
          const cardId = `${key}-card-${position}`;
          const redeemed = next() < 0.6;
          await testApp.db.insert(giftCards).values({
            id: cardId,
            status: redeemed ? 'redeemed' : 'active',
            checkoutId: `sales-${key}`,
            orderId: id,
            buyerId,
            productId: 'gift-card-product',
            variantId: `gift-card-${amount}-${position}`,
            amountCents: amount,
            recipientEmail: 'holder@example.org',
            activatedAt: at,
            ...(redeemed ? { redeemedBy: holderId, redeemedAt: new Date(at.getTime() + 60_000) } : {}),
          });
          if (redeemed) {
            await runTransaction(testApp.db, (tx) => credit(tx, holderId, amount, `gift-card:${cardId}`, 'grant', 'Gift card redeemed'));
            await stamp(holderId, `gift-card:${cardId}`, new Date(at.getTime() + 60_000));
            holder.gift += amount;
            cards.redeemed += amount;
          } else cards.unredeemed += amount;
        }
        cards.sold += subtotal;
        cards.count += amounts.length;
        Object.assign(expected, {
          orders: expected.orders + 1,
          giftCardsSoldCents: expected.giftCardsSoldCents + subtotal,
          cardFeesCents: expected.cardFeesCents + card - subtotal,
          totalCollectedCents: expected.totalCollectedCents + card,
          paidCardCents: expected.paidCardCents + card,
        });
        continue;
      }
      // Goods: an LP shipped to Germany (19% VAT inside the prices) or a shirt in the US (9.25% added), some with 10% off.
      const vat = next() < 0.4;
      const variant = vat ? lp : shirt;
      const qty = 1 + Math.floor(next() * 3);
      const subtotal = qty * variant.unitCents;
      const discount = next() < 0.3 ? Math.floor(subtotal / 10) : 0;
      const shipping = 999;
      const paidGoods = subtotal - discount;
      const included = vat ? Math.round(((paidGoods + shipping) * 1900) / 11_900) : 0;
      const lineTax = vat ? 0 : Math.round(paidGoods * 0.0925);
      const shippingTax = vat ? 0 : Math.round(shipping * 0.0925);
      const total = paidGoods + shipping + lineTax + shippingTax;
      const byHolder = holder.gift + holder.other >= total && next() < 0.7;
      const wallet = byHolder ? total : Math.floor(total * (next() < 0.5 ? 0 : 0.4));
      const card = byHolder ? 0 : cardOf(total - wallet);
      const userId = byHolder ? holderId : buyerId;
      const { id } = await runTransaction(testApp.db, (tx) =>
        insertOrder(tx, {
          userId,
          checkoutId: `sales-${key}`,
          paymentIntentId: `pi_sales_${key}`,
          items: [{ id: variant.productId, variantId: variant.variantId, name: variant.name, qty, unitCents: variant.unitCents, paidCents: paidGoods, taxCents: lineTax }],
          subtotalCents: subtotal,
          discountCents: discount,
          discountCode: discount ? 'TENOFF' : null,
          shippingCents: shipping,
          shippingTaxCents: shippingTax,
          taxCents: lineTax + shippingTax,
          taxJurisdiction: vat ? 'Germany' : '',
          taxIncludedCents: included,
          walletAppliedCents: wallet,
          chargedCents: card,
          contact: { name: 'Buyer', email: 'buyer@example.org', phone: '' },
          shipping: { name: 'Buyer' },
        }),
      );
      await testApp.db.update(orders).set({ createdAt: at }).where(eq(orders.id, id));
      if (byHolder) {
        await runTransaction(testApp.db, (tx) => debit(tx, holderId, total, id));
        await stamp(holderId, id, at);
        const fromGift = Math.min(holder.gift, total);
        holder.gift -= fromGift;
        holder.other -= total - fromGift;
        holder.spent += fromGift;
        holder.spentBy.set(id, fromGift);
      }
      // The VAT inside the shipping is its share of the order's included VAT; the rest is inside the goods.
      const vatOnShipping = Math.round((included * shipping) / (paidGoods + shipping));
      const vatInGoods = included - vatOnShipping;
      const fee = card === 0 ? 0 : card - (total - wallet);
      Object.assign(expected, {
        orders: expected.orders + 1,
        grossSalesCents: expected.grossSalesCents + subtotal - vatInGoods,
        discountsCents: expected.discountsCents + discount,
        shippingCents: expected.shippingCents + shipping - vatOnShipping,
        taxCollectedCents: expected.taxCollectedCents + lineTax + shippingTax + included,
        taxIncludedCents: expected.taxIncludedCents + included,
        cardFeesCents: expected.cardFeesCents + fee,
        totalCollectedCents: expected.totalCollectedCents + wallet + card,
        paidWalletCents: expected.paidWalletCents + wallet,
        paidCardCents: expected.paidCardCents + card,
      });
      const refund = next();
      if (refund < 0.35) {
        // Everything back: each part of the order.
        const back = { goods: paidGoods - vatInGoods, tax: lineTax + shippingTax + included, shipping: shipping - vatOnShipping, fee };
        await giveRefund(
          { orderId: id, at: new Date(at.getTime() + 3_600_000), wallet, card, lines: [{ lineId: 0, quantity: qty }], status: 'succeeded', kind: 'full' },
          `${key}-full`,
        );
        Object.assign(expected, {
          returnsCents: expected.returnsCents + back.goods,
          refundedTaxCents: expected.refundedTaxCents + back.tax,
          refundedShippingCents: expected.refundedShippingCents + back.shipping,
          refundedCardFeesCents: expected.refundedCardFeesCents + back.fee,
          refundsCents: expected.refundsCents + wallet + card,
          refundedWalletCents: expected.refundedWalletCents + wallet,
          refundedCardCents: expected.refundedCardCents + card,
        });
        if (byHolder) {
          await runTransaction(testApp.db, (tx) => credit(tx, holderId, wallet, `refund:rf_${key}-full`, 'refund', `refund of order ${id}`));
          await stamp(holderId, `refund:rf_${key}-full`, new Date(at.getTime() + 3_600_000));
          const toGift = Math.min(holder.spentBy.get(id) ?? 0, wallet);
          holder.gift += toGift;
          holder.other += wallet - toGift;
          holder.spent -= toGift;
        }
      } else if (refund < 0.6 && qty > 1 && !byHolder) {
        // One unit: its share of what the line paid and of its tax (the VAT inside it in the order's proportion).
        const unitPaid = Math.round(paidGoods / qty);
        const unitTax = Math.round(lineTax / qty);
        const unitVat = Math.floor((unitPaid * vatInGoods) / paidGoods);
        const amount = unitPaid + unitTax;
        const split = splitRefund(amount, { walletCents: wallet, cardCents: card });
        await giveRefund(
          {
            orderId: id,
            at: new Date(at.getTime() + 3_600_000),
            wallet: split.walletCents,
            card: split.cardCents,
            lines: [{ lineId: 0, quantity: 1 }],
            status: 'succeeded',
            kind: 'line',
          },
          `${key}-line`,
        );
        Object.assign(expected, {
          returnsCents: expected.returnsCents + unitPaid - unitVat,
          refundedTaxCents: expected.refundedTaxCents + unitTax + unitVat,
          refundsCents: expected.refundsCents + amount,
          refundedWalletCents: expected.refundedWalletCents + split.walletCents,
          refundedCardCents: expected.refundedCardCents + split.cardCents,
        });
      }
    }
    expected.netSalesCents = expected.grossSalesCents - expected.discountsCents - expected.returnsCents;
    expected.netReceiptsCents = expected.totalCollectedCents - expected.refundsCents;

    const overview = await admin.call('getSalesOverview', { from: '2026-08-03', to: '2026-08-09' });
    expect(overview.totals).toEqual(expected);
    // The week has every kind of order and refund in it.
    expect([expected.giftCardsSoldCents, expected.taxIncludedCents, expected.discountsCents, expected.returnsCents, holder.spent].every((cents) => cents > 0)).toBe(true);
    expect(overview.giftCards).toEqual({
      soldCount: cards.count,
      soldCents: cards.sold,
      redeemedCents: cards.redeemed,
      voidedCents: 0,
      spentCents: holder.spent,
      outstandingCents: base.giftCards!.outstandingCents + cards.unredeemed,
      walletCreditCents: base.giftCards!.walletCreditCents + holder.gift,
      liabilityCents: base.giftCards!.liabilityCents + cards.unredeemed + holder.gift,
    });
  });

  it('refuses a period that is not 1 to 366 days or not real dates', async () => {
    expect((await errorOf(admin.call('getSalesOverview', { from: '2026-11-30', to: '2026-11-01' }))).message).toBe(SALES_MESSAGES.period);
    expect((await errorOf(admin.call('getSalesOverview', { from: '2025-01-01', to: '2026-11-01' }))).message).toBe(SALES_MESSAGES.period);
    expect((await errorOf(admin.call('getSalesOverview', { from: '2026-02-30', to: '2026-03-01' }))).message).toBe(SALES_MESSAGES.period);
    expect((await errorOf(admin.call('getSalesOverview', { days: 0 }))).message).toBe(SALES_MESSAGES.period);
    expect((await admin.call('getSalesOverview', { days: 7 })).byDay).toHaveLength(7);
  });
});
