import fs from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckoutDeps } from '../../src/checkout/checkout.flow.ts';
import { applyPaymentEvent, expireCheckout } from '../../src/checkout/payment.flow.ts';
import { checkInvariant, reconcileCheckouts } from '../../src/checkout/reconcile.flow.ts';
import { getProduct, releaseProduct } from '../../src/catalog/catalog.service.ts';
import { connectDatabase, type Database } from '../../src/db/client.ts';
import { freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.ts';
import { runMigrations } from '../../src/db/migrate.ts';
import { startJobQueue, type JobQueue } from '../../src/jobs/queue.ts';
import { createLocalProvider } from '../../src/payments/local.provider.ts';
import { startSmtpPeer } from '../smtp.ts';
import { newTestDataDir } from '../temp-data-dirs.ts';
import { seedShop, signInAll, type Shopper } from './money-load.ts';
import { spawnServer, stopAllServers, waitUntilReady, type ServerProcess } from './processes.ts';

/**
 * The money path as a model (issue 23): fast-check picks random sequences of a shop's steps
 * across two server processes - start a checkout (card or wallet), open the same link again,
 * change the cart, pay, decline, go back, leave, reach the deadline, reconcile, pay late,
 * refund, kill -9 a process between steps - and bursts of them at once. After every step the
 * invariant holds in the database: every unit is stock, held or sold (held = what the open
 * checkouts hold, sold = what the orders bought), every completed payment ended in exactly
 * one order or one refund, no wallet holds more than its open checkouts, the ledger sums to
 * the balances, and every buyer's money is accounted for by their orders, refunds and grants.
 */
const AUTH_SECRET = 'model-secret-'.repeat(4);
const SHOPPERS = 8;
const RECEIVED = 6;
const RUNS = Number(process.env.MODEL_RUNS ?? 25);
const dataDir = newTestDataDir('model');
let cluster: EmbeddedDatabase;
let database: Database;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
let servers: ServerProcess[];
let settings: Record<string, string>;
let shoppers: Shopper[];
let jobs: JobQueue;
let events: CheckoutDeps;
let productId: string;
let variantId: string;
let eventSerial = 0;
/** Every drop's variant, with the units it received. */
const drops: string[] = [];

async function newDrop() {
  productId = await releaseProduct(database.db, {
    name: `Model Tee ${drops.length + 1}`,
    description: 'The drop',
    priceCents: 2500,
    images: ['/content/covers/cover-01.svg'],
    variants: [{ options: [], sku: `MODEL-${drops.length + 1}`, priceCents: null, stock: RECEIVED }],
  });
  variantId = (await getProduct(database.db, productId, { includeInactive: false })).variants[0]!.id;
  drops.push(variantId);
}

beforeAll(async () => {
  cluster = await startEmbeddedPostgres({ dataDir, ephemeral: true });
  database = connectDatabase(cluster.connectionString, { max: 40 });
  await runMigrations(database.pool);
  const seeded = await seedShop(database.db, SHOPPERS, 23);
  // Odd shoppers have less credit than a tee costs: their checkouts go to the card with a wallet part.
  await database.pool.query(`UPDATE wallet SET balance_cents = 700 FROM "user" u WHERE u.id = wallet.user_id AND (substring(u.email from 'shopper(\\d+)@')::int % 2) = 1`);
  await database.pool.query(`DELETE FROM ledger_entry WHERE reference LIKE 'seed-grant-%'`);
  await database.pool.query(
    `INSERT INTO ledger_entry (user_id, kind, available_delta_cents, reference) SELECT user_id, 'grant', balance_cents, 'seed-grant-' || user_id FROM wallet`,
  );
  smtp = await startSmtpPeer();
  const ports = [await freePort(), await freePort()];
  settings = {
    NODE_ENV: 'production',
    PAYMENT_PROVIDER: 'local',
    ALLOW_TEST_PAYMENTS: '1',
    DATABASE_URL: cluster.connectionString,
    PUBLIC_URL: `http://127.0.0.1:${ports[0]}`,
    AUTH_SECRET,
    SMTP_URL: smtp.url,
    TRUSTED_PROXIES: '127.0.0.1',
    ADMIN_EMAILS: 'shopper0@example.org',
  };
  servers = await Promise.all(ports.map((port) => spawnServer(settings, port)));
  await Promise.all(servers.map(waitUntilReady));
  shoppers = await signInAll(servers[0]!.base, settings.PUBLIC_URL!, seeded.emails);
  jobs = await startJobQueue(database.pool, () => undefined);
  events = { db: database.db, jobs, provider: createLocalProvider(AUTH_SECRET), publicUrl: settings.PUBLIC_URL! };
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

/** A call to a server; a process being killed answers with a broken connection, which is a legal outcome. */
async function call(server: number, shopper: Shopper, name: string, data: unknown) {
  try {
    const response = await fetch(`${servers[server]!.base}/fn/${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${shopper.token}` },
      body: JSON.stringify({ data }),
      signal: AbortSignal.timeout(60_000),
    });
    return { status: response.status, body: (await response.json()) as { data?: Record<string, unknown>; error?: { message: string } } };
  } catch {
    return { status: 0, body: {} as { data?: Record<string, unknown>; error?: { message: string } } };
  }
}

/** A provider event from a third process, redelivered on a conflict as a provider redelivers an unacknowledged webhook. */
async function deliver(event: Parameters<typeof applyPaymentEvent>[1]) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await applyPaymentEvent(events, event);
    } catch (error) {
      if (attempt >= 20 || !/conflicted/.test(String(error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
    }
  }
}

interface Model {
  /** The checkout ids each shopper started in this run, newest last. */
  checkouts: Map<number, string[]>;
  orders: string[];
}
interface Real {
  log: string[];
}

type Command = fc.AsyncCommand<Model, Real>;

const lastCheckout = (model: Model, shopper: number) => model.checkouts.get(shopper)?.at(-1);

class Start implements Command {
  readonly shopper: number;
  readonly server: number;
  readonly qty: number;
  readonly key: number;
  constructor(shopper: number, server: number, qty: number, key: number) {
    this.shopper = shopper;
    this.server = server;
    this.qty = qty;
    this.key = key;
  }
  check = () => true;
  async run(model: Model, real: Real) {
    const s = shoppers[this.shopper]!;
    const items = [{ id: productId, variantId, qty: this.qty }];
    const quoted = await call(this.server, s, 'quoteCheckout', { items, useWallet: true });
    if (quoted.status !== 200) return void real.log.push(`start ${this.shopper}: quote ${quoted.status}`);
    if ((quoted.body.data!.amountDueCents as number) === 0) {
      const answer = await call(this.server, s, 'completeWalletOnlyOrderStreetFlavor', {
        items,
        contact: contact(s),
        shipping,
        quote: quoted.body.data,
        checkoutId: `m-${this.key}`,
      });
      if (answer.status === 200) model.orders.push(answer.body.data!.orderId as string);
      real.log.push(`wallet order ${this.shopper}: ${answer.status}`);
      return;
    }
    const link = await call(this.server, s, 'createPaymentLinkStreetFlavorMerch', { items, useWallet: true, contact: contact(s), shipping, checkoutId: `m-${this.key}` });
    if (link.status === 200) model.checkouts.set(this.shopper, [...(model.checkouts.get(this.shopper) ?? []), link.body.data!.checkoutId as string]);
    real.log.push(`card checkout ${this.shopper}: ${link.status}`);
  }
  toString = () => `Start(${this.shopper}@${this.server} x${this.qty})`;
}

/** The same link opened again (a reload, a double click): the same page, nothing held twice. */
class LinkAgain implements Command {
  readonly shopper: number;
  readonly server: number;
  constructor(shopper: number, server: number) {
    this.shopper = shopper;
    this.server = server;
  }
  check = (model: Readonly<Model>) => lastCheckout(model as Model, this.shopper) !== undefined;
  async run(model: Model, real: Real) {
    const s = shoppers[this.shopper]!;
    const id = lastCheckout(model, this.shopper)!;
    const key = id.slice(id.indexOf('_') + 1);
    const again = await call(this.server, s, 'createPaymentLinkStreetFlavorMerch', {
      items: [{ id: productId, variantId, qty: 1 }],
      useWallet: true,
      contact: contact(s),
      shipping,
      checkoutId: key,
    });
    real.log.push(`link again ${this.shopper}: ${again.status}`);
  }
  toString = () => `LinkAgain(${this.shopper}@${this.server})`;
}

class PaymentEvent implements Command {
  readonly shopper: number;
  readonly type: 'succeeded' | 'failed' | 'expired';
  readonly which: number;
  readonly duplicate: boolean;
  constructor(shopper: number, type: 'succeeded' | 'failed' | 'expired', which: number, duplicate: boolean) {
    this.shopper = shopper;
    this.type = type;
    this.which = which;
    this.duplicate = duplicate;
  }
  check = (model: Readonly<Model>) => (model.checkouts.get(this.shopper)?.length ?? 0) > 0;
  async run(model: Model, real: Real) {
    // Any of the shopper's checkouts: an older one is a late payment (or a late decline).
    const ids = model.checkouts.get(this.shopper)!;
    const id = ids[this.which % ids.length]!;
    eventSerial += 1;
    const event = { eventId: `evt-m-${eventSerial}`, type: this.type, checkoutId: id, sessionId: null, paymentIntentId: `pi_${id}`, amountCents: null };
    const results = await Promise.all(this.duplicate ? [deliver(event), deliver(event)] : [deliver(event)]);
    real.log.push(`${this.type} ${id}: ${results.join(',')}`);
  }
  toString = () => `${this.type}(${this.shopper}#${this.which}${this.duplicate ? ' twice' : ''})`;
}

/** "Back to checkout" or Cancel on /checkout, on either process. */
class GoBack implements Command {
  readonly shopper: number;
  readonly server: number;
  constructor(shopper: number, server: number) {
    this.shopper = shopper;
    this.server = server;
  }
  check = (model: Readonly<Model>) => lastCheckout(model as Model, this.shopper) !== undefined;
  async run(model: Model, real: Real) {
    const answer = await call(this.server, shoppers[this.shopper]!, 'cancelOpenPayment', { checkoutId: lastCheckout(model, this.shopper) });
    real.log.push(`go back ${this.shopper}: ${answer.status} ${JSON.stringify(answer.body.data)}`);
  }
  toString = () => `GoBack(${this.shopper}@${this.server})`;
}

/** The hold reaches its deadline: the release job's step. */
class Deadline implements Command {
  readonly shopper: number;
  constructor(shopper: number) {
    this.shopper = shopper;
  }
  check = (model: Readonly<Model>) => lastCheckout(model as Model, this.shopper) !== undefined;
  async run(model: Model, real: Real) {
    const id = lastCheckout(model, this.shopper)!;
    await database.pool.query(`UPDATE checkout SET expires_at = least(expires_at, now() - interval '1 second') WHERE id = $1 AND status = 'pending'`, [id]);
    real.log.push(`deadline ${id}: ${await expireCheckout(events, id)}`);
  }
  toString = () => `Deadline(${this.shopper})`;
}

class Reconcile implements Command {
  check = () => true;
  async run(_model: Model, real: Real) {
    real.log.push(`reconcile: ${JSON.stringify(await reconcileCheckouts(events))}`);
  }
  toString = () => 'Reconcile';
}

/** The label refunds one of the run's orders (in full), from either process. */
class Refund implements Command {
  readonly which: number;
  readonly server: number;
  constructor(which: number, server: number) {
    this.which = which;
    this.server = server;
  }
  check = (model: Readonly<Model>) => model.orders.length > 0;
  async run(model: Model, real: Real) {
    const orderId = model.orders[this.which % model.orders.length]!;
    const answer = await call(this.server, shoppers[0]!, 'refundOrder', { orderId, idempotencyKey: `model-refund-${orderId}` });
    real.log.push(`refund ${orderId}: ${answer.status}`);
  }
  toString = () => `Refund(#${this.which}@${this.server})`;
}

/** kill -9 of one process between steps, then its restart: nothing it committed is lost, nothing half-done stays. */
class Crash implements Command {
  readonly server: number;
  constructor(server: number) {
    this.server = server;
  }
  check = () => true;
  async run(_model: Model, real: Real) {
    const old = servers[this.server]!;
    old.child.kill('SIGKILL');
    await old.exited;
    servers[this.server] = await spawnServer(settings, old.port);
    await waitUntilReady(servers[this.server]!);
    real.log.push(`crash ${this.server}`);
  }
  toString = () => `Crash(${this.server})`;
}

/** Several steps at once: the interleavings. */
class Burst implements Command {
  readonly steps: Command[];
  constructor(steps: Command[]) {
    this.steps = steps;
  }
  check = () => true;
  async run(model: Model, real: Real) {
    await Promise.all(this.steps.map((step) => (step.check(model) ? step.run(model, real) : undefined)));
  }
  toString = () => `Burst[${this.steps.map(String).join(', ')}]`;
}

/** The invariant, read from the database after each step. */
async function invariantProblems(): Promise<string[]> {
  const pool = database.pool;
  const problems: string[] = [];
  const variants = await pool.query<{ id: string; stock: number; held: number; sold: number; live: number; units: number }>(
    `SELECT v.id, v.stock, v.held, v.sold,
       (SELECT coalesce(sum((line->>'qty')::int), 0)::int FROM checkout c, jsonb_array_elements(c.items) line
         WHERE c.status = 'pending' AND (line->>'stockHeld')::boolean AND line->>'variantId' = v.id) AS live,
       (SELECT coalesce(sum(qty), 0)::int FROM order_item WHERE variant_id = v.id) AS units
     FROM product_variant v WHERE v.id = ANY($1::text[])`,
    [drops],
  );
  for (const v of variants.rows) {
    if (v.stock + v.held + v.sold !== RECEIVED) problems.push(`${v.id}: stock ${v.stock} + held ${v.held} + sold ${v.sold} <> ${RECEIVED}`);
    if (v.stock < 0) problems.push(`${v.id}: negative stock`);
    if (v.held !== v.live) problems.push(`${v.id}: held ${v.held} but open checkouts hold ${v.live}`);
    if (v.sold !== v.units) problems.push(`${v.id}: sold ${v.sold} but orders bought ${v.units}`);
  }
  const pendingPerUser = await pool.query(`SELECT user_id FROM checkout WHERE status = 'pending' GROUP BY user_id HAVING count(*) > 1`);
  if (pendingPerUser.rows.length > 0) problems.push(`${pendingPerUser.rows.length} accounts with more than one open checkout`);
  const credit =
    await pool.query(`SELECT w.user_id FROM wallet w LEFT JOIN (SELECT user_id, sum(wallet_held_cents) AS held FROM checkout WHERE status = 'pending' GROUP BY user_id) c
    ON c.user_id = w.user_id WHERE w.held_cents <> coalesce(c.held, 0)`);
  if (credit.rows.length > 0) problems.push(`${credit.rows.length} wallets hold credit no open checkout holds`);
  const drift = await pool.query(`SELECT w.user_id FROM wallet w LEFT JOIN ledger_entry l ON l.user_id = w.user_id GROUP BY w.user_id, w.balance_cents, w.held_cents
    HAVING coalesce(sum(l.available_delta_cents), 0) <> w.balance_cents OR coalesce(sum(l.held_delta_cents), 0) <> w.held_cents`);
  if (drift.rows.length > 0) problems.push(`ledger and balances disagree for ${drift.rows.length} wallets`);
  // Every payment reported completed (a 'succeeded' event applied): exactly one order or one refund.
  const outcomes = await pool.query<{ id: string; status: string; orders: number; refunds: number }>(`
    SELECT c.id, c.status, (SELECT count(*)::int FROM "order" o WHERE o.checkout_id = c.id) AS orders,
      (SELECT count(*)::int FROM payment_refund r WHERE r.checkout_id = c.id) AS refunds FROM checkout c`);
  for (const row of outcomes.rows) {
    const expected = row.status === 'paid' ? [1, 0] : row.status === 'refunded' ? [0, 1] : [0, 0];
    if (row.orders !== expected[0] || row.refunds !== expected[1]) problems.push(`checkout ${row.id} (${row.status}): ${row.orders} orders, ${row.refunds} refunds`);
  }
  // Every buyer's money: what the wallet gave (debits, captures, late debits) is exactly what their orders took from it.
  const money = await pool.query(`
    SELECT w.user_id FROM wallet w
    LEFT JOIN (SELECT user_id, -coalesce(sum(available_delta_cents) FILTER (WHERE kind = 'debit'), 0) - coalesce(sum(held_delta_cents) FILTER (WHERE kind = 'capture'), 0) AS spent FROM ledger_entry GROUP BY user_id) l ON l.user_id = w.user_id
    LEFT JOIN (SELECT user_id, sum(wallet_applied_cents) AS paid FROM "order" GROUP BY user_id) o ON o.user_id = w.user_id
    WHERE coalesce(l.spent, 0) <> coalesce(o.paid, 0)`);
  if (money.rows.length > 0) problems.push(`${money.rows.length} buyers whose wallet spending differs from their orders' wallet parts`);
  return problems;
}

const shopper = fc.integer({ min: 1, max: SHOPPERS - 1 });
const server = fc.integer({ min: 0, max: 1 });
const step: fc.Arbitrary<Command> = fc.oneof(
  { weight: 5, arbitrary: fc.tuple(shopper, server, fc.integer({ min: 1, max: 2 }), fc.integer()).map(([s, v, q, k]) => new Start(s, v, q, k)) },
  { weight: 1, arbitrary: fc.tuple(shopper, server).map(([s, v]) => new LinkAgain(s, v)) },
  {
    weight: 5,
    arbitrary: fc
      .tuple(shopper, fc.constantFrom('succeeded' as const, 'succeeded' as const, 'failed' as const, 'expired' as const), fc.nat(), fc.boolean())
      .map(([s, t, w, d]) => new PaymentEvent(s, t, w, d)),
  },
  { weight: 2, arbitrary: fc.tuple(shopper, server).map(([s, v]) => new GoBack(s, v)) },
  { weight: 2, arbitrary: shopper.map((s) => new Deadline(s)) },
  { weight: 1, arbitrary: fc.constant(new Reconcile()) },
  { weight: 1, arbitrary: fc.tuple(fc.nat(), server).map(([w, v]) => new Refund(w, v)) },
);
const commands = fc.commands(
  [
    step,
    fc.array(step, { minLength: 2, maxLength: 4 }).map((steps) => new Burst(steps)),
    // Rare: each restart costs seconds.
    fc.tuple(fc.integer({ min: 0, max: 30 }), server).map(([n, v]) => (n === 0 ? new Crash(v) : new Reconcile())),
  ],
  { maxCommands: 30 },
);

describe('the money path as a model', () => {
  it('keeps the invariant over random interleavings of every step, across two processes and crashes', async () => {
    await fc.assert(
      fc.asyncProperty(commands, async (cmds) => {
        // A new drop for each run: RECEIVED units of a new variant.
        await newDrop();
        // After every step: the invariant.
        await fc.asyncModelRun(
          () => ({ model: { checkouts: new Map(), orders: [] }, real: { log: [] } }),
          [...cmds].flatMap((cmd) => [cmd, new InvariantHolds()]),
        );
        // Leave nothing open for the next run: every hold reaches its deadline.
        await database.pool.query(`UPDATE checkout SET expires_at = now() - interval '1 second' WHERE status = 'pending'`);
        await reconcileCheckouts(events);
        expect(await invariantProblems()).toEqual([]);
      }),
      { numRuns: RUNS, endOnFailure: true, seed: Number(process.env.MODEL_SEED ?? 2323) },
    );
    // The reconciler's own check agrees: nothing needs a person.
    expect(await checkInvariant(events)).toBe(0);
    expect((await database.pool.query(`SELECT count(*)::int AS n FROM needs_attention`)).rows[0].n).toBe(0);
  }, 1_200_000);
});

class InvariantHolds implements Command {
  check = () => true;
  async run(_model: Model, real: Real) {
    const problems = await invariantProblems();
    if (problems.length > 0) throw new Error(`${problems.join('; ')}\nsteps: ${real.log.join(' | ')}`);
  }
  toString = () => '✓';
}
