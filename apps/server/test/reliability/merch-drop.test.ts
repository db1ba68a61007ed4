import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckoutDeps } from '../../src/checkout/checkout.flow.ts';
import { applyPaymentEvent, expireCheckout } from '../../src/checkout/payment.flow.ts';
import { checkInvariant } from '../../src/checkout/reconcile.flow.ts';
import { getProduct, releaseProduct } from '../../src/catalog/catalog.service.ts';
import { connectDatabase, type Database } from '../../src/db/client.ts';
import { freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.ts';
import { sqlState } from '../../src/db/errors.ts';
import { runMigrations } from '../../src/db/migrate.ts';
import { startJobQueue, type JobQueue } from '../../src/jobs/queue.ts';
import { createLocalProvider } from '../../src/payments/local.provider.ts';
import { startSmtpPeer } from '../smtp.ts';
import { newTestDataDir } from '../temp-data-dirs.ts';
import { random, seedShop, signInAll, type Shopper } from './money-load.ts';
import { poll, spawnServer, stopAllServers, waitUntilReady, type ServerProcess } from './processes.ts';

/**
 * Merch drops (issue 15 point 5, issue 23): ROUNDS drops of 5 units of one variant each,
 * BUYERS concurrent buyers per round over two server processes: half place wallet-only orders
 * (some sent twice, to both processes), half open card checkouts whose payment events come
 * duplicated, reordered (the expiry before the payment: a late payment) or only as an expiry,
 * and, during the drop, holds that reach their deadline (the release job's step, run from a
 * third process) and buyers who cancel their open payment (racing its payment). After every
 * round: every unit is accounted for (stock + held + sold = 5, nothing held, never negative),
 * every completed payment ended in exactly one order or one refund, every late payment whose
 * stock was gone was refunded once and told by email, and the reconciler finds nothing.
 * Then the hoarding test: one account cannot hold more than one checkout nor more than the
 * variant's limit, and a hold ends within its minutes (CHECKOUT_HOLD_MINUTES=1).
 */
const ROUNDS = Number(process.env.MERCH_ROUNDS ?? 20);
const BUYERS = Number(process.env.MERCH_BUYERS ?? 40);
const UNITS = 5;
const AUTH_SECRET = 'merch-secret-'.repeat(4);
const dataDir = newTestDataDir('merch');
let cluster: EmbeddedDatabase;
let database: Database;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
let servers: ServerProcess[];
let shoppers: Shopper[];
let jobs: JobQueue;
let events: CheckoutDeps;

beforeAll(async () => {
  cluster = await startEmbeddedPostgres({ dataDir, ephemeral: true });
  // Room for every buyer's payment events at once (the job queue also borrows from it).
  database = connectDatabase(cluster.connectionString, { max: 120 });
  await runMigrations(database.pool);
  const seeded = await seedShop(database.db, BUYERS, 15);
  // Card buyers (odd) have less credit than the tee costs: their checkouts go to the card.
  await database.pool.query(`UPDATE wallet SET balance_cents = 500 FROM "user" u WHERE u.id = wallet.user_id AND (substring(u.email from 'shopper(\\d+)@')::int % 2) = 1`);
  // Wallet buyers (even) can buy in every round.
  await database.pool.query(`UPDATE wallet SET balance_cents = 100000 FROM "user" u WHERE u.id = wallet.user_id AND (substring(u.email from 'shopper(\\d+)@')::int % 2) = 0`);
  await database.pool.query(`DELETE FROM ledger_entry WHERE reference LIKE 'seed-grant-%'`);
  await database.pool.query(
    `INSERT INTO ledger_entry (user_id, kind, available_delta_cents, reference) SELECT user_id, 'grant', balance_cents, 'seed-grant-' || user_id FROM wallet`,
  );
  smtp = await startSmtpPeer();
  const ports = [await freePort(), await freePort()];
  const publicUrl = `http://127.0.0.1:${ports[0]}`;
  const settings = {
    NODE_ENV: 'production',
    PAYMENT_PROVIDER: 'local',
    ALLOW_TEST_PAYMENTS: '1',
    DATABASE_URL: cluster.connectionString,
    PUBLIC_URL: publicUrl,
    AUTH_SECRET,
    SMTP_URL: smtp.url,
    TRUSTED_PROXIES: '127.0.0.1',
    // The hoarding test waits for a hold to end by itself: the shortest hold.
    CHECKOUT_HOLD_MINUTES: '1',
  };
  servers = await Promise.all(ports.map((port) => spawnServer(settings, port)));
  await Promise.all(servers.map(waitUntilReady));
  shoppers = await signInAll(servers[0]!.base, publicUrl, seeded.emails);
  // The payment provider's events, delivered from a third process (as Stripe's are, to any server).
  jobs = await startJobQueue(database.pool, () => undefined);
  events = { db: database.db, jobs, provider: createLocalProvider(AUTH_SECRET), publicUrl };
}, 600_000);

afterAll(async () => {
  await jobs?.stop();
  await stopAllServers();
  await smtp?.close();
  await database?.close();
  await cluster?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}, 120_000);

const contact = (s: Shopper) => ({ name: 'Fan', email: s.email, phone: '' });
const shipping = { name: 'Fan', line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };

async function call(base: string, shopper: Shopper, name: string, data: unknown) {
  const response = await fetch(`${base}/fn/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${shopper.token}` },
    body: JSON.stringify({ data }),
    signal: AbortSignal.timeout(120_000),
  });
  return { status: response.status, body: (await response.json()) as { data?: Record<string, unknown>; error?: { message: string } } };
}

/** A provider re-delivers an event its webhook did not acknowledge (here: a conflict that ran out of retries). */
async function deliver(event: Parameters<typeof applyPaymentEvent>[1]) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await applyPaymentEvent(events, event);
    } catch (error) {
      if (attempt >= 20 || !/conflicted/.test(String(error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}
const succeeded = (checkoutId: string, eventId: string) =>
  deliver({ eventId, type: 'succeeded', checkoutId, sessionId: null, paymentIntentId: `pi_${checkoutId}`, amountCents: null });
const expired = (checkoutId: string, eventId: string) => deliver({ eventId, type: 'expired', checkoutId, sessionId: null, paymentIntentId: null, amountCents: null });

async function newDrop(round: number) {
  const id = await releaseProduct(database.db, {
    name: `Drop Tee ${round}`,
    description: 'The drop',
    priceCents: 2500,
    images: ['/content/covers/cover-01.svg'],
    options: [{ name: 'Size', values: ['M', 'L'] }],
    variants: [
      { options: ['M'], sku: `DROP-${round}-M`, priceCents: null, stock: 100 },
      { options: ['L'], sku: `DROP-${round}-L`, priceCents: null, stock: UNITS },
    ],
  });
  return { productId: id, variantId: (await getProduct(database.db, id, { includeInactive: false })).variants.find((v) => v.options[0] === 'L')!.id };
}

/** One round of the drop; returns the refusals the buyers saw. */
async function dropRound(round: number, drop: { productId: string; variantId: string }, refusals: Map<string, number>, crashed: string[]) {
  const rng = random(27 + round);
  const refuse = (message: string) => refusals.set(message, (refusals.get(message) ?? 0) + 1);
  const items = [{ id: drop.productId, variantId: drop.variantId, qty: 1 }];
  let cardsLeft = Math.floor(BUYERS / 2);
  let cardsDone = () => {};
  const cardsAnswered = new Promise<void>((resolve) => (cardsDone = resolve));
  const buyer = async (shopper: Shopper, index: number) => {
    const base = servers[index % 2]!.base;
    const other = servers[(index + 1) % 2]!.base;
    const roll = rng.next();
    const delay = rng.int(400);
    if (index % 2 === 0) {
      // Wallet buyers arrive once the card checkouts have taken their holds (and some end).
      await cardsAnswered;
      await new Promise((resolve) => setTimeout(resolve, delay));
      const quoted = await call(base, shopper, 'quoteCheckout', { items, useWallet: true });
      if (quoted.status !== 200) return void refuse(quoted.body.error!.message);
      const order = { items, contact: contact(shopper), shipping, quote: quoted.body.data, checkoutId: `drop-${round}-${index}-wallet` };
      // A double click lands on both processes at once.
      const answers = await Promise.all(
        roll < 0.3
          ? [call(base, shopper, 'completeWalletOnlyOrderStreetFlavor', order), call(other, shopper, 'completeWalletOnlyOrderStreetFlavor', order)]
          : [call(base, shopper, 'completeWalletOnlyOrderStreetFlavor', order)],
      );
      for (const answer of answers) if (answer.status !== 200) refuse(answer.body.error!.message);
      return;
    }
    const link = await call(base, shopper, 'createPaymentLinkStreetFlavorMerch', {
      items,
      useWallet: true,
      contact: contact(shopper),
      shipping,
      checkoutId: `drop-${round}-${index}-card`,
    }).finally(() => {
      cardsLeft -= 1;
      if (cardsLeft === 0) cardsDone();
    });
    if (link.status !== 200) return void refuse(link.body.error!.message);
    const checkoutId = link.body.data!.checkoutId as string;
    await new Promise((resolve) => setTimeout(resolve, rng.int(200)));
    const tag = `${round}-${index}`;
    if (roll < 0.3) {
      // Paid: the event delivered twice, at once.
      await Promise.all([succeeded(checkoutId, `evt-${tag}-paid`), succeeded(checkoutId, `evt-${tag}-paid`)]);
    } else if (roll < 0.5) {
      // Reordered: the expiry first (the hold is released), then the payment: a late payment.
      await expired(checkoutId, `evt-${tag}-expired`);
      await new Promise((resolve) => setTimeout(resolve, 100 + rng.int(500)));
      await Promise.all([succeeded(checkoutId, `evt-${tag}-late`), succeeded(checkoutId, `evt-${tag}-late-again`)]);
    } else if (roll < 0.65) {
      // Never paid: only the expiry (twice).
      await Promise.all([expired(checkoutId, `evt-${tag}-gone`), expired(checkoutId, `evt-${tag}-gone`)]);
    } else if (roll < 0.82) {
      // The buyer cancels their open payment on the other process, racing its payment.
      const [cancelled] = await Promise.all([call(other, shopper, 'cancelOpenPayment', { checkoutId }), succeeded(checkoutId, `evt-${tag}-raced`)]);
      if (cancelled.status !== 200) crashed.push(`${tag}: cancel answered ${cancelled.status}`);
    } else {
      // The hold reaches its deadline (the release job, from a third process) as the payment arrives.
      await database.pool.query(`UPDATE checkout SET expires_at = now() - interval '1 second' WHERE id = $1`, [checkoutId]);
      await Promise.all([deliverExpiry(checkoutId), succeeded(checkoutId, `evt-${tag}-deadline`)]);
    }
  };
  const described = (error: unknown) => `${String(error)}${error instanceof Error && error.cause ? ` [cause ${sqlState(error) ?? ''}: ${String(error.cause)}]` : ''}`;
  await Promise.all(shoppers.map((shopper, index) => buyer(shopper, index).catch((error: unknown) => void crashed.push(`${round}/${index}: ${described(error)}`))));
}

/** The release job's step at the deadline, retried as pg-boss retries a job that failed on a conflict. */
async function deliverExpiry(checkoutId: string) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await expireCheckout(events, checkoutId);
    } catch (error) {
      if (attempt >= 20 || !/conflicted/.test(String(error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}

/** Every unit of the round's variant accounted for, and every payment with its one outcome. */
async function roundProblems(drop: { variantId: string }): Promise<string[]> {
  const pool = database.pool;
  const problems: string[] = [];
  const variant = (await pool.query<{ stock: number; held: number; sold: number }>('SELECT stock, held, sold FROM product_variant WHERE id = $1', [drop.variantId])).rows[0]!;
  const units = (await pool.query<{ units: number }>('SELECT coalesce(sum(qty), 0)::int AS units FROM order_item WHERE variant_id = $1', [drop.variantId])).rows[0]!.units;
  if (variant.stock + variant.held + variant.sold !== UNITS) problems.push(`stock ${variant.stock} + held ${variant.held} + sold ${variant.sold} is not ${UNITS}`);
  if (variant.held !== 0) problems.push(`${variant.held} units still held`);
  if (variant.sold !== units) problems.push(`sold ${variant.sold} but orders bought ${units}`);
  const pending = (await pool.query(`SELECT id FROM checkout WHERE status = 'pending'`)).rows;
  if (pending.length > 0) problems.push(`${pending.length} checkouts still pending`);
  const heldCredit = (await pool.query<{ held: string }>('SELECT coalesce(sum(held_cents), 0)::text AS held FROM wallet')).rows[0]!.held;
  if (heldCredit !== '0') problems.push(`${heldCredit} cents of wallet credit still held`);
  const drift = await pool.query(`SELECT w.user_id FROM wallet w LEFT JOIN ledger_entry l ON l.user_id = w.user_id GROUP BY w.user_id, w.balance_cents, w.held_cents
    HAVING coalesce(sum(l.available_delta_cents), 0) <> w.balance_cents OR coalesce(sum(l.held_delta_cents), 0) <> w.held_cents`);
  if (drift.rows.length > 0) problems.push(`ledger and balances disagree for ${drift.rows.length} wallets`);
  // Every completed payment: exactly one order or one refund, never both, never neither.
  const outcomes = await pool.query<{ id: string; status: string; orders: number; refunds: number }>(`
    SELECT c.id, c.status, (SELECT count(*)::int FROM "order" o WHERE o.checkout_id = c.id) AS orders,
      (SELECT count(*)::int FROM payment_refund r WHERE r.checkout_id = c.id) AS refunds
    FROM checkout c WHERE c.id IN (SELECT split_part(event_id, ':', 2) FROM processed_event WHERE type = 'succeeded' AND event_id LIKE 'reconcile:%')
      OR c.status IN ('paid', 'refunded')`);
  for (const row of outcomes.rows) {
    const expected = row.status === 'paid' ? [1, 0] : row.status === 'refunded' ? [0, 1] : [0, 0];
    if (row.orders !== expected[0] || row.refunds !== expected[1]) problems.push(`checkout ${row.id} (${row.status}): ${row.orders} orders, ${row.refunds} refunds`);
  }
  return problems;
}

describe('drops of 5 units', () => {
  it(`${ROUNDS} rounds of ${BUYERS} concurrent buyers over two processes: every unit and every payment accounted for`, async () => {
    const refusals = new Map<string, number>();
    const crashed: string[] = [];
    let negative = false;
    const started = Date.now();
    let sold = 0;
    for (let round = 1; round <= ROUNDS; round += 1) {
      const drop = await newDrop(round);
      const sampler = setInterval(() => {
        void database.pool
          .query<{ stock: number }>('SELECT stock FROM product_variant WHERE id = $1', [drop.variantId])
          .then(({ rows }) => void (rows[0]!.stock < 0 && (negative = true)))
          .catch(() => undefined);
      }, 20);
      await dropRound(round, drop, refusals, crashed);
      clearInterval(sampler);
      if (crashed.length > 0) {
        console.log(crashed.join('\n'));
        console.log(
          JSON.stringify(
            (await database.pool.query(`SELECT id, status, items, created_at, settled_at FROM checkout WHERE id LIKE $1 ORDER BY created_at`, [`%drop-${round}-%`])).rows,
          ),
        );
        console.log(JSON.stringify((await database.pool.query(`SELECT id, stock, held, sold FROM product_variant WHERE id = $1`, [drop.variantId])).rows));
      }
      expect(crashed).toEqual([]);
      expect({ round, problems: await roundProblems(drop) }).toEqual({ round, problems: [] });
      sold += (await database.pool.query<{ sold: number }>('SELECT sold FROM product_variant WHERE id = $1', [drop.variantId])).rows[0]!.sold;
    }
    expect(negative).toBe(false);
    // The reconciler, run as the minute's job would, finds nothing to heal.
    expect(await checkInvariant(events)).toBe(0);
    const pool = database.pool;
    const statuses = await pool.query<{ status: string; n: number }>(`SELECT status, count(*)::int AS n FROM checkout GROUP BY status ORDER BY status`);
    const refunded = await pool.query<{ id: string }>(`SELECT id FROM checkout WHERE status = 'refunded'`);
    console.log(
      `merch drops: ${ROUNDS} rounds of ${BUYERS} buyers in ${((Date.now() - started) / 1000).toFixed(1)} s; ${sold} units sold of ${ROUNDS * UNITS}; checkouts ${JSON.stringify(statuses.rows)}; ${refunded.rows.length} payments refunded; refusals ${JSON.stringify(Object.fromEntries(refusals))}`,
    );
    expect(sold).toBeGreaterThan(0);
    // Every payment that ended without an order: refunded once, by the provider, with one email.
    await poll(
      'refunds sent',
      async () => ((await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM payment_refund WHERE provider_refund_id IS NULL`)).rows[0]!.n === 0 ? true : undefined),
      { timeoutMs: 120_000 },
    );
    // One email per refunded payment: a buyer refunded in two rounds gets two, so count them all.
    const lateMails = () => smtp.mails.filter((mail) => /Your payment arrived after your checkout had expired/.test(mail.decoded));
    await poll('one email per refunded payment', async () => (lateMails().length >= refunded.rows.length ? true : undefined), { timeoutMs: 120_000 });
    for (const { id } of refunded.rows) {
      const email = (await pool.query<{ email: string }>('SELECT u.email FROM checkout c JOIN "user" u ON u.id = c.user_id WHERE c.id = $1', [id])).rows[0]!.email;
      await smtp.waitForText(email, 'Your payment arrived after your checkout had expired', 60_000);
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(lateMails()).toHaveLength(refunded.rows.length);
    // The buyers told "no" were told in a sentence naming the line.
    expect([...refusals.keys()].every((message) => /Drop Tee \d+ - L|already|still starting/.test(message))).toBe(true);
  }, 1_500_000);

  it('one account cannot hoard: one open checkout, the limit per customer, and a hold that ends within its minutes', async () => {
    const limited = await releaseProduct(database.db, {
      name: 'Hoard Tee',
      description: 'Limited',
      priceCents: 2500,
      images: ['/content/covers/cover-01.svg'],
      variants: [{ options: [], sku: 'HOARD', priceCents: null, stock: 10, perCustomerLimit: 2 }],
    });
    const hoarder = shoppers[0]!;
    const items = (qty: number) => [{ id: limited, variantId: limited, qty }];
    // 25 payment links at once, over both processes.
    const links = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        call(servers[i % 2]!.base, hoarder, 'createPaymentLinkStreetFlavorMerch', {
          items: items(1),
          useWallet: false,
          contact: contact(hoarder),
          shipping,
          checkoutId: `hoarding-${i}`,
        }),
      ),
    );
    expect(links.filter((link) => link.status === 200).length).toBeGreaterThan(0);
    const open = await database.pool.query<{ id: string; expires_at: Date; created_at: Date }>(
      `SELECT c.id, c.expires_at, c.created_at FROM checkout c JOIN "user" u ON u.id = c.user_id WHERE u.email = $1 AND c.status = 'pending'`,
      [hoarder.email],
    );
    expect(open.rows).toHaveLength(1);
    const variant = async () => (await database.pool.query<{ stock: number; held: number }>('SELECT stock, held FROM product_variant WHERE id = $1', [limited])).rows[0]!;
    expect(await variant()).toEqual({ stock: 9, held: 1 });
    // More than the limit is refused, in a sentence.
    const tooMany = await call(servers[1]!.base, hoarder, 'createPaymentLinkStreetFlavorMerch', {
      items: items(3),
      useWallet: false,
      contact: contact(hoarder),
      shipping,
      checkoutId: 'hoarding-three',
    });
    expect(tooMany.body.error?.message).toBe('"Hoard Tee" is limited to 2 per customer: you can buy 2 more. Reduce the quantity to continue.');
    // The hold (CHECKOUT_HOLD_MINUTES=1) ends by itself within its minute (and a little for the job to run).
    expect(open.rows[0]!.expires_at.getTime() - open.rows[0]!.created_at.getTime()).toBeLessThanOrEqual(61_000);
    await poll(
      'the hold ended',
      async () =>
        (await database.pool.query<{ status: string }>('SELECT status FROM checkout WHERE id = $1', [open.rows[0]!.id])).rows[0]!.status === 'expired' ? true : undefined,
      { timeoutMs: 100_000 },
    );
    expect(await variant()).toEqual({ stock: 10, held: 0 });
  }, 300_000);
});
