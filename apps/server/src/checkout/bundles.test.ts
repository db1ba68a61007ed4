import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_MESSAGES } from '@storefront/domain/bundles.ts';
import { createTestDatabase, testConfig, type TestDatabase } from '../../test/database.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import { salesOverview } from '../admin/sales.service.ts';
import { listBundles, saveBundle } from '../catalog/bundles.service.ts';
import { editProduct, getProduct, releaseProduct } from '../catalog/catalog.service.ts';
import { orderItems, orders, products, productVariants } from '../db/schema/index.ts';
import { startJobQueue, type JobQueue } from '../jobs/queue.ts';
import { listOrdersOf } from '../orders/order-views.service.ts';
import { createLocalProvider } from '../payments/local.provider.ts';
import { grantCredits } from '../wallet/wallet.commands.ts';
import { getBalance } from '../wallet/wallet.service.ts';
import { liveHeldUnits } from './checkouts.service.ts';
import { cancelCheckout, completeWalletOnlyOrder, createPaymentLink, quoteCheckout, type CheckoutDeps } from './checkout.flow.ts';
import { applyPaymentEvent, expireCheckout } from './payment.flow.ts';
import { checkInvariant } from './reconcile.flow.ts';

/**
 * Bundles (issue 27, decision 055): a bundle takes every counted part in one step with the
 * stock code's conditional updates, so bundles and single items raced for the last units never
 * oversell, held counts never go negative, and every paid checkout ends in one order or one refund.
 */
let database: TestDatabase;
let jobs: JobQueue;
let deps: CheckoutDeps;
const buyers: string[] = [];
const admin = { operator: 'cli' } as const;
const contact = { name: 'Fan', email: 'fan@example.org', phone: '' };
const shipping = { name: 'Fan', line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };
const image = ['/content/covers/cover-01.svg'];

type Item = { id: string; variantId?: string; qty: number };
let serial = 0;

/** An LP (one variant), a tee in S and M, and a bundle of the LP and the tee in the size the buyer picks. */
async function bundleOf(lpStock: number | null, teeStock: { S: number | null; M: number | null }, teePerBundle = 1) {
  serial += 1;
  const lp = await releaseProduct(database.db, {
    name: `Debut LP ${serial}`,
    description: 'LP',
    priceCents: 2500,
    images: image,
    variants: [{ options: [], sku: '', priceCents: null, stock: lpStock }],
  });
  const tee = await releaseProduct(database.db, {
    name: `Logo Tee ${serial}`,
    description: 'Tee',
    priceCents: 2000,
    images: image,
    options: [{ name: 'Size', values: ['S', 'M'] }],
    variants: [
      { options: ['S'], sku: '', priceCents: null, stock: teeStock.S },
      { options: ['M'], sku: '', priceCents: null, stock: teeStock.M },
    ],
  });
  const bundle = await releaseProduct(database.db, { name: `Summer Bundle ${serial}`, description: 'LP and tee', priceCents: 4000, images: image });
  const teeProduct = await getProduct(database.db, tee, { includeInactive: true });
  await saveBundle(database.db, admin, {
    productId: bundle,
    components: [
      { productId: lp, variantId: lp, qty: 1 },
      { productId: tee, variantId: null, qty: teePerBundle },
    ],
  });
  const shown = await getProduct(database.db, bundle, { includeInactive: false });
  const bundleVariant = (size: 'S' | 'M') => shown.variants.find((variant) => variant.options[0] === size)!.id;
  const teeVariant = (size: 'S' | 'M') => teeProduct.variants.find((variant) => variant.options[0] === size)!.id;
  return {
    lp,
    tee,
    bundle,
    teeVariant,
    bundleVariant,
    bundleItems: (size: 'S' | 'M', qty = 1): Item[] => [{ id: bundle, variantId: bundleVariant(size), qty }],
    teeItems: (size: 'S' | 'M', qty = 1): Item[] => [{ id: tee, variantId: teeVariant(size), qty }],
    lpItems: (qty = 1): Item[] => [{ id: lp, qty }],
  };
}

const variantRow = async (id: string) => (await database.db.select().from(productVariants).where(eq(productVariants.id, id)))[0]!;

async function walletOrder(userId: string, items: Item[], checkoutId: string) {
  const reviewed = await quoteCheckout(database.db, userId, items, true);
  return completeWalletOnlyOrder(deps, userId, { items, contact, shipping, quote: reviewed, checkoutId });
}
const cardCheckout = (userId: string, items: Item[], checkoutId: string) => createPaymentLink(deps, userId, { items, useWallet: true, contact, shipping, checkoutId });
const paid = (checkoutId: string, eventId: string) =>
  applyPaymentEvent(deps, { eventId, type: 'succeeded', checkoutId, sessionId: null, paymentIntentId: `pi_${checkoutId}`, amountCents: null });

/** Units the orders took of a variant: its own lines, and the parts of bundle lines. */
async function orderedUnits(variantId: string): Promise<number> {
  const rows = await database.db.execute<{ n: number }>(sql`
    SELECT coalesce(sum(n), 0)::int AS n FROM (
      SELECT qty AS n FROM order_item WHERE variant_id = ${variantId} AND components IS NULL
      UNION ALL
      SELECT qty * (part->>'qty')::int FROM order_item, jsonb_array_elements(components) part WHERE components IS NOT NULL AND part->>'variantId' = ${variantId}) AS units`);
  return rows.rows[0]!.n;
}

/** stock + held + sold is what was received, held is what the open checkouts hold, sold is what the orders took. */
async function expectInvariant(variantId: string, received: number) {
  const row = await variantRow(variantId);
  expect(row.stock).toBeGreaterThanOrEqual(0);
  expect(row.held).toBeGreaterThanOrEqual(0);
  expect(row.stock! + row.held + row.sold).toBe(received);
  expect(row.held).toBe((await liveHeldUnits(database.db, variantId)).get(variantId) ?? 0);
  expect(row.sold).toBe(await orderedUnits(variantId));
}

beforeAll(async () => {
  database = await createTestDatabase({ max: 40 });
  const config = testConfig({ env: {} });
  for (let i = 0; i < 24; i += 1) {
    const email = `bundle${i}@example.org`;
    const account = await createAccount(
      database.db,
      config,
      { email, username: `Bundle${i}`, name: `Bundle ${i}`, password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true },
      { emailVerified: true },
    );
    buyers.push(account.userId);
    // Even buyers pay with their wallet; odd ones have 10 dollars (a card checkout with a wallet part).
    await grantCredits(database.db, email, i % 2 === 0 ? '500' : '10', `bundle-grant-${i}`);
  }
  jobs = await startJobQueue(database.db.$client, () => undefined);
  deps = { db: database.db, jobs, provider: createLocalProvider('bundle-test-secret'), publicUrl: 'http://127.0.0.1:9' };
}, 240_000);

afterAll(async () => {
  await jobs?.stop();
  await database?.close();
});

describe('a bundle as the shop shows it', () => {
  it('has one option per picked component, includes its fixed parts, and shows what its parts allow', async () => {
    const b = await bundleOf(3, { S: 5, M: 1 });
    const product = await getProduct(database.db, b.bundle, { includeInactive: false });
    expect(product.options).toEqual([{ name: `Logo Tee ${serial}`, values: ['S', 'M'] }]);
    expect(product.includes).toEqual([`Debut LP ${serial}`, `Logo Tee ${serial}`]);
    expect(product.variants.map((variant) => [variant.options, variant.stock, variant.priceCents])).toEqual([
      [['S'], 3, 4000],
      [['M'], 1, 4000],
    ]);
    const listed = await listBundles(database.db);
    expect(listed.bundles.find((bundle) => bundle.productId === b.bundle)?.components).toEqual([
      { productId: b.lp, variantId: b.lp, qty: 1, name: `Debut LP ${serial}` },
      { productId: b.tee, variantId: null, qty: 1, name: `Logo Tee ${serial}` },
    ]);
  });

  it('is sold out when a needed part is, and when a part is withdrawn', async () => {
    const b = await bundleOf(2, { S: 0, M: null });
    let product = await getProduct(database.db, b.bundle, { includeInactive: false });
    expect(product.variants.map((variant) => variant.stock)).toEqual([0, 2]);
    await database.db.update(productVariants).set({ stock: 0 }).where(eq(productVariants.id, b.lp));
    product = await getProduct(database.db, b.bundle, { includeInactive: false });
    expect(product.variants.map((variant) => variant.stock)).toEqual([0, 0]);
    const unlimited = await bundleOf(null, { S: null, M: null });
    expect((await getProduct(database.db, unlimited.bundle, { includeInactive: false })).variants.map((variant) => variant.stock)).toEqual([null, null]);
    await database.db.update(products).set({ isActive: false }).where(eq(products.id, unlimited.lp));
    expect((await getProduct(database.db, unlimited.bundle, { includeInactive: false })).variants.map((variant) => variant.stock)).toEqual([0, 0]);
    await expect(quoteCheckout(database.db, buyers[0]!, unlimited.bundleItems('S'), true)).rejects.toThrow(`"Summer Bundle ${serial} - S" is sold out.`);
  });
});

describe('buying a bundle', () => {
  it('by wallet takes every part in one order that lists them; the reconciler finds nothing', async () => {
    const b = await bundleOf(4, { S: 4, M: 4 }, 2);
    const quote = await quoteCheckout(database.db, buyers[0]!, b.bundleItems('M'), true);
    expect(quote.subtotalCents).toBe(4000);
    expect(quote.lines[0]!.components).toEqual([
      { productId: b.lp, variantId: b.lp, name: `Debut LP ${serial}`, qty: 1 },
      { productId: b.tee, variantId: b.teeVariant('M'), name: `Logo Tee ${serial} - M`, qty: 2 },
    ]);
    const order = await walletOrder(buyers[0]!, b.bundleItems('M'), `bundle-wallet-${serial}`);
    expect(await variantRow(b.lp)).toMatchObject({ stock: 3, sold: 1 });
    expect(await variantRow(b.teeVariant('M'))).toMatchObject({ stock: 2, sold: 2 });
    const mine = await listOrdersOf(database.db, buyers[0]!, { limit: 50 });
    const line = mine.items.find((candidate) => candidate.id === order.orderId)!.items[0]!;
    expect(line).toMatchObject({ id: b.bundle, name: `Summer Bundle ${serial} - M`, qty: 1, unitCents: 4000 });
    expect(line.components?.map((part) => [part.name, part.qty])).toEqual([
      [`Debut LP ${serial}`, 1],
      [`Logo Tee ${serial} - M`, 2],
    ]);
    await expectInvariant(b.lp, 4);
    await expectInvariant(b.teeVariant('M'), 4);
    expect(await checkInvariant(deps)).toBe(0);
    // The receipt lists the parts; the sales overview counts the parts the bundle sent out.
    const receipt = await database.db.execute<{ data: { text: string } }>(sql`SELECT data FROM pgboss.job WHERE name = 'send-email' AND data::text LIKE ${`%${order.orderId}%`}`);
    expect(JSON.stringify(receipt.rows.map((row) => row.data))).toContain(`(includes: Debut LP ${serial}, 2 × Logo Tee ${serial} - M)`);
    const overview = await salesOverview(database.db, 'UTC', { days: 1 });
    expect(overview.byBundlePart?.filter((row) => row.bundleId === b.bundle)).toEqual([
      { bundleId: b.bundle, bundle: `Summer Bundle ${serial}`, variantId: b.lp, part: `Debut LP ${serial}`, units: 1 },
      { bundleId: b.bundle, bundle: `Summer Bundle ${serial}`, variantId: b.teeVariant('M'), part: `Logo Tee ${serial} - M`, units: 2 },
    ]);
  });

  it('by card holds every part; a cancel gives them back, a payment sells them', async () => {
    const b = await bundleOf(2, { S: 2, M: 2 });
    const first = await cardCheckout(buyers[1]!, b.bundleItems('S'), `bundle-card-a-${serial}`);
    expect(await variantRow(b.lp)).toMatchObject({ stock: 1, held: 1 });
    expect(await variantRow(b.teeVariant('S'))).toMatchObject({ stock: 1, held: 1 });
    expect(await cancelCheckout(deps, buyers[1]!, first.checkoutId)).toBe(true);
    expect(await variantRow(b.lp)).toMatchObject({ stock: 2, held: 0 });
    expect(await variantRow(b.teeVariant('S'))).toMatchObject({ stock: 2, held: 0 });
    const second = await cardCheckout(buyers[1]!, b.bundleItems('S'), `bundle-card-b-${serial}`);
    expect(await paid(second.checkoutId, `evt-bundle-${serial}`)).toBe('applied');
    expect(await variantRow(b.lp)).toMatchObject({ stock: 1, held: 0, sold: 1 });
    expect(await variantRow(b.teeVariant('S'))).toMatchObject({ stock: 1, held: 0, sold: 1 });
    const [order] = await database.db.select().from(orders).where(eq(orders.checkoutId, second.checkoutId));
    const [item] = await database.db.select().from(orderItems).where(eq(orderItems.orderId, order!.id));
    expect(item!.components?.map((part) => part.variantId)).toEqual([b.lp, b.teeVariant('S')]);
    await expectInvariant(b.lp, 2);
    await expectInvariant(b.teeVariant('S'), 2);
    expect(await checkInvariant(deps)).toBe(0);
  });

  it('a hold that expires gives every part back', async () => {
    const b = await bundleOf(1, { S: 1, M: 1 });
    const link = await cardCheckout(buyers[3]!, b.bundleItems('M'), `bundle-expire-${serial}`);
    expect(await expireCheckout(deps, link.checkoutId, new Date(Date.now() + 3_600_000))).toBe('expired');
    expect(await variantRow(b.lp)).toMatchObject({ stock: 1, held: 0, sold: 0 });
    expect(await variantRow(b.teeVariant('M'))).toMatchObject({ stock: 1, held: 0, sold: 0 });
  });

  it('is refused, named, when a part ran out, and a cart cannot oversell itself through a bundle and the part alone', async () => {
    const b = await bundleOf(5, { S: 1, M: 3 });
    await expect(walletOrder(buyers[0]!, [...b.bundleItems('S'), ...b.teeItems('S')], `bundle-self-${serial}`)).rejects.toThrow(
      `Only 1 of "Summer Bundle ${serial} - S" is left. Reduce the quantity to continue. Only 1 of "Logo Tee ${serial} - S" is left. Reduce the quantity to continue.`,
    );
    await expect(quoteCheckout(database.db, buyers[0]!, b.bundleItems('M', 4), true)).rejects.toThrow(
      `Only 3 of "Summer Bundle ${serial} - M" are left. Reduce the quantity to continue.`,
    );
    expect(await variantRow(b.teeVariant('S'))).toMatchObject({ stock: 1, held: 0, sold: 0 });
    // The part sold out: the bundle line is named as sold out.
    await walletOrder(buyers[2]!, b.teeItems('S'), `bundle-tee-${serial}`);
    await expect(walletOrder(buyers[0]!, b.bundleItems('S'), `bundle-after-${serial}`)).rejects.toThrow(
      `"Summer Bundle ${serial} - S" is sold out. Remove it from your cart to continue.`,
    );
  });
});

describe('a part’s per-customer limit (issue 40 item 6)', () => {
  it('counts the part however it is bought: in a bundle, alone, bought or held, by wallet and by card', async () => {
    const b = await bundleOf(10, { S: 10, M: 10 });
    // The limit is set on the part after the bundle was saved (the console refuses only the other order).
    await database.db.update(productVariants).set({ perCustomerLimit: 1 }).where(eq(productVariants.id, b.lp));
    const lp = `Debut LP ${serial}`;
    await expect(walletOrder(buyers[4]!, b.bundleItems('S', 2), `limit-two-${serial}`)).rejects.toThrow(
      `"${lp}" is limited to 1 per customer: you can buy 1 more. Reduce the quantity to continue.`,
    );
    await expect(walletOrder(buyers[4]!, [...b.bundleItems('S'), ...b.lpItems()], `limit-both-${serial}`)).rejects.toThrow(`"${lp}" is limited to 1 per customer`);
    await walletOrder(buyers[4]!, b.bundleItems('M'), `limit-one-${serial}`);
    await expect(walletOrder(buyers[4]!, b.lpItems(), `limit-alone-${serial}`)).rejects.toThrow(
      `"${lp}" is limited to 1 per customer and you already have 1. Remove it from your cart to continue.`,
    );
    await expect(walletOrder(buyers[4]!, b.bundleItems('S'), `limit-again-${serial}`)).rejects.toThrow(`you already have 1`);
    // By card: a bundle of two is refused; an open checkout's bundle counts against the part alone.
    await expect(cardCheckout(buyers[5]!, b.bundleItems('S', 2), `limit-card-two-${serial}`)).rejects.toThrow(`"${lp}" is limited to 1 per customer`);
    const open = await createPaymentLink(deps, buyers[6]!, { items: b.bundleItems('S'), useWallet: false, contact, shipping, checkoutId: `limit-card-one-${serial}` });
    await expect(walletOrder(buyers[6]!, b.lpItems(), `limit-card-alone-${serial}`)).rejects.toThrow(`you already have 1`);
    expect(await cancelCheckout(deps, buyers[6]!, open.checkoutId)).toBe(true);
    expect(await orderedUnits(b.lp)).toBe(1);
    await expectInvariant(b.lp, 10);
  });
});

describe('the console’s rules', () => {
  it('refuses a bundle in a bundle, a limited part, a digital bundle part and the removal of a part', async () => {
    const b = await bundleOf(5, { S: 5, M: 5 });
    const other = await releaseProduct(database.db, { name: 'Other Bundle', description: 'x', priceCents: 100, images: image });
    await expect(
      saveBundle(database.db, admin, {
        productId: other,
        components: [
          { productId: b.bundle, variantId: null, qty: 1 },
          { productId: b.lp, variantId: b.lp, qty: 1 },
        ],
      }),
    ).rejects.toThrow(BUNDLE_MESSAGES.componentIsBundle);
    await expect(saveBundle(database.db, admin, { productId: b.lp, components: [{ productId: b.tee, variantId: null, qty: 2 }] })).rejects.toThrow(
      BUNDLE_MESSAGES.componentIsBundle,
    );
    const limited = await releaseProduct(database.db, {
      name: 'Limited',
      description: 'x',
      priceCents: 100,
      images: image,
      variants: [{ options: [], sku: '', priceCents: null, stock: 5, perCustomerLimit: 1 }],
    });
    await expect(saveBundle(database.db, admin, { productId: other, components: [{ productId: limited, variantId: limited, qty: 2 }] })).rejects.toThrow(
      BUNDLE_MESSAGES.componentLimited,
    );
    await expect(saveBundle(database.db, admin, { productId: other, components: [{ productId: b.lp, variantId: b.lp, qty: 1 }] })).rejects.toThrow(BUNDLE_MESSAGES.noComponents);
    await expect(saveBundle(database.db, admin, { productId: other, components: [{ productId: b.lp, variantId: b.tee, qty: 2 }] })).rejects.toThrow(
      BUNDLE_MESSAGES.variantOfOtherProduct,
    );
    // The tee's M cannot go while a bundle takes it.
    await expect(
      editProduct(database.db, {
        id: b.tee,
        name: 'Tee',
        description: 'Tee',
        priceCents: 2000,
        images: image,
        options: [{ name: 'Size', values: ['S'] }],
        variants: [{ options: ['S'], sku: '', priceCents: null, stock: 5 }],
      }),
    ).rejects.toThrow(BUNDLE_MESSAGES.componentInBundle);
    // A product edit of the bundle keeps its variants: stock cannot be given to a bundle there.
    await editProduct(database.db, {
      id: b.bundle,
      name: 'Renamed',
      description: 'd',
      priceCents: 4100,
      images: image,
      options: [],
      variants: [{ options: [], sku: '', priceCents: null, stock: 1 }],
    });
    const product = await getProduct(database.db, b.bundle, { includeInactive: false });
    expect(product.variants.map((variant) => variant.options)).toEqual([['S'], ['M']]);
  });
});

describe('bundles and single parts raced for the last units', () => {
  it('never oversell, by wallet and by card; every paid checkout ends in one order or one refund; the reconciler finds nothing', async () => {
    const b = await bundleOf(3, { S: 10, M: 2 });
    // 24 buyers at once: bundles in M (LP + tee M), the LP alone and the tee M alone; even ones by wallet, odd ones by card.
    const carts = buyers.map((_, i) => (i % 3 === 0 ? b.bundleItems('M') : i % 3 === 1 ? b.lpItems() : b.teeItems('M')));
    const results = await Promise.allSettled(
      buyers.map((userId, i) =>
        i % 2 === 0
          ? walletOrder(userId, carts[i]!, `race-${serial}-${i}`)
          : cardCheckout(userId, carts[i]!, `race-${serial}-${i}`).then((link) => ({ checkoutId: link.checkoutId })),
      ),
    );
    for (const result of results) {
      if (result.status === 'rejected') expect(String(result.reason)).toMatch(/is sold out|are left|is left/);
    }
    const lp = await variantRow(b.lp);
    const teeM = await variantRow(b.teeVariant('M'));
    expect(lp.stock! + lp.held + lp.sold).toBe(3);
    expect(teeM.stock! + teeM.held + teeM.sold).toBe(2);
    expect(lp.stock).toBeGreaterThanOrEqual(0);
    expect(teeM.stock).toBeGreaterThanOrEqual(0);
    // Something was sold: the race had winners.
    expect(lp.held + lp.sold + teeM.held + teeM.sold).toBeGreaterThan(0);
    // Every card checkout is paid, all at once: each ends in one order.
    const links = results.flatMap((result) => (result.status === 'fulfilled' && 'checkoutId' in result.value ? [result.value.checkoutId as string] : []));
    const outcomes = await Promise.all(links.map((checkoutId) => paid(checkoutId, `evt-${checkoutId}`)));
    expect(outcomes.every((outcome) => outcome === 'applied')).toBe(true);
    for (const checkoutId of links) expect(await database.db.select().from(orders).where(eq(orders.checkoutId, checkoutId))).toHaveLength(1);
    await expectInvariant(b.lp, 3);
    await expectInvariant(b.teeVariant('M'), 2);
    expect(await variantRow(b.lp)).toMatchObject({ held: 0 });
    expect(await variantRow(b.teeVariant('M'))).toMatchObject({ held: 0 });
    // The shop now shows the bundle in M sold out when the tee M or the LP is.
    const product = await getProduct(database.db, b.bundle, { includeInactive: false });
    const left = Math.min((await variantRow(b.lp)).stock!, (await variantRow(b.teeVariant('M'))).stock!);
    expect(product.variants.find((variant) => variant.options[0] === 'M')!.stock).toBe(left);
    expect(await checkInvariant(deps)).toBe(0);
    // No wallet is left holding credit.
    for (const userId of buyers) expect((await getBalance(database.db, userId)).heldCents).toBe(0);
  }, 120_000);

  it('cards racing bundles for the last unit while holds expire: held never negative, no oversell', async () => {
    const b = await bundleOf(1, { S: 1, M: 1 });
    const odd = buyers.filter((_, i) => i % 2 === 1);
    const results = await Promise.allSettled(odd.map((userId, i) => cardCheckout(userId, i % 2 === 0 ? b.bundleItems('S') : b.lpItems(), `race2-${serial}-${i}`)));
    const winners = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value.checkoutId] : []));
    expect(winners).toHaveLength(1);
    // The winner's hold expires while its payment arrives: one of them decides, the other finds it ended.
    const [expired, payment] = await Promise.all([expireCheckout(deps, winners[0]!, new Date(Date.now() + 3_600_000)), paid(winners[0]!, `evt-race2-${serial}`)]);
    expect(['expired', 'closed']).toContain(expired);
    expect(payment).toBe('applied');
    const ordersMade = await database.db.select().from(orders).where(eq(orders.checkoutId, winners[0]!));
    const refunds = await database.db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM payment_refund WHERE checkout_id = ${winners[0]!}`);
    // One order, or (paid after its units came back and were taken) one refund: never both, never neither.
    expect(ordersMade.length + refunds.rows[0]!.n).toBe(1);
    await expectInvariant(b.lp, 1);
    await expectInvariant(b.teeVariant('S'), 1);
  }, 60_000);
});
