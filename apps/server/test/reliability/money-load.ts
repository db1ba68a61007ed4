import type pg from 'pg';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { releaseProduct } from '../../src/catalog/catalog.service.ts';
import type { Db } from '../../src/db/client.ts';
import { grantCredits } from '../../src/wallet/wallet.commands.ts';
import { testConfig } from '../database.ts';

/**
 * Checkout load for the money tests: many users placing wallet-only orders and card
 * checkouts (local provider) against several server processes at once, with double
 * submissions sent to different processes; then the money invariants of DESIGN.md.
 */
export interface Shopper {
  email: string;
  token: string;
  ip: string;
}

/** A small seeded PRNG (mulberry32): the same seed gives the same load. */
export function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return { next, int: (max: number) => Math.floor(next() * max), chance: (p: number) => next() < p };
}

export async function seedShop(db: Db, users: number, seed: number): Promise<{ emails: string[]; productIds: string[] }> {
  const config = testConfig();
  const rng = random(seed);
  const productIds = [
    await releaseProduct(db, { name: 'Label Tee', description: 'Tee', priceCents: 2500, images: ['/content/covers/cover-01.svg'] }),
    await releaseProduct(db, { name: 'Cap', description: 'Cap', priceCents: 1999, images: ['/content/covers/cover-02.svg'] }),
    await releaseProduct(db, { name: 'Sticker', description: 'Sticker', priceCents: 350, images: ['/content/covers/cover-03.svg'] }),
  ];
  const emails: string[] = [];
  for (let i = 0; i < users; i += 1) {
    const email = `shopper${i}@example.org`;
    await createAccount(
      db,
      config,
      { email, username: `shopper${i}`, name: `Shopper ${i}`, password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true },
      { emailVerified: true },
    );
    await grantCredits(db, email, String(80 + rng.int(200)), `seed-grant-${i}`);
    emails.push(email);
  }
  return { emails, productIds };
}

/**
 * Signs each shopper in (one address each: the sign-in limit is per address). This process
 * plays the shoppers' reverse proxy: the servers must trust it (TRUSTED_PROXIES=127.0.0.1).
 */
export async function signInAll(base: string, origin: string, emails: string[]): Promise<Shopper[]> {
  const shoppers: Shopper[] = [];
  for (const [i, email] of emails.entries()) {
    const ip = `198.18.${Math.floor(i / 250)}.${(i % 250) + 1}`;
    const response = await fetch(`${base}/api/auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin, 'x-forwarded-for': ip },
      body: JSON.stringify({ email, password: 'pass words' }),
    });
    if (!response.ok) throw new Error(`sign-in of ${email} failed: ${response.status} ${await response.text()}`);
    shoppers.push({ email, token: response.headers.get('set-auth-token')!, ip });
  }
  return shoppers;
}

/** What the clients saw: the promises the shop made, to check against the database. */
export interface Outcomes {
  /** Wallet-only orders answered 200: the order id the client was given. */
  walletOrders: { email: string; orderId: string; checkoutId: string }[];
  /** Card payments whose /pay answered with the success redirect. */
  paidCheckouts: { email: string; checkoutId: string }[];
  /** Card checkouts started (whatever happened next). */
  cardCheckouts: string[];
  /** Answers by status ("network" for a connection that broke). */
  statuses: Record<string, number>;
  /** Answers that no flow allows (a 5xx outside a crash, an unexpected 4xx). */
  unexpected: string[];
}

export function emptyOutcomes(): Outcomes {
  return { walletOrders: [], paidCheckouts: [], cardCheckouts: [], statuses: {}, unexpected: [] };
}

const contact = (email: string) => ({ name: 'Load Shopper', email, phone: '' });
const shipping = { name: 'Load Shopper', line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };

export interface LoadOptions {
  shoppers: Shopper[];
  productIds: string[];
  /** The bases of the servers to spread requests over (read at each request: it may change). */
  bases: () => string[];
  flows: number;
  concurrency: number;
  seed: number;
  outcomes: Outcomes;
  /** Statuses a crash may cause (e.g. 500, 503 and broken connections while a process dies). */
  tolerate?: (status: number | 'network') => boolean;
}

/** Runs `flows` checkout flows, `concurrency` at a time, over the servers `bases` gives. */
export async function runCheckoutLoad(options: LoadOptions): Promise<Outcomes> {
  const { shoppers, productIds, outcomes } = options;
  const rng = random(options.seed);
  const pick = () => {
    const bases = options.bases();
    return bases[rng.int(bases.length)]!;
  };
  const note = (status: number | 'network', what: string, allowed: number[]) => {
    outcomes.statuses[status] = (outcomes.statuses[status] ?? 0) + 1;
    if (typeof status === 'number' && allowed.includes(status)) return;
    if (options.tolerate?.(status)) return;
    outcomes.unexpected.push(`${status} ${what}`);
  };
  const send = async (base: string, path: string, init: RequestInit, what: string, allowed: number[]) => {
    try {
      const response = await fetch(`${base}${path}`, { ...init, redirect: 'manual', signal: AbortSignal.timeout(60_000) });
      const text = await response.text();
      note(response.status, `${what}: ${text.slice(0, 200)}`, allowed);
      return { status: response.status, text, location: response.headers.get('location') ?? '' };
    } catch (error) {
      note('network', `${what}: ${String(error)}`, allowed);
      return null;
    }
  };
  const call = (base: string, shopper: Shopper, name: string, data: unknown, allowed: number[]) =>
    send(
      base,
      `/fn/${name}`,
      { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${shopper.token}` }, body: JSON.stringify({ data }) },
      name,
      allowed,
    );

  async function walletFlow(shopper: Shopper, items: { id: string; qty: number }[], id: string) {
    const quoted = await call(pick(), shopper, 'quoteCheckout', { items, useWallet: true }, [200]);
    if (quoted?.status !== 200) return;
    const quote = (JSON.parse(quoted.text) as { data: Record<string, number> }).data;
    const body = { items, contact: contact(shopper.email), shipping, quote, checkoutId: id };
    // 400 (failed-precondition): the balance or price moved, or it never covered the order;
    // 409 (aborted): a concurrent change to the same wallet won, try again.
    const attempts = rng.chance(0.3) ? [pick(), pick()] : [pick()];
    const answers = await Promise.all(attempts.map((base) => call(base, shopper, 'completeWalletOnlyOrderStreetFlavor', body, [200, 400, 409])));
    for (const answer of answers) {
      if (answer?.status === 200)
        outcomes.walletOrders.push({ email: shopper.email, orderId: (JSON.parse(answer.text) as { data: { orderId: string } }).data.orderId, checkoutId: id });
    }
  }

  async function cardFlow(shopper: Shopper, items: { id: string; qty: number }[], id: string) {
    const useWallet = rng.chance(0.7);
    // 400: the wallet covers it all (so it is not a card order) or the hold could not be taken.
    const link = await call(
      pick(),
      shopper,
      'createPaymentLinkStreetFlavorMerch',
      { items, useWallet, contact: contact(shopper.email), shipping, checkoutId: id },
      [200, 400, 409],
    );
    if (link?.status !== 200) return;
    const { checkoutId, url } = (JSON.parse(link.text) as { data: { checkoutId: string; url: string } }).data;
    outcomes.cardCheckouts.push(checkoutId);
    if (rng.chance(0.15)) return; // abandoned: the hold stays until the checkout expires
    const pay = (base: string, card: string) =>
      send(
        base,
        url,
        { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${shopper.token}` }, body: `card=${card}` },
        'pay',
        [200, 302, 409],
      );
    if (rng.chance(0.2)) await pay(pick(), '4000000000000002');
    const attempts = rng.chance(0.35) ? [pick(), pick()] : [pick()];
    const answers = await Promise.all(attempts.map((base) => pay(base, '4242424242424242')));
    if (answers.some((answer) => answer?.status === 302 && /[?&]redirect_status=succeeded/.test(answer.location))) {
      outcomes.paidCheckouts.push({ email: shopper.email, checkoutId });
    }
  }

  let next = 0;
  const worker = async () => {
    while (next < options.flows) {
      const flow = next++;
      const shopper = shoppers[rng.int(shoppers.length)]!;
      const lines = 1 + rng.int(2);
      const items = productIds
        .slice(rng.int(productIds.length - lines + 1))
        .slice(0, lines)
        .map((id) => ({ id, qty: 1 + rng.int(2) }));
      const id = `load-${options.seed}-${flow}`;
      if (rng.chance(0.5)) await walletFlow(shopper, items, id);
      else await cardFlow(shopper, items, id);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return outcomes;
}

/**
 * The money invariants, checked in the database: every problem found, as a sentence.
 * Ledger sums equal balances and holds, nothing negative, one order per paid checkout
 * and none for others, every hold captured (paid), released (failed or expired) or
 * still held by a pending checkout, and every success a client saw has its order.
 */
export async function moneyProblems(pool: pg.Pool, outcomes: Outcomes): Promise<string[]> {
  const problems: string[] = [];
  const wallets = await pool.query<{ user_id: string; balance: string; held: string; available_sum: string; held_sum: string; pending_holds: string }>(`
    SELECT w.user_id, w.balance_cents AS balance, w.held_cents AS held,
           COALESCE((SELECT sum(available_delta_cents) FROM ledger_entry l WHERE l.user_id = w.user_id), 0) AS available_sum,
           COALESCE((SELECT sum(held_delta_cents) FROM ledger_entry l WHERE l.user_id = w.user_id), 0) AS held_sum,
           COALESCE((SELECT sum(wallet_held_cents) FROM checkout c WHERE c.user_id = w.user_id AND c.status = 'pending'), 0) AS pending_holds
    FROM wallet w`);
  for (const w of wallets.rows) {
    if (Number(w.balance) !== Number(w.available_sum)) problems.push(`wallet ${w.user_id}: balance ${w.balance} but ledger sum ${w.available_sum}`);
    if (Number(w.held) !== Number(w.held_sum)) problems.push(`wallet ${w.user_id}: held ${w.held} but ledger holds sum ${w.held_sum}`);
    if (Number(w.balance) < 0 || Number(w.held) < 0) problems.push(`wallet ${w.user_id}: negative (${w.balance}, ${w.held})`);
    if (Number(w.held) !== Number(w.pending_holds)) problems.push(`wallet ${w.user_id}: held ${w.held} but pending checkouts hold ${w.pending_holds}`);
  }
  const checkouts = await pool.query<{ id: string; status: string; wallet_held_cents: string; orders: number; holds: number; captures: number; releases: number }>(`
    SELECT c.id, c.status, c.wallet_held_cents,
           (SELECT count(*)::int FROM "order" o WHERE o.checkout_id = c.id) AS orders,
           (SELECT count(*)::int FROM ledger_entry l WHERE l.reference = c.id AND l.kind = 'hold') AS holds,
           (SELECT count(*)::int FROM ledger_entry l WHERE l.reference = c.id AND l.kind = 'capture') AS captures,
           (SELECT count(*)::int FROM ledger_entry l WHERE l.reference = c.id AND l.kind = 'release') AS releases
    FROM checkout c`);
  for (const c of checkouts.rows) {
    const held = BigInt(c.wallet_held_cents) > 0n ? 1 : 0;
    const expected =
      c.status === 'paid'
        ? { orders: 1, holds: held, captures: held, releases: 0 }
        : c.status === 'pending'
          ? { orders: 0, holds: held, captures: 0, releases: 0 }
          : { orders: 0, holds: held, captures: 0, releases: held };
    const actual = { orders: c.orders, holds: c.holds, captures: c.captures, releases: c.releases };
    if (JSON.stringify(actual) !== JSON.stringify(expected)) problems.push(`checkout ${c.id} (${c.status}): ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
  }
  // Money columns are bigint since issue 12 (decision 019): node-postgres returns them as strings.
  const debits = await pool.query<{ id: string; total: string; debited: string | null }>(`
    SELECT o.id, o.subtotal_cents + o.shipping_cents + o.tax_cents AS total,
           (SELECT sum(-available_delta_cents) FROM ledger_entry l WHERE l.reference = o.id AND l.kind = 'debit') AS debited
    FROM "order" o WHERE o.payment_intent_id LIKE 'wallet_%'`);
  for (const order of debits.rows) {
    if (BigInt(order.debited ?? 0) !== BigInt(order.total)) problems.push(`wallet order ${order.id}: total ${order.total} but debited ${order.debited}`);
  }
  const orderIds = new Set((await pool.query<{ id: string }>('SELECT id FROM "order"')).rows.map((row) => row.id));
  for (const promised of outcomes.walletOrders)
    if (!orderIds.has(promised.orderId)) problems.push(`wallet order ${promised.orderId} was confirmed to ${promised.email} but is not in the database`);
  const paid = new Map(checkouts.rows.map((c) => [c.id, c]));
  for (const promised of outcomes.paidCheckouts) {
    const checkout = paid.get(promised.checkoutId);
    if (checkout?.status !== 'paid' || checkout.orders !== 1)
      problems.push(`checkout ${promised.checkoutId} was confirmed paid to ${promised.email} but is ${checkout?.status ?? 'missing'} with ${checkout?.orders ?? 0} orders`);
  }
  return problems;
}

/**
 * Refund invariants (decision 028): per order, what each part got back is within what it
 * paid and equals its succeeded refunds; the wallet part of each succeeded refund is one
 * ledger entry of exactly that amount; no refund is left pending.
 */
export async function refundProblems(pool: pg.Pool): Promise<string[]> {
  const problems: string[] = [];
  const orders = await pool.query<{
    id: string;
    wallet_applied_cents: string;
    charged_cents: string;
    refunded_wallet_cents: string;
    refunded_card_cents: string;
    wallet_sum: string;
    card_sum: string;
    pending: number;
  }>(`
    SELECT o.id, o.wallet_applied_cents, o.charged_cents, o.refunded_wallet_cents, o.refunded_card_cents,
           COALESCE((SELECT sum(wallet_cents) FROM order_refund r WHERE r.order_id = o.id AND r.status = 'succeeded'), 0) AS wallet_sum,
           COALESCE((SELECT sum(card_cents) FROM order_refund r WHERE r.order_id = o.id AND r.status = 'succeeded'), 0) AS card_sum,
           (SELECT count(*)::int FROM order_refund r WHERE r.order_id = o.id AND r.status = 'pending') AS pending
    FROM "order" o WHERE EXISTS (SELECT 1 FROM order_refund r WHERE r.order_id = o.id)`);
  for (const o of orders.rows) {
    if (Number(o.refunded_wallet_cents) > Number(o.wallet_applied_cents) || Number(o.refunded_card_cents) > Number(o.charged_cents))
      problems.push(`order ${o.id}: refunded more than paid`);
    if (Number(o.refunded_wallet_cents) !== Number(o.wallet_sum) || Number(o.refunded_card_cents) !== Number(o.card_sum))
      problems.push(`order ${o.id}: refunded (${o.refunded_wallet_cents}, ${o.refunded_card_cents}) but refunds sum (${o.wallet_sum}, ${o.card_sum})`);
    if (o.pending > 0) problems.push(`order ${o.id}: ${o.pending} refunds left pending`);
  }
  // Every refund, whatever its state: its wallet part went back through the ledger once if it was
  // marked so (a succeeded refund with a wallet part always; a pending one whose card round the
  // provider failed later), never otherwise; a refund without a wallet part is never marked, so a
  // later refusal of its card part fails it instead of holding it (decision 034).
  const entries = await pool.query<{ id: string; status: string; wallet_cents: number; wallet_back: boolean; credited: string | null; entries: number }>(`
    SELECT r.id, r.status, r.wallet_cents, r.wallet_refunded_at IS NOT NULL AS wallet_back,
           (SELECT sum(available_delta_cents) FROM ledger_entry l WHERE l.kind = 'refund' AND l.reference = 'refund:' || r.id) AS credited,
           (SELECT count(*)::int FROM ledger_entry l WHERE l.kind = 'refund' AND l.reference = 'refund:' || r.id) AS entries
    FROM order_refund r`);
  for (const r of entries.rows) {
    if (r.status === 'succeeded' && r.wallet_cents > 0 && !r.wallet_back) problems.push(`refund ${r.id}: succeeded but its wallet part is not marked as given back`);
    if (r.wallet_cents === 0 && r.wallet_back) problems.push(`refund ${r.id}: no wallet part, but marked as given back`);
    const expected = r.wallet_cents > 0 && r.wallet_back ? 1 : 0;
    if (r.entries !== expected || Number(r.credited ?? 0) !== (expected ? r.wallet_cents : 0))
      problems.push(`refund ${r.id} (${r.status}): wallet part ${r.wallet_cents} but ${r.entries} ledger entries crediting ${r.credited}`);
  }
  return problems;
}
