import { and, eq, sql } from 'drizzle-orm';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREORDER_MESSAGES } from '@storefront/domain/preorders.ts';
import { salesCsv } from '@storefront/domain/sales.ts';
import { connectDatabase } from '../db/client.ts';
import { createTestDatabase, testConfig, type TestDatabase } from '../../test/database.ts';
import { startSmtpPeer } from '../../test/smtp.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import { salesOverview } from '../admin/sales.service.ts';
import { productAvailability } from '../catalog/catalog.pages.ts';
import { editProduct, getProduct, releaseProduct } from '../catalog/catalog.service.ts';
import { completeWalletOnlyOrder, quoteCheckout, type CheckoutDeps } from '../checkout/checkout.flow.ts';
import { orderItems, preorderNotices } from '../db/schema/index.ts';
import { startJobQueue, type JobQueue } from '../jobs/queue.ts';
import { startMailWorker } from '../mail/mail.jobs.ts';
import { createMailer } from '../mail/mailer.ts';
import { listDeskOrders } from '../orders/desk.service.ts';
import { listOrdersOf, shipmentsOf } from '../orders/order-views.service.ts';
import { markOrderFulfilled } from '../orders/shipments.service.ts';
import { shipOrderPart } from '../orders/shipments.service.ts';
import { createLocalProvider } from '../payments/local.provider.ts';
import { grantCredits } from '../wallet/wallet.commands.ts';
import { labelToday, onDatesMoved, releaseDuePreorders, type PreorderDeps } from './preorders.flow.ts';

/**
 * Preorders end to end on the server (issue 27, decision 054): a street date sells the item as a
 * preorder (paid now, stock applies), the lines keep their date, a moved date tells each buyer
 * once, and the release job makes the items ordinary and mails each buyer once, even run by two
 * workers at once, delivered twice and run again after a restart. Mails are read from a real SMTP peer.
 */
let database: TestDatabase;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
const queues: JobQueue[] = [];
const pools: pg.Pool[] = [];
let deps: CheckoutDeps;
const buyers: { userId: string; email: string }[] = [];
const contact = { name: 'Fan', email: 'fan@example.org', phone: '' };
const shipping = { name: 'Fan', line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };

async function worker(): Promise<{ jobs: JobQueue; db: ReturnType<typeof connectDatabase>['db'] }> {
  const { db, pool } = connectDatabase(database.connectionString, { max: 4 });
  pools.push(pool);
  const jobs = await startJobQueue(pool, () => undefined);
  queues.push(jobs);
  await startMailWorker(jobs, createMailer(testConfig({ env: { SMTP_URL: smtp.url } }), db));
  return { jobs, db };
}

let serial = 0;
async function product(options: { releaseDate?: string | null; stock?: number | null; variantDates?: (string | null)[] } = {}) {
  serial += 1;
  const sizes = options.variantDates?.map((_, i) => `S${i}`);
  const id = await releaseProduct(database.db, {
    name: `Pressing ${serial}`,
    description: 'A record',
    priceCents: 2500,
    images: ['/content/covers/cover-01.svg'],
    releaseDate: options.releaseDate ?? null,
    ...(sizes
      ? {
          options: [{ name: 'Size', values: sizes }],
          variants: sizes.map((size, i) => ({ options: [size], sku: '', priceCents: null, stock: options.stock ?? null, releaseDate: options.variantDates![i] ?? null })),
        }
      : { variants: [{ options: [], sku: '', priceCents: null, stock: options.stock ?? null }] }),
  });
  const row = await getProduct(database.db, id, { includeInactive: false });
  return { id, row, items: (qty = 1, variant = 0) => [{ id, variantId: row.variants[variant]!.id, qty }] };
}

type Items = { id: string; variantId?: string; qty: number }[];
async function walletOrder(userId: string, items: Items, checkoutId: string) {
  const reviewed = await quoteCheckout(database.db, userId, items, true);
  return completeWalletOnlyOrder(deps, userId, { items, contact, shipping, quote: reviewed, checkoutId });
}

const mailsTo = (email: string, text: string) => smtp.mails.filter((mail) => mail.to.includes(email) && mail.decoded.includes(text));

/** Every queued mail has been handed to the SMTP peer (or failed): then counting is final. */
async function mailQueueSettled() {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { rows } = await database.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'send-email' AND state < 'completed'");
    if (rows[0]!.n === 0) return;
    if (Date.now() > deadline) throw new Error('mail jobs still queued');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  database = await createTestDatabase({ max: 20 });
  smtp = await startSmtpPeer();
  const config = testConfig({ env: {} });
  for (let i = 0; i < 3; i += 1) {
    const email = `preorderer${i}@example.org`;
    const account = await createAccount(
      database.db,
      config,
      { email, username: `Preorderer${i}`, name: `Preorderer ${i}`, password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true },
      { emailVerified: true },
    );
    buyers.push({ userId: account.userId, email });
    await grantCredits(database.db, email, '500', `preorder-grant-${i}`);
  }
  const first = await worker();
  deps = { db: database.db, jobs: first.jobs, provider: createLocalProvider('preorder-test-secret'), publicUrl: 'http://127.0.0.1:9' };
}, 120_000);

afterAll(async () => {
  for (const queue of queues) await queue.stop().catch(() => undefined);
  for (const pool of pools) await pool.end().catch(() => undefined);
  await smtp?.close();
  await database?.close();
});

describe('selling a preorder', () => {
  it('quotes, orders and mails a mixed cart as one order whose preorder line keeps its street date', async () => {
    const lp = await product({ releaseDate: '2099-03-05' });
    const tee = await product();
    expect(lp.row.releaseDate).toBe('2099-03-05');
    expect(tee.row.releaseDate).toBeUndefined();
    const items = [...lp.items(), ...tee.items()];
    const quoted = await quoteCheckout(database.db, buyers[0]!.userId, items, true);
    // No preorder changes no price: the spec's numbers for two $25 items.
    expect(quoted).toMatchObject({ subtotalCents: 5000, shippingCents: 999, taxCents: 555 });
    expect(quoted.lines.map((line) => line.shipsOn)).toEqual(['2099-03-05', undefined]);
    await walletOrder(buyers[0]!.userId, items, 'pre-mixed-1');
    const { items: mine } = await listOrdersOf(database.db, buyers[0]!.userId, { limit: 5 });
    expect(mine).toHaveLength(1);
    expect(mine[0]!.items.map((line) => line.shipsOn)).toEqual(['2099-03-05', undefined]);
    const receipt = await smtp.waitForText(buyers[0]!.email, 'Preorder - ships Mar 5, 2099');
    expect(receipt.decoded).toContain('This order mixes items in stock and preorders. It is one order, paid now; it ships on Mar 5, 2099');
    // The sales overview and its CSV count the preorder by its street date; the tee is no preorder.
    const overview = await salesOverview(database.db, 'UTC', { days: 1 });
    const row = overview.byPreorder?.find((candidate) => candidate.productId === lp.row.id);
    expect(row).toMatchObject({ shipsOn: '2099-03-05', unitsSold: 1, grossSalesCents: 2500, unitsWaiting: 1 });
    expect(overview.byPreorder?.some((candidate) => candidate.productId === tee.row.id)).toBe(false);
    expect(salesCsv(overview)).toContain(`${lp.row.id},${lp.row.id},${row!.name},2099-03-05,1,25.00,1`);
  });

  it('applies limited stock to a preorder: a pressing of 1 sells 1', async () => {
    const pressing = await product({ releaseDate: '2099-03-06', stock: 1 });
    await walletOrder(buyers[1]!.userId, pressing.items(), 'pre-stock-1');
    await expect(walletOrder(buyers[2]!.userId, pressing.items(), 'pre-stock-2')).rejects.toThrow(/sold out/);
    expect((await getProduct(database.db, pressing.id, { includeInactive: false })).variants[0]!.stock).toBe(0);
  });

  it('tells search engines a preorder is a PreOrder, and sold out wins', async () => {
    expect(productAvailability((await product({ releaseDate: '2099-03-08' })).row)).toBe('PreOrder');
    expect(productAvailability((await product({ releaseDate: '2099-03-08', stock: 0 })).row)).toBe('OutOfStock');
    expect(productAvailability((await product({ variantDates: [null, '2099-03-08'] })).row)).toBe('InStock');
    expect(productAvailability((await product()).row)).toBe('InStock');
  });

  it('a variant’s own street date wins over its product’s', async () => {
    const tee = await product({ releaseDate: '2099-03-07', variantDates: [null, '2099-04-01'] });
    const quoted = await quoteCheckout(database.db, buyers[1]!.userId, [...tee.items(1, 0), ...tee.items(1, 1)], true);
    expect(quoted.lines.map((line) => line.shipsOn)).toEqual(['2099-03-07', '2099-04-01']);
  });

  it('refuses a new street date on or before the label’s today, and keeps an unchanged one', async () => {
    const today = labelToday({ timeZone: 'UTC' });
    const input = { name: 'Late', description: 'x', priceCents: 100, images: ['/content/covers/cover-01.svg'], releaseDate: today };
    await expect(releaseProduct(database.db, input, undefined, undefined, today)).rejects.toThrow(PREORDER_MESSAGES.releaseDateFuture);
    const lp = await product({ releaseDate: '2099-05-01' });
    const edit = { id: lp.id, name: lp.row.name, description: 'x', priceCents: 2500, images: lp.row.images };
    await expect(editProduct(database.db, { ...edit, releaseDate: '2000-01-01' }, undefined, { today })).rejects.toThrow(PREORDER_MESSAGES.releaseDateFuture);
    await editProduct(database.db, { ...edit, releaseDate: '2099-05-01' }, undefined, { today });
    await editProduct(database.db, { ...edit, releaseDate: null }, undefined, { today });
    expect((await getProduct(database.db, lp.id, { includeInactive: false })).releaseDate).toBeUndefined();
  });
});

describe('the order desk', () => {
  it('ships a mixed order in parts, refuses a preorder line before its date unless confirmed, and filters what is ready', async () => {
    const lp = await product({ releaseDate: '2099-02-02' });
    const tee = await product();
    const admin = { userId: buyers[2]!.userId };
    const mail = { jobs: deps.jobs, publicUrl: 'http://127.0.0.1:9' };
    const { orderId } = await walletOrder(buyers[2]!.userId, [...tee.items(), ...lp.items()], 'pre-desk-1');
    const ready = async () => (await listDeskOrders(database.db, { status: 'ready', limit: 100 })).items.map((order) => order.id);
    expect(await ready()).not.toContain(orderId);

    await expect(markOrderFulfilled(database.db, orderId, { mail })).rejects.toThrow(PREORDER_MESSAGES.notYetOut('Feb 2, 2099'));
    await expect(shipOrderPart({ db: database.db, ...mail }, admin, { orderId, lineIds: [1], tracking: null })).rejects.toThrow(PREORDER_MESSAGES.notYetOut('Feb 2, 2099'));
    const first = await shipOrderPart({ db: database.db, ...mail }, admin, { orderId, lineIds: [0], tracking: { carrier: 'UPS', number: '1Z999AA10123456784' } });
    expect(first.orderFulfilled).toBe(false);
    await expect(shipOrderPart({ db: database.db, ...mail }, admin, { orderId, lineIds: [0], tracking: null })).rejects.toThrow(PREORDER_MESSAGES.lineNotInOrder);
    // What is left waits for its date: still not ready; confirmed, Mark Fulfilled ships it early as the last parcel.
    expect(await ready()).not.toContain(orderId);
    await markOrderFulfilled(database.db, orderId, { mail, confirmPreorder: true, tracking: { carrier: 'USPS', number: '9400111899223197428490' } });

    const { items } = await listOrdersOf(database.db, buyers[2]!.userId, { limit: 20 });
    const order = items.find((candidate) => candidate.id === orderId)!;
    expect(order.orderFulfilled).toBe(true);
    expect(order.shipments?.map((shipment) => shipment.trackingNumber)).toEqual(['1Z999AA10123456784', '9400111899223197428490']);
    expect(order.items[0]!.shipmentId).toBe(first.shipmentId);
    expect(order.items[1]!.shipmentId).toBe(order.shipments![1]!.id);
    // Read with the page (issue 38): the same parcels, ids and times as their own query gives.
    expect(order.shipments).toEqual((await shipmentsOf(database.db, [orderId])).get(orderId));
    await smtp.waitForText(buyers[2]!.email, `Part of your order ${orderId} has shipped: 1`);
    await smtp.waitForText(buyers[2]!.email, `Good news: your order ${orderId} has shipped.`);

    // An order whose preorder is out (or that has none) is ready.
    const { orderId: plain } = await walletOrder(buyers[2]!.userId, tee.items(), 'pre-desk-2');
    expect(await ready()).toContain(plain);
  });
});

describe('moving a street date', () => {
  it('moves the buyers’ lines and tells each buyer once, whatever their number of orders', async () => {
    const lp = await product({ releaseDate: '2099-06-01' });
    await walletOrder(buyers[0]!.userId, lp.items(), 'pre-move-1');
    await walletOrder(buyers[0]!.userId, lp.items(), 'pre-move-2');
    await walletOrder(buyers[1]!.userId, lp.items(), 'pre-move-3');
    const preorders: PreorderDeps = { db: database.db, jobs: deps.jobs, publicUrl: 'http://127.0.0.1:9', timeZone: 'UTC', today: () => '2099-01-01' };
    const edit = { id: lp.id, name: lp.row.name, description: 'x', priceCents: 2500, images: lp.row.images, releaseDate: '2099-07-15' };
    const options = { today: '2099-01-01', onDatesMoved: onDatesMoved(preorders) };
    // The same edit twice at once (a double click): one moves the lines, the other finds nothing to move.
    await Promise.all([editProduct(database.db, edit, undefined, options), editProduct(database.db, edit, undefined, options)]);
    await editProduct(database.db, { ...edit, description: 'y' }, undefined, options);
    const lines = await database.db.select({ shipsOn: orderItems.shipsOn }).from(orderItems).where(eq(orderItems.productId, lp.id));
    expect(lines.map((line) => line.shipsOn)).toEqual(['2099-07-15', '2099-07-15', '2099-07-15']);
    await smtp.waitForText(buyers[1]!.email, `The release date of ${lp.row.name} has moved from Jun 1, 2099 to Jul 15, 2099`);
    await mailQueueSettled();
    expect(mailsTo(buyers[0]!.email, `The release date of ${lp.row.name} has moved`)).toHaveLength(1);
    expect(mailsTo(buyers[1]!.email, `The release date of ${lp.row.name} has moved`)).toHaveLength(1);
  });
});

describe('the release job', () => {
  it('makes the items ordinary and mails each buyer once: two workers at once, a duplicate delivery and a restart', async () => {
    const lp = await product({ releaseDate: '2099-09-09' });
    const later = await product({ releaseDate: '2099-09-10' });
    await walletOrder(buyers[0]!.userId, lp.items(), 'pre-rel-1');
    await walletOrder(buyers[0]!.userId, lp.items(2), 'pre-rel-2');
    await walletOrder(buyers[1]!.userId, [...lp.items(), ...later.items()], 'pre-rel-3');
    await walletOrder(buyers[2]!.userId, later.items(), 'pre-rel-4');

    // Two instances, each with its own connections, queue and mail worker.
    const a = await worker();
    const b = await worker();
    const on = (db: typeof a.db, jobs: JobQueue): PreorderDeps => ({ db, jobs, publicUrl: 'http://127.0.0.1:9', timeZone: 'UTC', today: () => '2099-09-09' });
    // Both run the job at the same moment, and one of them gets the same job delivered twice.
    const runs = await Promise.all([releaseDuePreorders(on(a.db, a.jobs)), releaseDuePreorders(on(b.db, b.jobs)), releaseDuePreorders(on(b.db, b.jobs))]);
    // Each buyer of each released item is mailed by exactly one of the three runs (earlier tests' dates are due too).
    const notices = await database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(preorderNotices)
      .where(eq(preorderNotices.kind, 'released'));
    expect(runs.reduce((sum, run) => sum + run.mails, 0)).toBe(notices[0]!.n);
    // A restart: the instance stops and a new one runs the job again on the same day.
    await a.jobs.stop();
    const c = await worker();
    expect(await releaseDuePreorders(on(c.db, c.jobs))).toEqual({ items: 0, mails: 0, released: [] });

    await smtp.waitForText(buyers[0]!.email, `It's out: ${lp.row.name} is released today`);
    await smtp.waitForText(buyers[1]!.email, `It's out: ${lp.row.name} is released today`);
    await mailQueueSettled();
    expect(mailsTo(buyers[0]!.email, `It's out: ${lp.row.name}`)).toHaveLength(1);
    expect(mailsTo(buyers[1]!.email, `It's out: ${lp.row.name}`)).toHaveLength(1);
    expect(mailsTo(buyers[2]!.email, `It's out: ${lp.row.name}`)).toHaveLength(0);
    expect(mailsTo(buyers[1]!.email, `It's out: ${later.row.name}`)).toHaveLength(0);

    // The item is ordinary; the later one is still a preorder, in the shop and in My Orders.
    expect((await getProduct(database.db, lp.id, { includeInactive: false })).releaseDate).toBeUndefined();
    expect((await getProduct(database.db, later.id, { includeInactive: false })).releaseDate).toBe('2099-09-10');
    const { items: orders } = await listOrdersOf(database.db, buyers[1]!.userId, { limit: 20 });
    const mixed = orders.find((order) => order.items.some((line) => line.id === later.id))!;
    expect(mixed.items.map((line) => line.shipsOn)).toEqual([undefined, '2099-09-10']);
    const ofItem = await database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(preorderNotices)
      .where(and(eq(preorderNotices.kind, 'released'), eq(preorderNotices.itemId, lp.row.variants[0]!.id)));
    expect(ofItem[0]!.n).toBe(2);
  }, 120_000);
});
