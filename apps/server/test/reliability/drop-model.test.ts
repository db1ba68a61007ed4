import fs from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fairOrder } from '@storefront/domain/drops.ts';
import type { CheckoutDeps } from '../../src/checkout/checkout.flow.ts';
import { applyPaymentEvent } from '../../src/checkout/payment.flow.ts';
import { getProduct, releaseProduct } from '../../src/catalog/catalog.service.ts';
import { connectDatabase, type Database } from '../../src/db/client.ts';
import { freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.ts';
import { runMigrations } from '../../src/db/migrate.ts';
import { scheduleDrop } from '../../src/drops/drops.service.ts';
import { startJobQueue, type JobQueue } from '../../src/jobs/queue.ts';
import { createLocalProvider } from '../../src/payments/local.provider.ts';
import { startSmtpPeer } from '../smtp.ts';
import { newTestDataDir } from '../temp-data-dirs.ts';
import { seedShop, signInAll, type Shopper } from './money-load.ts';
import { poll, spawnServer, stopAllServers, waitUntilReady, type ServerProcess } from './processes.ts';

/**
 * The drop's queue as a model (issue 35, decision 066): fast-check picks random sequences of
 * joins (before and after the start), leaves, admissions running out, purchases (wallet and
 * card), restocks and kill -9 of a process, against two server processes that both run the
 * admission rounds on their own timers (no leader). After every step, read from the database:
 * never more fans admitted than units behind them, positions follow the committed seed, one
 * entry per account, no admission used for two orders; at the end every admitted fan bought,
 * left or expired, and the admissions followed the order.
 */
const AUTH_SECRET = 'drop-model-secret-'.repeat(3);
const FANS = 10;
const RECEIVED = 2;
const RUNS = Number(process.env.DROP_MODEL_RUNS ?? 12);
const dataDir = newTestDataDir('drop-model');
let cluster: EmbeddedDatabase;
let database: Database;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
let servers: ServerProcess[];
let settings: Record<string, string>;
let fans: Shopper[];
let jobs: JobQueue;
let events: CheckoutDeps;
let eventSerial = 0;

interface Run {
  dropId: string;
  productId: string;
  variantId: string;
  /** Units the variant received: RECEIVED and every restock. */
  received: number;
}
let current: Run;

async function newRun(): Promise<Run> {
  const n = eventSerial++;
  const productId = await releaseProduct(database.db, {
    name: `Model Drop Tee ${n}`,
    description: 'The drop',
    priceCents: 2500,
    images: ['/content/covers/cover-01.svg'],
    variants: [{ options: [], sku: `DM-${n}`, priceCents: null, stock: RECEIVED }],
  });
  const variantId = (await getProduct(database.db, productId, { includeInactive: false })).variants[0]!.id;
  const drop = await scheduleDrop(
    database.db,
    { operator: 'cli' },
    {
      name: `Model drop ${n}`,
      slug: `model-drop-${n}`,
      variantIds: [variantId],
      startsAt: new Date(Date.now() + 3_600_000).toISOString(),
      queueOpensAt: new Date(Date.now() + 60_000).toISOString(),
      perCustomerLimit: 1,
      admissionsPerMinute: 100_000,
      maxAdmitted: 3,
      checkoutWindowSeconds: 300,
      challenge: false,
    },
  );
  await database.pool.query(`UPDATE drop SET queue_opens_at = now() - interval '1 minute' WHERE id = $1`, [drop.id]);
  return { dropId: drop.id, productId, variantId, received: RECEIVED };
}

beforeAll(async () => {
  cluster = await startEmbeddedPostgres({ dataDir, ephemeral: true });
  database = connectDatabase(cluster.connectionString, { max: 20 });
  await runMigrations(database.pool);
  const seeded = await seedShop(database.db, FANS, 35);
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
    // Both processes run a round every 150 ms: they meet on the drop's lock.
    DROP_ADVANCE_MS: '150',
    DROP_JOINS_PER_ADDRESS: '100000',
  };
  servers = await Promise.all(ports.map((port) => spawnServer(settings, port)));
  await Promise.all(servers.map(waitUntilReady));
  fans = await signInAll(servers[0]!.base, settings.PUBLIC_URL!, seeded.emails);
  jobs = await startJobQueue(database.pool, () => undefined);
  events = { db: database.db, jobs, provider: createLocalProvider(AUTH_SECRET), publicUrl: settings.PUBLIC_URL!, admissionSecrets: [AUTH_SECRET] };
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
async function call(server: number, fan: Shopper, name: string, data: unknown) {
  try {
    const response = await fetch(`${servers[server]!.base}/fn/${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${fan.token}`, 'x-forwarded-for': fan.ip },
      body: JSON.stringify({ data }),
      signal: AbortSignal.timeout(60_000),
    });
    return { status: response.status, body: (await response.json()) as { data?: Record<string, unknown>; error?: { message: string } } };
  } catch {
    return { status: 0, body: {} as { data?: Record<string, unknown>; error?: { message: string } } };
  }
}

interface Model {
  started: boolean;
  /** Card checkouts made per fan in this run. */
  checkouts: Map<number, string[]>;
}
interface Real {
  log: string[];
}
type Command = fc.AsyncCommand<Model, Real>;

class Join implements Command {
  readonly fan: number;
  readonly server: number;
  constructor(fan: number, server: number) {
    this.fan = fan;
    this.server = server;
  }
  check = () => true;
  async run(_model: Model, real: Real) {
    const answer = await call(this.server, fans[this.fan]!, 'joinDrop', { dropId: current.dropId });
    real.log.push(`join ${this.fan}@${this.server}: ${answer.status} ${answer.body.error?.message ?? ''}`);
  }
  toString = () => `Join(${this.fan}@${this.server})`;
}

class Start implements Command {
  check = (model: Readonly<Model>) => !model.started;
  async run(model: Model, real: Real) {
    model.started = true;
    await database.pool.query(`UPDATE drop SET starts_at = now() WHERE id = $1`, [current.dropId]);
    // One of the two processes' timers starts it.
    await poll(
      'the start',
      async () => ((await database.pool.query(`SELECT status FROM drop WHERE id = $1`, [current.dropId])).rows[0].status !== 'scheduled' ? true : undefined),
      {
        timeoutMs: 60_000,
      },
    );
    real.log.push('start');
  }
  toString = () => 'Start';
}

class Leave implements Command {
  readonly fan: number;
  readonly server: number;
  constructor(fan: number, server: number) {
    this.fan = fan;
    this.server = server;
  }
  check = () => true;
  async run(_model: Model, real: Real) {
    const answer = await call(this.server, fans[this.fan]!, 'leaveDrop', { dropId: current.dropId });
    real.log.push(`leave ${this.fan}: ${answer.status}`);
  }
  toString = () => `Leave(${this.fan}@${this.server})`;
}

/** An admission's window ends (the fan closed the tab and never came back). */
class Expire implements Command {
  readonly fan: number;
  constructor(fan: number) {
    this.fan = fan;
  }
  check = () => true;
  async run(_model: Model, real: Real) {
    const { rowCount } = await database.pool.query(
      `UPDATE drop_entry SET expires_at = now() - interval '1 second' WHERE drop_id = $1 AND status = 'admitted' AND user_id = (SELECT id FROM "user" WHERE email = $2)`,
      [current.dropId, fans[this.fan]!.email],
    );
    // The hold of a card checkout made under it ends with it.
    await database.pool.query(`UPDATE checkout SET expires_at = now() - interval '1 second' WHERE status = 'pending' AND user_id = (SELECT id FROM "user" WHERE email = $1)`, [
      fans[this.fan]!.email,
    ]);
    real.log.push(`expire ${this.fan}: ${rowCount}`);
  }
  toString = () => `Expire(${this.fan})`;
}

/** A fan buys one unit: with the wallet, or by card (then the payment arrives, or is declined). */
class Buy implements Command {
  readonly fan: number;
  readonly server: number;
  readonly kind: 'wallet' | 'card-paid' | 'card-declined';
  readonly key: number;
  constructor(fan: number, server: number, kind: 'wallet' | 'card-paid' | 'card-declined', key: number) {
    this.fan = fan;
    this.server = server;
    this.kind = kind;
    this.key = key;
  }
  check = () => true;
  async run(model: Model, real: Real) {
    const fan = fans[this.fan]!;
    const items = [{ id: current.productId, variantId: current.variantId, qty: 1 }];
    if (this.kind === 'wallet') {
      const quoted = await call(this.server, fan, 'quoteCheckout', { items, useWallet: true });
      if (quoted.status !== 200) return void real.log.push(`buy ${this.fan}: quote ${quoted.status}`);
      const answer = await call(this.server, fan, 'completeWalletOnlyOrderStreetFlavor', {
        items,
        contact: contact(fan),
        shipping,
        quote: quoted.body.data,
        checkoutId: `dm-${this.key}`,
      });
      return void real.log.push(`wallet ${this.fan}: ${answer.status} ${answer.body.error?.message ?? ''}`);
    }
    const link = await call(this.server, fan, 'createPaymentLinkStreetFlavorMerch', { items, useWallet: false, contact: contact(fan), shipping, checkoutId: `dm-${this.key}` });
    real.log.push(`card ${this.fan}: ${link.status} ${link.body.error?.message ?? ''}`);
    if (link.status !== 200) return;
    const checkoutId = link.body.data!.checkoutId as string;
    model.checkouts.set(this.fan, [...(model.checkouts.get(this.fan) ?? []), checkoutId]);
    eventSerial += 1;
    const type = this.kind === 'card-paid' ? ('succeeded' as const) : ('failed' as const);
    for (let attempt = 1; ; attempt += 1) {
      try {
        const result = await applyPaymentEvent(events, {
          eventId: `evt-dm-${eventSerial}`,
          type,
          checkoutId,
          sessionId: null,
          paymentIntentId: `pi_${checkoutId}`,
          amountCents: null,
        });
        return void real.log.push(`${type} ${checkoutId}: ${result}`);
      } catch (error) {
        if (attempt >= 20 || !/conflicted/.test(String(error))) throw error;
      }
    }
  }
  toString = () => `Buy(${this.fan}@${this.server} ${this.kind})`;
}

/** A fan who is admitted now buys (the `which`-th of those admitted): the purchases that should go through. */
class BuyAdmitted implements Command {
  readonly which: number;
  readonly server: number;
  readonly kind: 'wallet' | 'card-paid' | 'card-declined';
  readonly key: number;
  constructor(which: number, server: number, kind: 'wallet' | 'card-paid' | 'card-declined', key: number) {
    this.which = which;
    this.server = server;
    this.kind = kind;
    this.key = key;
  }
  check = () => true;
  async run(model: Model, real: Real) {
    const admitted = await database.pool.query<{ email: string }>(
      `SELECT u.email FROM drop_entry e JOIN "user" u ON u.id = e.user_id WHERE e.drop_id = $1 AND e.status = 'admitted' ORDER BY e.number`,
      [current.dropId],
    );
    if (admitted.rows.length === 0) return void real.log.push('buy admitted: none');
    const email = admitted.rows[this.which % admitted.rows.length]!.email;
    await new Buy(
      fans.findIndex((fan) => fan.email === email),
      this.server,
      this.kind,
      this.key,
    ).run(model, real);
  }
  toString = () => `BuyAdmitted(#${this.which}@${this.server} ${this.kind})`;
}

/** Time passes: both processes' timers run rounds (admissions, expiries, the close). */
class Wait implements Command {
  check = () => true;
  async run(_model: Model, real: Real) {
    await new Promise((resolve) => setTimeout(resolve, 400));
    real.log.push('wait');
  }
  toString = () => 'Wait';
}

/** The label receives one more unit. */
class Restock implements Command {
  check = () => true;
  async run(_model: Model, real: Real) {
    await database.pool.query(`UPDATE product_variant SET stock = stock + 1 WHERE id = $1`, [current.variantId]);
    current.received += 1;
    real.log.push('restock');
  }
  toString = () => 'Restock';
}

/** kill -9 of one process between steps, then its restart. */
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

/** The queue's invariants, read from the database. */
async function problems(): Promise<string[]> {
  const pool = database.pool;
  const found: string[] = [];
  const [drop] = (await pool.query(`SELECT * FROM drop WHERE id = $1`, [current.dropId])).rows;
  const entries = (await pool.query(`SELECT * FROM drop_entry WHERE drop_id = $1 ORDER BY number`, [current.dropId])).rows as {
    number: number;
    user_id: string;
    position: number | null;
    status: string;
    admitted_at: Date | null;
    batch: number | null;
    checkout_id: string | null;
    order_id: string | null;
  }[];
  const [variant] = (await pool.query(`SELECT stock, held, sold FROM product_variant WHERE id = $1`, [current.variantId])).rows as { stock: number; held: number; sold: number }[];
  // Stock itself: never oversold.
  if (variant!.stock + variant!.held + variant!.sold !== current.received)
    found.push(`stock ${variant!.stock} + held ${variant!.held} + sold ${variant!.sold} <> received ${current.received}`);
  // Never more admitted than units behind them (limit 1 each): units left plus units their checkouts hold.
  const admitted = entries.filter((entry) => entry.status === 'admitted').length;
  if (admitted > variant!.stock + variant!.held) found.push(`${admitted} admitted with ${variant!.stock} left and ${variant!.held} held`);
  if (admitted > drop.max_admitted) found.push(`${admitted} admitted at once, more than ${drop.max_admitted}`);
  // One entry per account, numbered 1..n without gaps.
  if (new Set(entries.map((entry) => entry.user_id)).size !== entries.length) found.push('an account with two entries');
  if (entries.some((entry, index) => entry.number !== index + 1)) found.push(`entry numbers ${entries.map((entry) => entry.number).join(',')}`);
  // Positions follow the committed seed.
  if (drop.pre_queue_count !== null) {
    const preQueue = Array.from({ length: drop.pre_queue_count as number }, (_, index) => index + 1);
    const order = await fairOrder(drop.seed, preQueue);
    for (const entry of entries) {
      const expected = entry.number <= drop.pre_queue_count ? order.indexOf(entry.number) + 1 : entry.number;
      if (entry.position !== expected) found.push(`entry ${entry.number} at position ${entry.position}, the seed says ${expected}`);
    }
  }
  // No admission used twice: every order of the drop's variant placed before the sell-out is a bought entry's
  // own order, one per fan; every bought entry has its order. A card order is placed when its payment
  // succeeds, which can be after the sell-out (its units were held), so it is matched by id, not by time.
  // Orders after the sell-out that no entry names are the waitlist's (none here) or anyone's: units nobody
  // waits for sell freely.
  const orders = (await pool.query(`SELECT o.id, o.user_id, o.created_at FROM "order" o JOIN order_item i ON i.order_id = o.id WHERE i.variant_id = $1`, [current.variantId]))
    .rows as { id: string; user_id: string; created_at: Date }[];
  const soldOutAt = drop.sold_out_at as Date | null;
  for (const order of orders) {
    const entry = entries.find((candidate) => candidate.order_id === order.id);
    if (entry) {
      if (entry.user_id !== order.user_id) found.push(`order ${order.id} is another fan's entry's`);
      if (entry.status !== 'bought') found.push(`order ${order.id} names an entry that is ${entry.status}`);
    } else if (soldOutAt === null || order.created_at <= soldOutAt) {
      const mine = entries.find((candidate) => candidate.user_id === order.user_id);
      found.push(`order ${order.id} before the sell-out by a fan whose entry is ${mine?.status ?? 'missing'}`);
    }
  }
  for (const entry of entries.filter((candidate) => candidate.status === 'bought')) {
    if (!orders.some((order) => order.id === entry.order_id)) found.push(`entry ${entry.number} is bought without its order`);
    if (orders.filter((order) => order.user_id === entry.user_id && entries.some((other) => other.order_id === order.id)).length > 1)
      found.push(`entry ${entry.number}'s fan used the admission twice`);
  }
  // Admissions in the order: a later batch never admits a position before an earlier batch's.
  const admissions = entries.filter((entry) => entry.batch !== null).sort((a, b) => a.batch! - b.batch! || a.position! - b.position!);
  for (let i = 1; i < admissions.length; i += 1)
    if (admissions[i]!.position! < admissions[i - 1]!.position!) found.push(`admission of position ${admissions[i]!.position} after ${admissions[i - 1]!.position}`);
  // Nobody was admitted past a fan still waiting ahead of them.
  const waitingPositions = entries.filter((entry) => entry.status === 'waiting' && entry.position !== null).map((entry) => entry.position!);
  const admittedPositions = entries.filter((entry) => entry.admitted_at !== null).map((entry) => entry.position!);
  if (waitingPositions.length > 0 && admittedPositions.length > 0 && Math.max(...admittedPositions) > Math.min(...waitingPositions))
    found.push(`position ${Math.min(...waitingPositions)} still waits while ${Math.max(...admittedPositions)} was admitted`);
  return found;
}

class Holds implements Command {
  check = () => true;
  async run(_model: Model, real: Real) {
    const found = await problems();
    if (found.length > 0) {
      const entries = await database.pool.query(
        `SELECT number, position, status, batch, admitted_at, expires_at, checkout_id, order_id FROM drop_entry WHERE drop_id = $1 ORDER BY number`,
        [current.dropId],
      );
      const checkouts = await database.pool.query(`SELECT id, status, items FROM checkout WHERE items::text LIKE $1`, [`%${current.variantId}%`]);
      throw new Error(
        `${found.join('; ')}\nsteps: ${real.log.join(' | ')}\nentries: ${JSON.stringify(entries.rows)}\ncheckouts: ${JSON.stringify(checkouts.rows.map((row) => [row.id, row.status]))}`,
      );
    }
  }
  toString = () => '✓';
}

const fan = fc.integer({ min: 1, max: FANS - 1 });
const server = fc.integer({ min: 0, max: 1 });
const step: fc.Arbitrary<Command> = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(fan, server).map(([f, s]) => new Join(f, s)) },
  { weight: 2, arbitrary: fc.constant(new Start()) },
  { weight: 1, arbitrary: fc.tuple(fan, server).map(([f, s]) => new Leave(f, s)) },
  { weight: 2, arbitrary: fan.map((f) => new Expire(f)) },
  {
    weight: 5,
    arbitrary: fc
      .tuple(fan, server, fc.constantFrom('wallet' as const, 'card-paid' as const, 'card-declined' as const), fc.integer())
      .map(([f, s, k, key]) => new Buy(f, s, k, key)),
  },
  {
    weight: 5,
    arbitrary: fc
      .tuple(fc.nat(), server, fc.constantFrom('wallet' as const, 'card-paid' as const, 'card-declined' as const), fc.integer())
      .map(([w, s, k, key]) => new BuyAdmitted(w, s, k, key)),
  },
  { weight: 1, arbitrary: fc.constant(new Restock()) },
  { weight: 3, arbitrary: fc.constant(new Wait()) },
);
const commands = fc.commands(
  [
    step,
    fc.array(step, { minLength: 2, maxLength: 4 }).map((steps) => new Burst(steps)),
    // Rare: each restart costs seconds.
    fc.tuple(fc.integer({ min: 0, max: 25 }), server).map(([n, s]) => (n === 0 ? new Crash(s) : new Wait())),
  ],
  { maxCommands: 30 },
);
/** The fans who join before anything else happens (the pre-queue), each through either process. */
const preQueue = fc.subarray(
  Array.from({ length: FANS - 1 }, (_, i) => i + 1),
  { minLength: 3 },
);

describe('the drop queue as a model', () => {
  it('never admits past stock, follows the seed, one entry per account, no admission used twice, every admission ends', async () => {
    await fc.assert(
      fc.asyncProperty(preQueue, commands, async (early, cmds) => {
        current = await newRun();
        const real: Real = { log: [] };
        await Promise.all(early.map((f, i) => new Join(f, i % 2).run({ started: false, checkouts: new Map() }, real)));
        await fc.asyncModelRun(
          () => ({ model: { started: false, checkouts: new Map() }, real }),
          [...cmds].flatMap((cmd) => [cmd, new Holds()]),
        );
        // The end: every admission's window closes, a round records it; then every admitted fan bought, left or expired.
        await database.pool.query(`UPDATE drop SET starts_at = least(starts_at, now()) WHERE id = $1`, [current.dropId]);
        await database.pool.query(`UPDATE drop_entry SET expires_at = now() - interval '1 second' WHERE drop_id = $1 AND status = 'admitted'`, [current.dropId]);
        await poll(
          'every admission to end',
          async () => {
            const open = await database.pool.query(`SELECT count(*)::int AS n FROM drop_entry WHERE drop_id = $1 AND status = 'admitted' AND expires_at <= now()`, [
              current.dropId,
            ]);
            return open.rows[0].n === 0 ? true : undefined;
          },
          { timeoutMs: 60_000 },
        );
        const ended = await database.pool.query(`SELECT status, count(*)::int AS n FROM drop_entry WHERE drop_id = $1 AND admitted_at IS NOT NULL GROUP BY status`, [
          current.dropId,
        ]);
        for (const row of ended.rows as { status: string; n: number }[]) expect(['bought', 'left', 'expired', 'admitted']).toContain(row.status);
        const stillAdmitted = (ended.rows as { status: string; n: number }[]).find((row) => row.status === 'admitted');
        // Admitted after the windows were closed above (fans still waiting, units left): fresh admissions with their own windows.
        if (stillAdmitted) {
          const fresh = await database.pool.query(`SELECT count(*)::int AS n FROM drop_entry WHERE drop_id = $1 AND status = 'admitted' AND expires_at > now()`, [current.dropId]);
          expect(fresh.rows[0].n).toBe(stillAdmitted.n);
        }
        if (process.env.DROP_MODEL_LOG)
          fs.appendFileSync(
            process.env.DROP_MODEL_LOG,
            `${real.log.join(' | ')}\n${JSON.stringify((await database.pool.query(`SELECT number, position, status, batch FROM drop_entry WHERE drop_id = $1 ORDER BY number`, [current.dropId])).rows)}\n\n`,
          );
        expect(await problems()).toEqual([]);
        // Nothing left open for the next run.
        await database.pool.query(`UPDATE drop SET status = 'cancelled' WHERE id = $1`, [current.dropId]);
        await database.pool.query(`UPDATE checkout SET expires_at = now() - interval '1 second' WHERE status = 'pending'`);
      }),
      { numRuns: RUNS, endOnFailure: true, seed: Number(process.env.DROP_MODEL_SEED ?? 3535) },
    );
    // The runs did reach the interesting states: fans admitted, orders made, admissions that ran out.
    const totals = await database.pool.query(
      `SELECT count(*) FILTER (WHERE admitted_at IS NOT NULL)::int AS admitted, count(*) FILTER (WHERE status = 'bought')::int AS bought, count(*) FILTER (WHERE status = 'expired')::int AS expired FROM drop_entry`,
    );
    expect(totals.rows[0]).toMatchObject({ admitted: expect.any(Number), bought: expect.any(Number) });
    expect(totals.rows[0].admitted).toBeGreaterThan(0);
    expect(totals.rows[0].bought).toBeGreaterThan(0);
    expect(totals.rows[0].expired).toBeGreaterThan(0);
  }, 1_800_000);
});
