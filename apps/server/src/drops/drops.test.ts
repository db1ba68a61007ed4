import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { eq, sql } from 'drizzle-orm';
import pg from 'pg';
import { solveChallenge } from 'altcha-lib/v1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DROP_MESSAGES, fairOrder, positionFromSeed, sha256Hex, entryListHash } from '@storefront/domain/drops.ts';
import type { FunctionsError } from '@storefront/sdk/callable.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { openSse } from '../../test/sse.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import { saveBundle } from '../catalog/bundles.service.ts';
import { getProduct, releaseProduct } from '../catalog/catalog.service.ts';
import { completeWalletOnlyOrder, createPaymentLink, quoteCheckout, type CheckoutDeps } from '../checkout/checkout.flow.ts';
import { applyPaymentEvent } from '../checkout/payment.flow.ts';
import { adminAudit, dropEntries, drops, productVariants, variantWaitlist } from '../db/schema/index.ts';
import { startJobQueue, type JobQueue } from '../jobs/queue.ts';
import { LIVE_CHANNEL, type LiveEvent } from '../live/live.publish.ts';
import { createLocalProvider } from '../payments/local.provider.ts';
import { grantCredits } from '../wallet/wallet.commands.ts';
import { advanceDrop, joinDrop, type QueueDeps } from './drop-queue.service.ts';
import { joinWaitlist, offerReturnedUnits } from './waitlist.service.ts';

/**
 * Issue 35 (decision 066) on a real Postgres: scheduling and its audit, joins numbered by the
 * database (concurrent too), the proof-of-work, the fair start, admissions against stock
 * (concurrent rounds too), the checkout's refusals and the admission used once, sold out, the
 * waitlist's offers, the report and the public fairness data.
 */
let shop: TestApp;
let jobs: JobQueue;
let deps: CheckoutDeps;
let queue: QueueDeps;
let adminToken: string;
const fans: { id: string; email: string; token?: string }[] = [];
const contact = { name: 'Fan', email: 'fan@example.org', phone: '' };
const shipping = { name: 'Fan', line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };
const FANS = 40;
const run = promisify(execFile);

let serial = 0;
async function tee(stock: number | null, perCustomerLimit: number | null = null) {
  serial += 1;
  const id = await releaseProduct(shop.db, {
    name: `Drop Tee ${serial}`,
    description: 'Tee',
    priceCents: 2500,
    images: ['/content/covers/cover-01.svg'],
    variants: [{ options: [], sku: `DT-${serial}`, priceCents: null, stock, perCustomerLimit }],
  });
  const product = await getProduct(shop.db, id, { includeInactive: false });
  const variantId = product.variants[0]!.id;
  return { id, variantId, items: (qty = 1) => [{ id, variantId, qty }] };
}

const asAdmin = () => shop.functions(() => adminToken);
async function errorOf(promise: Promise<unknown>): Promise<FunctionsError> {
  try {
    await promise;
  } catch (error) {
    return error as FunctionsError;
  }
  throw new Error('expected a refusal');
}

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();
const inAMinute = () => new Date(Date.now() + 60_000).toISOString();

async function scheduled(
  variantIds: string[],
  options: Partial<{ perCustomerLimit: number; admissionsPerMinute: number; maxAdmitted: number; challenge: boolean; checkoutWindowSeconds: number }> = {},
) {
  serial += 1;
  return asAdmin().call('scheduleDrop', {
    name: `Drop ${serial}`,
    slug: `drop-${serial}`,
    variantIds,
    startsAt: inAnHour(),
    queueOpensAt: inAMinute(),
    perCustomerLimit: options.perCustomerLimit ?? 1,
    admissionsPerMinute: options.admissionsPerMinute ?? 1000,
    maxAdmitted: options.maxAdmitted ?? 1000,
    checkoutWindowSeconds: options.checkoutWindowSeconds ?? 300,
    challenge: options.challenge ?? false,
  });
}

/** The queue is open (the pre-queue): joins are accepted. */
const openQueue = (dropId: string) =>
  shop.db
    .update(drops)
    .set({ queueOpensAt: new Date(Date.now() - 60_000) })
    .where(eq(drops.id, dropId));
/** The start has come: the next round starts the drop. */
const startNow = (dropId: string) =>
  shop.db
    .update(drops)
    .set({ queueOpensAt: new Date(Date.now() - 60_000), startsAt: new Date(Date.now() - 1000) })
    .where(eq(drops.id, dropId));
const entriesOf = (dropId: string) => shop.db.select().from(dropEntries).where(eq(dropEntries.dropId, dropId)).orderBy(dropEntries.number);
const dropRow = async (dropId: string) => (await shop.db.select().from(drops).where(eq(drops.id, dropId)))[0]!;
const join = (fan: number, dropId: string) => joinDrop(queue, fans[fan]!.id, `10.0.0.${fan}`, { dropId });

async function walletOrder(userId: string, items: { id: string; variantId: string; qty: number }[], checkoutId: string) {
  const reviewed = await quoteCheckout(shop.db, userId, items, true);
  return completeWalletOnlyOrder(deps, userId, { items, contact, shipping, quote: reviewed, checkoutId });
}

beforeAll(async () => {
  shop = await startTestApp({
    // The rounds run when a test says so (the timer's round comes after a minute).
    config: { env: { DROP_ADVANCE_MS: '60000', DROP_CHALLENGE_COST: '2000', DROP_JOINS_PER_ADDRESS: '100000', SIGNUP_RATE_LIMIT: '1000' } },
    database: { max: 40 },
    async seed({ db, config }) {
      await createAccount(
        db,
        config,
        { email: 'admin@example.org', username: 'boss', name: 'Boss', password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true },
        { emailVerified: true, role: 'admin', allowReservedUsername: true },
      );
    },
  });
  adminToken = await shop.signIn('admin@example.org');
  for (let i = 0; i < FANS; i += 1) {
    const email = `fan${i}@example.org`;
    fans.push({ id: await shop.account(`fan${i}`), email });
    await grantCredits(shop.db, email, '500', `drop-fan-${i}`);
  }
  fans[0]!.token = await shop.signIn(fans[0]!.email);
  fans[1]!.token = await shop.signIn(fans[1]!.email);
  jobs = await startJobQueue(shop.db.$client, () => undefined);
  deps = { db: shop.db, jobs, provider: createLocalProvider('drops-test'), publicUrl: shop.baseUrl, admissionSecrets: [shop.config.AUTH_SECRET] };
  queue = { db: shop.db, secrets: [shop.config.AUTH_SECRET], challengeCost: 2000, joinsPerAddress: 100_000 };
}, 120_000);

afterAll(async () => {
  await jobs?.stop();
  await shop?.close();
});

describe('scheduling (item 1)', () => {
  it('is for admins, keeps the seed secret behind its SHA-256, and is audited', async () => {
    const t = await tee(10);
    const fan = shop.functions(() => fans[0]!.token);
    const refused = await errorOf(
      fan.call('scheduleDrop', {
        name: 'X',
        slug: 'x-drop',
        variantIds: [t.variantId],
        startsAt: inAnHour(),
        queueOpensAt: inAMinute(),
        perCustomerLimit: 1,
        admissionsPerMinute: 10,
        maxAdmitted: 10,
        checkoutWindowSeconds: 300,
        challenge: false,
      }),
    );
    expect(refused.code).toBe('permission-denied');

    const drop = await scheduled([t.variantId]);
    const row = await dropRow(drop.id);
    expect(row.seed).toMatch(/^[0-9a-f]{64}$/);
    expect(drop.seedHash).toBe(await sha256Hex(row.seed));
    expect(drop.seed).toBeNull();
    const published = await shop.functions().call('getDrop', { slug: drop.slug });
    expect(published).toMatchObject({ id: drop.id, status: 'scheduled', seed: null, seedHash: row.seedHash, items: [{ variantId: t.variantId, unitsLeft: 10 }] });
    expect(JSON.stringify(published)).not.toContain(row.seed);

    const heard = await listen();
    const edited = await asAdmin().call('editDrop', { dropId: drop.id, perCustomerLimit: 2 });
    expect(edited.perCustomerLimit).toBe(2);
    // Open pages hear of the edit (a page counting down reads the drop again).
    expect((await heard.stop()).filter((event) => event.id === drop.id)).toEqual([{ topic: 'drop', id: drop.id, nowServing: 0, status: 'scheduled' }]);
    expect(edited.seedHash).toBe(drop.seedHash);
    const audit = await shop.db.select().from(adminAudit).where(eq(adminAudit.targetId, drop.id)).orderBy(adminAudit.id);
    expect(audit.map((entry) => entry.action)).toEqual(['drop.schedule', 'drop.edit']);
    expect(JSON.stringify(audit)).not.toContain(row.seed);

    // A variant is in one drop at a time; the address is unique.
    expect((await errorOf(scheduled([t.variantId]))).message).toBe(DROP_MESSAGES.variantInOtherDrop);
    const other = await tee(1);
    const sameSlug = await errorOf(
      asAdmin().call('scheduleDrop', {
        name: 'Y',
        slug: drop.slug,
        variantIds: [other.variantId],
        startsAt: inAnHour(),
        queueOpensAt: inAMinute(),
        perCustomerLimit: 1,
        admissionsPerMinute: 10,
        maxAdmitted: 10,
        checkoutWindowSeconds: 300,
        challenge: false,
      }),
    );
    expect(sameSlug.message).toBe(DROP_MESSAGES.slugTaken);
  });

  it('postponing and cancelling keep the entries and tell the open pages once', async () => {
    const t = await tee(10);
    const drop = await scheduled([t.variantId]);
    await openQueue(drop.id);
    await join(0, drop.id);
    await join(1, drop.id);
    const heard = await listen();
    const postponed = await asAdmin().call('postponeDrop', { dropId: drop.id, startsAt: new Date(Date.now() + 7_200_000).toISOString(), note: 'New date soon' });
    expect(postponed.status).toBe('postponed');
    const state = await shop.functions(() => fans[0]!.token).call('getMyDropState', { dropId: drop.id });
    expect(state).toMatchObject({ dropStatus: 'postponed', note: 'New date soon', entry: { number: 1, status: 'waiting' } });
    await asAdmin().call('cancelDrop', { dropId: drop.id });
    expect((await entriesOf(drop.id)).map((entry) => entry.status)).toEqual(['waiting', 'waiting']);
    const events = await heard.stop();
    expect(events.filter((event) => event.id === drop.id).map((event) => event.status)).toEqual(['postponed', 'cancelled']);
    // A cancelled drop guards nothing: its variant sells as before.
    await walletOrder(fans[2]!.id, t.items(), `after-cancel-${drop.id}`);
  });
});

/** Collects the live events on the channel until stop(). */
async function listen() {
  const client = new pg.Client({ connectionString: shop.database.connectionString });
  await client.connect();
  const events: LiveEvent[] = [];
  client.on('notification', (message) => {
    if (message.channel === LIVE_CHANNEL && message.payload) {
      const event = JSON.parse(message.payload) as LiveEvent;
      if (event.topic === 'drop') events.push(event);
    }
  });
  await client.query(`LISTEN ${LIVE_CHANNEL}`);
  return {
    async stop() {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await client.end();
      return events;
    },
  };
}

describe('joining and the fair order (item 2)', () => {
  it('numbers concurrent joins 1..n with one entry per account, shuffles the pre-queue by the seed at the start, and queues later arrivals in join order', async () => {
    const t = await tee(100);
    const drop = await scheduled([t.variantId], { admissionsPerMinute: 1, maxAdmitted: 1 });
    expect((await errorOf(join(0, drop.id))).message).toBe(DROP_MESSAGES.queueNotOpen);
    await openQueue(drop.id);
    // 30 fans at once, each twice.
    await Promise.all(Array.from({ length: 30 }, (_, i) => [join(i, drop.id), join(i, drop.id)]).flat());
    const entries = await entriesOf(drop.id);
    expect(entries.map((entry) => entry.number)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(new Set(entries.map((entry) => entry.userId)).size).toBe(30);
    expect(entries.every((entry) => entry.position === null)).toBe(true);

    await startNow(drop.id);
    const round = await advanceDrop(queue, drop.id);
    expect(round).toMatchObject({ ran: true, started: true, admitted: 1, status: 'live' });
    const row = await dropRow(drop.id);
    expect(row.preQueueCount).toBe(30);
    const numbers = Array.from({ length: 30 }, (_, i) => i + 1);
    expect(row.entryListHash).toBe(await entryListHash(numbers));
    const order = await fairOrder(row.seed, numbers);
    const positioned = await entriesOf(drop.id);
    for (const entry of positioned) expect(entry.position).toBe(order.indexOf(entry.number) + 1);
    // The first in the fair order is admitted, nobody else (one at once).
    expect(positioned.filter((entry) => entry.status === 'admitted').map((entry) => entry.number)).toEqual([order[0]]);

    // Later arrivals follow in join order.
    const late = await join(30, drop.id);
    expect(late.entry).toMatchObject({ number: 31, position: 31, status: 'waiting' });
    expect(late.ahead).toBe(29);

    // The public data: numbers only, the seed now revealed, and the same order.
    const fairness = await shop.functions().call('getDropFairness', { dropId: drop.id });
    expect(fairness).toMatchObject({ seed: row.seed, seedHash: row.seedHash, entryListHash: row.entryListHash, preQueue: numbers, order, entrants: 31 });
    expect(JSON.stringify(fairness)).not.toMatch(/fan\d+@|user/);

    // The documented script recomputes a fan's position from the public data alone.
    const mine = positioned.find((entry) => entry.number === 7)!;
    const script = path.resolve(import.meta.dirname, '../../../../scripts/verify-drop.mjs');
    const { stdout } = await run(process.execPath, [script, shop.baseUrl, drop.slug, '7']);
    expect(stdout).toContain(`entry 7: position ${mine.position} (pre-queue`);
    expect(stdout).not.toContain('FAIL');
    // A list that is not the one committed to fails the check.
    const file = path.join(os.tmpdir(), `fairness-${drop.id}.json`);
    fs.writeFileSync(file, JSON.stringify({ ...fairness, order: [...fairness.order].reverse() }));
    const tampered = await run(process.execPath, [script, '--file', file]).catch((error: { code: number; stdout: string }) => error);
    fs.rmSync(file);
    expect((tampered as { code: number }).code).toBe(1);
    expect((tampered as { stdout: string }).stdout).toContain('FAIL the published order');
  });

  it('asks for a proof-of-work when the drop has the challenge on: verified on the server, usable once, failures counted', async () => {
    const t = await tee(5);
    const drop = await scheduled([t.variantId], { challenge: true });
    await openQueue(drop.id);
    const fan = shop.functions(() => fans[0]!.token);
    expect((await errorOf(fan.call('joinDrop', { dropId: drop.id }))).message).toBe(DROP_MESSAGES.challengeNeeded);
    const challenge = await fan.call('getDropChallenge', { dropId: drop.id });
    const solution = await solveChallenge(challenge.challenge, challenge.salt, challenge.algorithm, challenge.maxnumber).promise;
    const payload = (number: number) =>
      Buffer.from(JSON.stringify({ algorithm: challenge.algorithm, challenge: challenge.challenge, number, salt: challenge.salt, signature: challenge.signature })).toString(
        'base64',
      );
    expect((await errorOf(fan.call('joinDrop', { dropId: drop.id, challenge: payload(solution!.number + 1) }))).message).toBe(DROP_MESSAGES.challengeFailed);
    const joined = await fan.call('joinDrop', { dropId: drop.id, challenge: payload(solution!.number) });
    expect(joined.entry).toMatchObject({ number: 1, status: 'waiting' });
    // The same solved challenge does not let a second account in.
    const other = shop.functions(() => fans[1]!.token);
    expect((await errorOf(other.call('joinDrop', { dropId: drop.id, challenge: payload(solution!.number) }))).message).toBe(DROP_MESSAGES.challengeFailed);
    expect((await dropRow(drop.id)).challengeFailures).toBe(2);
    expect((await entriesOf(drop.id)).length).toBe(1);
  });
});

describe('admission against stock (item 4)', () => {
  it('never admits past the units left, with concurrent rounds and joins', async () => {
    const t = await tee(7);
    const drop = await scheduled([t.variantId], { perCustomerLimit: 2 });
    await openQueue(drop.id);
    await Promise.all(Array.from({ length: 20 }, (_, i) => join(i, drop.id)));
    await startNow(drop.id);
    // Eight rounds at once from eight "instances": one runs, the others skip or find nothing to do.
    await Promise.all(Array.from({ length: 8 }, () => advanceDrop(queue, drop.id)));
    await Promise.all(Array.from({ length: 8 }, () => advanceDrop(queue, drop.id)));
    const admitted = (await entriesOf(drop.id)).filter((entry) => entry.status === 'admitted');
    // 7 units, 2 each: 3 admissions set aside 6; the 7th unit waits for one of them to end.
    expect(admitted.length).toBe(3);
    expect(Math.max(...admitted.map((entry) => entry.position!))).toBe(3);
    expect((await dropRow(drop.id)).nowServing).toBe(3);
  });

  it('says where a fan stands; leaving ends the admission and the next fan is admitted', async () => {
    const t = await tee(2);
    const drop = await scheduled([t.variantId], { perCustomerLimit: 2 });
    await openQueue(drop.id);
    await join(0, drop.id);
    await join(1, drop.id);
    await startNow(drop.id);
    // Any open page, signed in or not, hears "now serving" on the drop topic, with the figure itself.
    const page = await openSse(`${shop.baseUrl}/api/live?topics=drop`);
    await page.waitFor((event) => event.event === 'ready');
    await advanceDrop(queue, drop.id);
    const heard = await page.waitFor((event) => event.event === 'drop' && event.data.includes(drop.id));
    // The start's revealed seed and pre-queue size ride along: a page places itself without asking (decision 073).
    const [row] = await shop.db.select().from(drops).where(eq(drops.id, drop.id));
    expect(JSON.parse(heard.data)).toEqual({ id: drop.id, nowServing: 1, status: 'live', seed: row!.seed, preQueueCount: 2 });
    await page.close();
    const entries = await entriesOf(drop.id);
    for (const entry of entries) expect(await positionFromSeed(row!.seed, 2, entry.number)).toBe(entry.position);
    const first = entries.find((entry) => entry.position === 1)!;
    const second = entries.find((entry) => entry.position === 2)!;
    const firstFan = fans.findIndex((fan) => fan.id === first.userId);
    const secondFan = fans.findIndex((fan) => fan.id === second.userId);
    const mine = await shop.functions(() => fans[firstFan]!.token).call('getMyDropState', { dropId: drop.id });
    expect(mine.entry).toMatchObject({ status: 'admitted', position: 1 });
    expect(mine.entry!.admission).toMatch(/^v1\./);
    const theirs = await shop.functions(() => fans[secondFan]!.token).call('getMyDropState', { dropId: drop.id });
    expect(theirs).toMatchObject({ entry: { status: 'waiting', position: 2, admission: null }, nowServing: 1, ahead: 0 });
    expect(theirs.estimatedWaitSeconds).toBeGreaterThan(0);
    const left = await shop.functions(() => fans[firstFan]!.token).call('leaveDrop', { dropId: drop.id });
    expect(left.entry!.status).toBe('left');
    expect((await entriesOf(drop.id)).find((entry) => entry.number === second.number)!.status).toBe('admitted');
  });

  it('ends an admission at its window and admits the next fan', async () => {
    const t = await tee(1);
    const drop = await scheduled([t.variantId], { checkoutWindowSeconds: 60 });
    await openQueue(drop.id);
    await join(0, drop.id);
    await join(1, drop.id);
    await startNow(drop.id);
    await advanceDrop(queue, drop.id);
    expect((await entriesOf(drop.id)).map((entry) => entry.status).sort()).toEqual(['admitted', 'waiting']);
    const round = await advanceDrop(queue, drop.id, new Date(Date.now() + 61_000));
    expect(round).toMatchObject({ expired: 1, admitted: 1 });
    expect((await entriesOf(drop.id)).map((entry) => entry.status).sort()).toEqual(['admitted', 'expired']);
  });
});

describe('admission times (performance.md, drop limit 4)', () => {
  it('a round that waited for the drop’s row writes the time after the wait, never one before the round ahead of it', async () => {
    const t = await tee(10);
    const drop = await scheduled([t.variantId], { maxAdmitted: 1 });
    await openQueue(drop.id);
    for (let i = 0; i < 3; i += 1) await join(i, drop.id);
    await startNow(drop.id);
    // Another transaction holds the drop's row (a join numbering its entry, a busy instance) for 600 ms.
    const blocker = new pg.Client({ connectionString: shop.database.connectionString });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT id FROM drop WHERE id = $1 FOR UPDATE', [drop.id]);
      const called = Date.now();
      const round = advanceDrop(queue, drop.id);
      await new Promise((resolve) => setTimeout(resolve, 600));
      const released = Date.now();
      await blocker.query('COMMIT');
      expect(await round).toMatchObject({ ran: true, admitted: 1 });
      const [admitted] = (await entriesOf(drop.id)).filter((entry) => entry.status === 'admitted');
      // Before: the time the round was called, 600 ms before it could write anything.
      expect(admitted!.admittedAt!.getTime()).toBeGreaterThanOrEqual(released - 50);
      expect(admitted!.admittedAt!.getTime() - called).toBeGreaterThanOrEqual(550);
    } finally {
      await blocker.end();
    }
  });
});

describe('checkout enforcement (item 5)', () => {
  async function liveDrop(stock: number, limit: number, variantLimit: number | null = null) {
    const t = await tee(stock, variantLimit);
    const drop = await scheduled([t.variantId], { perCustomerLimit: limit });
    await openQueue(drop.id);
    return { t, drop };
  }
  async function admittedFan(dropId: string): Promise<number> {
    await startNow(dropId);
    await advanceDrop(queue, dropId);
    const entry = (await entriesOf(dropId)).find((row) => row.status === 'admitted')!;
    return fans.findIndex((fan) => fan.id === entry.userId);
  }

  it('refuses a drop line without an admission, in a wallet order, a card checkout and a bundle alike', async () => {
    const { t, drop } = await liveDrop(5, 1);
    await join(3, drop.id);
    const refusal = DROP_MESSAGES.admissionNeeded(`Drop Tee ${serial - 1}`);
    expect((await errorOf(walletOrder(fans[3]!.id, t.items(), `no-adm-w-${drop.id}`))).message).toBe(refusal);
    expect((await errorOf(createPaymentLink(deps, fans[4]!.id, { items: t.items(), useWallet: false, contact, shipping, checkoutId: `no-adm-c-${drop.id}` }))).message).toBe(
      refusal,
    );
    const bundleId = await releaseProduct(shop.db, { name: `Drop Bundle ${serial}`, description: 'Bundle', priceCents: 4000, images: ['/content/covers/cover-01.svg'] });
    const free = await tee(5);
    await saveBundle(
      shop.db,
      { operator: 'cli' },
      {
        productId: bundleId,
        components: [
          { productId: t.id, variantId: t.variantId, qty: 1 },
          { productId: free.id, variantId: free.variantId, qty: 1 },
        ],
      },
    );
    const bundle = await getProduct(shop.db, bundleId, { includeInactive: false });
    const bundleItems = [{ id: bundleId, variantId: bundle.variants[0]!.id, qty: 1 }];
    const bundleRefusal = await errorOf(walletOrder(fans[5]!.id, bundleItems, `no-adm-b-${drop.id}`));
    expect(bundleRefusal.message).toMatch(/is in a drop: join the drop's queue/);
    expect((await shop.db.select().from(productVariants).where(eq(productVariants.id, t.variantId)))[0]!.stock).toBe(5);
  });

  it('sells once against an admission: the entry is bought in the order, a second use and a pass over the limit are refused', async () => {
    // 3 units at 2 each: one admission.
    const { t, drop } = await liveDrop(3, 2);
    await Promise.all([join(6, drop.id), join(7, drop.id)]);
    const fan = await admittedFan(drop.id);
    const over = await walletOrder(fans[fan]!.id, t.items(3), `over-${drop.id}`).catch((error: Error) => error);
    expect(over instanceof Error ? over.message : JSON.stringify(over)).toBe(DROP_MESSAGES.overDropLimit(2));
    const [a, b] = await Promise.allSettled([walletOrder(fans[fan]!.id, t.items(2), `once-a-${drop.id}`), walletOrder(fans[fan]!.id, t.items(1), `once-b-${drop.id}`)]);
    const made = [a, b].filter((outcome) => outcome.status === 'fulfilled');
    expect(made.length).toBe(1);
    const refused = [a, b].find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
    expect((refused.reason as Error).message).toBe(DROP_MESSAGES.admissionUsed);
    const entry = (await entriesOf(drop.id)).find((row) => row.userId === fans[fan]!.id)!;
    expect(entry).toMatchObject({ status: 'bought', orderId: (made[0] as PromiseFulfilledResult<{ orderId: string }>).value.orderId });
    expect(entry.unitsBought).toBeGreaterThan(0);
    // The fan still waiting has no admission: someone else's is not theirs.
    const other = fan === 6 ? 7 : 6;
    expect((await errorOf(walletOrder(fans[other]!.id, t.items(), `other-${drop.id}`))).message).toBe(DROP_MESSAGES.admissionNeeded(`Drop Tee ${serial - 1}`));
  });

  it('the stricter of the drop limit and the variant limit applies', async () => {
    const { t, drop } = await liveDrop(10, 3, 1);
    await join(8, drop.id);
    const fan = await admittedFan(drop.id);
    const refused = await errorOf(walletOrder(fans[fan]!.id, t.items(2), `strict-${drop.id}`));
    expect(refused.message).toMatch(/limit|per customer/i);
  });

  it('a card checkout holds until the admission ends at the latest, a declined payment may retry, and the payment uses the admission', async () => {
    const { t, drop } = await liveDrop(5, 1);
    await join(9, drop.id);
    const fan = await admittedFan(drop.id);
    const entry = (await entriesOf(drop.id)).find((row) => row.userId === fans[fan]!.id)!;
    const first = await createPaymentLink(deps, fans[fan]!.id, { items: t.items(), useWallet: false, contact, shipping, checkoutId: `card1-${drop.id}` });
    const held = await shop.db.execute<{ expires_at: Date }>(sql`SELECT expires_at FROM checkout WHERE id = ${first.checkoutId}`);
    expect(new Date(held.rows[0]!.expires_at).getTime()).toBeLessThanOrEqual(entry.expiresAt!.getTime());
    await applyPaymentEvent(deps, { eventId: `evt-fail-${drop.id}`, type: 'failed', checkoutId: first.checkoutId, sessionId: null, paymentIntentId: null, amountCents: null });
    expect((await entriesOf(drop.id)).find((row) => row.userId === fans[fan]!.id)!.status).toBe('admitted');
    const second = await createPaymentLink(deps, fans[fan]!.id, { items: t.items(), useWallet: false, contact, shipping, checkoutId: `card2-${drop.id}` });
    expect(
      await applyPaymentEvent(deps, {
        eventId: `evt-ok-${drop.id}`,
        type: 'succeeded',
        checkoutId: second.checkoutId,
        sessionId: null,
        paymentIntentId: `pi_${drop.id}`,
        amountCents: null,
      }),
    ).toBe('applied');
    const orders = await shop.db.execute<{ id: string }>(sql`SELECT id FROM "order" WHERE checkout_id = ${second.checkoutId}`);
    expect(orders.rows).toHaveLength(1);
    // The entry names the order itself, not the checkout (the drop model found an entry pointing at no order).
    const bought = (await entriesOf(drop.id)).find((row) => row.userId === fans[fan]!.id)!;
    expect(bought).toMatchObject({ status: 'bought', unitsBought: 1, checkoutId: second.checkoutId, orderId: orders.rows[0]!.id });
  });
});

describe('sold out, the waitlist and the report (items 6 and 8)', () => {
  it('closes the queue at once when nothing is left, offers a unit that comes back to the waitlist in order, and reports', async () => {
    const t = await tee(1);
    const drop = await scheduled([t.variantId]);
    await openQueue(drop.id);
    for (const i of [10, 11, 12]) await join(i, drop.id);
    await startNow(drop.id);
    await advanceDrop(queue, drop.id);
    const admittedId = (await entriesOf(drop.id)).find((row) => row.status === 'admitted')!.userId;
    const buyer = fans.findIndex((fan) => fan.id === admittedId);
    await walletOrder(fans[buyer]!.id, t.items(), `sell-out-${drop.id}`);
    const heard = await listen();
    const round = await advanceDrop(queue, drop.id);
    expect(round).toMatchObject({ soldOut: true, status: 'sold-out' });
    expect((await entriesOf(drop.id)).map((row) => row.status).sort()).toEqual(['bought', 'closed', 'closed']);
    const events = (await heard.stop()).filter((event) => event.id === drop.id);
    expect(events).toEqual([{ topic: 'drop', id: drop.id, nowServing: 1, status: 'sold-out', seed: expect.any(String), preQueueCount: 3 }]);

    // Two who missed join the waitlist; a restock of one unit goes to the first of them.
    const missed = [10, 11, 12].filter((i) => i !== buyer);
    await joinWaitlist(shop.db, fans[missed[0]!]!.id, t.variantId);
    await joinWaitlist(shop.db, fans[missed[1]!]!.id, t.variantId);
    await shop.db.update(productVariants).set({ stock: 1 }).where(eq(productVariants.id, t.variantId));
    expect(await offerReturnedUnits({ db: shop.db, jobs, publicUrl: shop.baseUrl, secret: shop.config.AUTH_SECRET })).toBe(1);
    const list = await shop.db.select().from(variantWaitlist).where(eq(variantWaitlist.variantId, t.variantId)).orderBy(variantWaitlist.seq);
    expect(list.map((row) => row.status)).toEqual(['offered', 'waiting']);
    const mail = await shop.db.execute<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'send-email' AND data->>'to' = ${fans[missed[0]!]!.email} AND data->>'subject' LIKE '%kept for you%'`,
    );
    expect(mail.rows[0]!.n).toBe(1);
    // The second fan may not take the offered unit; the first may.
    expect((await errorOf(walletOrder(fans[missed[1]!]!.id, t.items(), `wl-b-${drop.id}`))).message).toBe(DROP_MESSAGES.waitlistOnly(`Drop Tee ${serial - 1}`));
    await walletOrder(fans[missed[0]!]!.id, t.items(), `wl-a-${drop.id}`);
    expect((await shop.db.select().from(variantWaitlist).where(eq(variantWaitlist.variantId, t.variantId)).orderBy(variantWaitlist.seq)).map((row) => row.status)).toEqual([
      'bought',
      'waiting',
    ]);

    const demand = await asAdmin().call('getWaitingDemand', null);
    expect(demand.variants.find((row) => row.variantId === t.variantId)).toMatchObject({ waiting: 1, offered: 0 });

    const report = await asAdmin().call('getDropReport', { dropId: drop.id });
    expect(report).toMatchObject({
      entrants: 3,
      admitted: 1,
      bought: 1,
      unitsSold: 1,
      unitsPerBuyer: [{ units: 1, buyers: 1 }],
      seedMatchesCommitment: true,
      inOrderShare: 1,
      admissionsOutOfOrder: 0,
    });
    expect(report.secondsToSoldOut).not.toBeNull();
    const csv = await asAdmin().call('getDropReportCsv', { dropId: drop.id });
    expect(csv.csv).toContain('entrants,3\n');
    expect(csv.csv).toContain(`seed,${(await dropRow(drop.id)).seed}\n`);
  });
});
