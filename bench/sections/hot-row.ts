import type { Quote } from '@storefront/domain/pricing.ts';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { AppServer } from '../lib/app-server.ts';
import { shopCli } from '../lib/cli.ts';
import { ADMIN, callFunction, SHOPPER, signIn } from '../lib/client.ts';
import { connect, queryRows } from '../lib/db.ts';
import { figure, round, type Figure } from '../lib/figures.ts';
import { runLoad, type LoadResult } from '../lib/load.ts';
import { recordWalletOrders, replayWalletOrders } from '../lib/order-replay.ts';
import { countCheckoutRoundTrips } from '../lib/round-trips.ts';

/**
 * The hot row of issues 15 and 23 (decisions 027, 044): 50 buyers at once on the same limited variant,
 * every order taking its unit with one conditional UPDATE on that variant's row. Measured
 * next to the bare SQL of that update alone at the same concurrency (the row's own
 * ceiling), and then sold out: a limited run, many more buyers than units.
 */
const CONNECTIONS = 50;
/** Enough units that the timed run never sells out (it measures contention, not refusals). */
const TIMED_STOCK = 1_000_000;
const PROBE_STOCK = 100;
const PROBE_ATTEMPTS = 400;
/** Turns of the orders / unlimited / GET /api/me runs; each ratio is the median of the turns' (issue 35). */
const TURNS = 3;

const contact = { name: 'Bench Buyer', email: 'shopper@example.com', phone: '' };
const BUYER_PASSWORD = 'drop buyer pass';

/**
 * A crowd of buyers, one per connection, each with ample credit: in a drop, hundreds of fans
 * buy the same variant, so the variant's row is the hot row (one buyer would make their own
 * wallet row a second one). Signed up through the shop, verified and credited in the database.
 */
async function dropBuyers(app: AppServer, count: number, runId: string): Promise<string[]> {
  for (let i = 0; i < count; i += 1) {
    await callFunction(app.base, 'createAccount', {
      email: `drop-${runId}-${i}@example.com`,
      username: `drop${runId}${i}`,
      name: `Drop Buyer ${i}`,
      password: BUYER_PASSWORD,
      confirmPassword: BUYER_PASSWORD,
      acceptedTerms: true,
    });
  }
  const db = await connect(app.databaseUrl);
  try {
    const pattern = `drop-${runId}-%@example.com`;
    await db.query(`UPDATE "user" SET email_verified = true WHERE email LIKE $1`, [pattern]);
    await db.query(
      `INSERT INTO wallet (user_id, balance_cents) SELECT id, 5000000 FROM "user" WHERE email LIKE $1
       ON CONFLICT (user_id) DO UPDATE SET balance_cents = wallet.balance_cents + 5000000`,
      [pattern],
    );
    await db.query(`INSERT INTO ledger_entry (user_id, kind, available_delta_cents, reference) SELECT id, 'grant', 5000000, 'bench-drop-' || id FROM "user" WHERE email LIKE $1`, [
      pattern,
    ]);
  } finally {
    await db.end();
  }
  const tokens: string[] = [];
  for (let i = 0; i < count; i += 1) tokens.push(await signIn(app.base, `drop-${runId}-${i}@example.com`, BUYER_PASSWORD));
  return tokens;
}
const shipping = { name: 'Bench Buyer', line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };

/**
 * The bare conditional update of the same row from `connections` pooled connections, as fast as
 * they go; with `notify`, each update's transaction also calls pg_notify (as every order's did
 * before decision 067), on a channel nobody listens to: the commit still takes the global lock.
 */
async function bareUpdates(databaseUrl: string, variantId: string, connections: number, seconds: number, notify = false): Promise<{ perSecond: number; updates: number }> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: connections });
  try {
    // Open every connection first: the timed part measures updates, not connects.
    const clients = await Promise.all(Array.from({ length: connections }, () => pool.connect()));
    const until = Date.now() + seconds * 1000;
    const started = process.hrtime.bigint();
    const counts = await Promise.all(
      clients.map(async (client) => {
        let n = 0;
        while (Date.now() < until) {
          const result = await client.query({
            name: notify ? 'hot_take_notify' : 'hot_take',
            text: `UPDATE product_variant SET stock = stock - 1, updated_at = now() WHERE id = $1 AND stock >= 1${notify ? ` RETURNING pg_notify('storefront_bench', id)` : ''}`,
            values: [variantId],
          });
          n += result.rowCount ?? 0;
        }
        client.release();
        return n;
      }),
    );
    const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
    const updates = counts.reduce((a, b) => a + b, 0);
    return { perSecond: updates / elapsed, updates };
  } finally {
    await pool.end();
  }
}

async function userIdOf(databaseUrl: string, email: string): Promise<string> {
  const db = await connect(databaseUrl);
  try {
    const [row] = await queryRows<{ id: string }>(db, 'SELECT id FROM "user" WHERE email = $1', [email]);
    return row!.id;
  } finally {
    await db.end();
  }
}

/** What the database says of a variant after a run: stock, held, units in orders. */
async function variantLedger(databaseUrl: string, variantId: string) {
  const db = await connect(databaseUrl);
  try {
    const [row] = await queryRows<{ stock: number; held: number; sold: string; orders: string }>(
      db,
      `SELECT v.stock, v.held,
              (SELECT coalesce(sum(qty), 0) FROM order_item WHERE variant_id = v.id)::bigint AS sold,
              (SELECT count(DISTINCT order_id) FROM order_item WHERE variant_id = v.id)::bigint AS orders
       FROM product_variant v WHERE v.id = $1`,
      [variantId],
    );
    return { stock: row!.stock, held: row!.held, sold: Number(row!.sold), orders: Number(row!.orders) };
  } finally {
    await db.end();
  }
}

async function releaseLimited(base: string, adminToken: string, name: string, stock: number): Promise<{ productId: string; variantId: string }> {
  const { id } = await callFunction<{ id: string }>(
    base,
    'releaseBizarreProduct',
    {
      name,
      description: 'A limited pressing for the hot-row bench.',
      priceCents: 2500,
      images: ['/content/covers/cover-01.svg'],
      options: [{ name: 'Edition', values: ['Numbered'] }],
      variants: [{ options: ['Numbered'], sku: 'HOT-1', priceCents: null, stock }],
    },
    adminToken,
  );
  const { products } = await callFunction<{ products: { id: string; variants: { id: string }[] }[] }>(base, 'listAllProducts', null, adminToken);
  return { productId: id, variantId: products.find((product) => product.id === id)!.variants[0]!.id };
}

export async function benchHotRow(app: AppServer, options: { durationSeconds: number; warmupSeconds: number }) {
  const figures: Figure[] = [];
  const runId = randomBytes(4).toString('hex');
  const adminToken = await signIn(app.base, ADMIN.email, ADMIN.password);
  const shopperToken = await signIn(app.base, SHOPPER.email, SHOPPER.password);
  await shopCli(app, ['grant-credits', SHOPPER.email, '5000000']);

  // 1. Orders/s on one limited variant, every order taking a unit from the same row.
  const timed = await releaseLimited(app.base, adminToken, `Hot Row Pressing ${runId}`, TIMED_STOCK);
  const items = [{ id: timed.productId, variantId: timed.variantId, qty: 1 }];
  const quote = await callFunction<Quote>(app.base, 'quoteCheckout', { items, useWallet: true }, shopperToken);
  const reviewed = {
    subtotalCents: quote.subtotalCents,
    shippingCents: quote.shippingCents,
    taxCents: quote.taxCents,
    walletAppliedCents: quote.walletAppliedCents,
    totalCents: quote.totalCents,
  };
  const body = (prefix: string, its: unknown) => JSON.stringify({ data: { items: its, contact, shipping, quote: reviewed, checkoutId: `${prefix}-${runId}-__SEQ__` } });
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${shopperToken}` };
  const crowd = { name: 'authorization', values: (await dropBuyers(app, CONNECTIONS, runId)).map((token) => `Bearer ${token}`) };
  // 1b. The same orders of a product without stock (unlimited): what the stock row adds.
  const { id: unlimitedId } = await callFunction<{ id: string }>(
    app.base,
    'releaseBizarreProduct',
    { name: `Hot Row Unlimited ${runId}`, description: 'Print on demand.', priceCents: 2500, images: ['/content/covers/cover-01.svg'] },
    adminToken,
  );
  // 1d. The bare SQL of the same work: each buyer's unlimited order as the flow sends it,
  // recorded once and sent again from plain clients (bench/lib/order-replay.ts).
  const buyerIds = (
    await (async () => {
      const db = await connect(app.databaseUrl);
      try {
        return await queryRows<{ id: string; email: string }>(db, `SELECT id, email FROM "user" WHERE email LIKE $1`, [`drop-${runId}-%@example.com`]);
      } finally {
        await db.end();
      }
    })()
  )
    .sort((a, b) => a.email.localeCompare(b.email, 'en', { numeric: true }))
    .map((row) => row.id);
  const recordedOrders = await recordWalletOrders(app.databaseUrl, { userIds: buyerIds, publicUrl: app.base, items: [{ id: unlimitedId, qty: 1 }], runId });
  // Three turns of the four runs, interleaved (issue 35: the machine is shared and noisy, so
  // the ratios are taken within a turn and their median reported).
  const turns: { orders: LoadResult; unlimited: LoadResult; signedIn: LoadResult; bareOrders: Awaited<ReturnType<typeof replayWalletOrders>> }[] = [];
  for (let turn = 0; turn < TURNS; turn += 1) {
    const orders = await runLoad({
      url: `${app.base}/fn/completeWalletOnlyOrderStreetFlavor`,
      method: 'POST',
      headers,
      headerRotation: crowd,
      bodyTemplate: body(`hot${turn}`, items),
      connections: CONNECTIONS,
      durationSeconds: options.durationSeconds,
      warmupSeconds: options.warmupSeconds,
    });
    const unlimited = await runLoad({
      url: `${app.base}/fn/completeWalletOnlyOrderStreetFlavor`,
      method: 'POST',
      headers,
      headerRotation: crowd,
      bodyTemplate: body(`unlimited${turn}`, [{ id: unlimitedId, qty: 1 }]),
      connections: CONNECTIONS,
      durationSeconds: options.durationSeconds,
      ...(turn === 0 ? { warmupSeconds: options.warmupSeconds } : {}),
    });
    // 1c. The cheapest signed-in call (GET /api/me: the HTTP request and the session check an
    // order also makes, nothing else), by the same crowd: the floor under any order's cost.
    const signedIn = await runLoad({
      url: `${app.base}/api/me`,
      method: 'GET',
      headers: { authorization: `Bearer ${shopperToken}` },
      headerRotation: crowd,
      connections: CONNECTIONS,
      durationSeconds: options.durationSeconds,
    });
    const bareOrders = await replayWalletOrders(app.databaseUrl, recordedOrders, { connections: CONNECTIONS, durationSeconds: options.durationSeconds, runId: `${runId}t${turn}` });
    turns.push({ orders, unlimited, signedIn, bareOrders });
  }
  const middle = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const orderRun = turns.find((turn) => turn.orders.okPerSecond === middle(turns.map((t) => t.orders.okPerSecond)))!.orders;
  const unlimitedRun = turns.find((turn) => turn.unlimited.okPerSecond === middle(turns.map((t) => t.unlimited.okPerSecond)))!.unlimited;
  const signedInRun = turns.find((turn) => turn.signedIn.okPerSecond === middle(turns.map((t) => t.signedIn.okPerSecond)))!.signedIn;
  const lockCosts = turns.map((turn) => turn.orders.okPerSecond / turn.unlimited.okPerSecond);
  const orderVsSignedIn = turns.map((turn) => turn.unlimited.okPerSecond / turn.signedIn.okPerSecond);
  const orderVsBareSql = turns.map((turn) => turn.unlimited.okPerSecond / turn.bareOrders.perSecond);
  const bareSqlVsSignedIn = turns.map((turn) => turn.bareOrders.perSecond / turn.signedIn.okPerSecond);
  const bareRun = turns.find((turn) => turn.bareOrders.perSecond === middle(turns.map((t) => t.bareOrders.perSecond)))!.bareOrders;
  const bareSent = turns.reduce((sum, turn) => sum + turn.bareOrders.orders, 0);
  const bareErrors = turns.reduce((sum, turn) => sum + turn.bareOrders.errors, 0);
  const bareMade = await (async () => {
    const db = await connect(app.databaseUrl);
    try {
      const [row] = await queryRows<{ made: string }>(db, `SELECT count(*)::bigint AS made FROM "order" WHERE checkout_id LIKE $1`, [`%:replay-a-${runId}-%-x%`]);
      return Number(row!.made);
    } finally {
      await db.end();
    }
  })();
  const afterTimed = await variantLedger(app.databaseUrl, timed.variantId);
  const timedOversold = afterTimed.stock + afterTimed.held + afterTimed.sold - TIMED_STOCK;

  // 2. The bare conditional UPDATE of the same row at the same concurrency, without and with a pg_notify in its transaction.
  const bare = await bareUpdates(app.databaseUrl, timed.variantId, CONNECTIONS, options.durationSeconds);
  const bareNotify = await bareUpdates(app.databaseUrl, timed.variantId, CONNECTIONS, options.durationSeconds, true);

  // 2b. What one wallet-only order and one card checkout send to PostgreSQL.
  const shopperId = await userIdOf(app.databaseUrl, SHOPPER.email);
  const trips = await countCheckoutRoundTrips(app.databaseUrl, { userId: shopperId, publicUrl: app.base, items, runId });

  // 3. Sold out: PROBE_STOCK units, PROBE_ATTEMPTS orders at once.
  const probe = await releaseLimited(app.base, adminToken, `Hot Row Drop ${runId}`, PROBE_STOCK);
  const probeItems = [{ id: probe.productId, variantId: probe.variantId, qty: 1 }];
  const probeRun = await runLoad({
    url: `${app.base}/fn/completeWalletOnlyOrderStreetFlavor`,
    method: 'POST',
    headers,
    bodyTemplate: body('drop', probeItems),
    connections: CONNECTIONS,
    durationSeconds: 60,
    amount: PROBE_ATTEMPTS,
  });
  const afterProbe = await variantLedger(app.databaseUrl, probe.variantId);
  const probeOk = afterProbe.orders === PROBE_STOCK && afterProbe.stock === 0 && afterProbe.held === 0 && probeRun.ok === PROBE_STOCK;

  const failed = orderRun.requests - orderRun.ok;
  figures.push(
    figure(
      'hotrow.ordersPerSecond',
      `wallet-only orders/s, ${CONNECTIONS} buyers on one limited variant`,
      round(orderRun.okPerSecond, 0),
      'orders/s',
      undefined,
      failed > 0 ? `${failed} non-2xx answers` : undefined,
    ),
    figure('hotrow.p99', 'hot-row order: p99', orderRun.latencyMs.p99, 'ms'),
    figure('hotrow.unlimitedOrdersPerSecond', `the same orders of an unlimited product, ${CONNECTIONS} connections`, round(unlimitedRun.okPerSecond, 0), 'orders/s'),
    figure('hotrow.bareUpdatesPerSecond', `bare SQL conditional UPDATE of the same row, ${CONNECTIONS} connections`, round(bare.perSecond, 0), 'updates/s'),
    figure('hotrow.ratio', 'hot-row orders/s / bare updates/s', round(orderRun.okPerSecond / bare.perSecond, 3), '', { op: '>=', value: 0.5 }),
    // The ceiling of the ratio above: the same orders with no stock row at all. When this is
    // itself far below 0.5, an order's own work (HTTP, session, pricing, its statements), not
    // the hot row's lock, is what bounds a drop.
    figure('hotrow.unlimitedRatio', 'unlimited-product orders/s / bare updates/s (the ceiling of the ratio above)', round(unlimitedRun.okPerSecond / bare.perSecond, 3), ''),
    figure(
      'hotrow.signedInRatio',
      'signed-in GET /api/me/s / bare updates/s (an HTTP call with its session check and nothing else: no order can beat it)',
      round(signedInRun.okPerSecond / bare.perSecond, 3),
      '',
      undefined,
      `${round(signedInRun.okPerSecond, 0)} calls/s`,
    ),
    figure(
      'hotrow.lockCost',
      `hot-row orders/s / unlimited-product orders/s (what the hot row costs), median of ${TURNS} turns`,
      round(middle(lockCosts), 3),
      '',
      { op: '>=', value: 0.95 },
      `turns: ${lockCosts.map((ratio) => round(ratio, 3)).join(', ')}`,
    ),
    figure(
      'hotrow.orderVsSignedIn',
      `unlimited-product wallet-only orders/s / signed-in GET /api/me/s, median of ${TURNS} turns`,
      round(middle(orderVsSignedIn), 3),
      '',
      { op: '>=', value: 0.7 },
      `turns: ${orderVsSignedIn.map((ratio) => round(ratio, 3)).join(', ')}`,
    ),
    figure(
      'hotrow.bareSqlOrdersPerSecond',
      `the bare SQL of the same unlimited wallet-only orders (the flow's statements recorded, sent again from ${CONNECTIONS} plain clients), median of ${TURNS} turns`,
      round(bareRun.perSecond, 0),
      'orders/s',
      undefined,
      `${bareSent} sent, ${bareMade} of them in the database${bareErrors > 0 ? `, ${bareErrors} failed (${turns.find((turn) => turn.bareOrders.firstError)?.bareOrders.firstError})` : ''}`,
    ),
    figure(
      'hotrow.orderVsBareSql',
      `unlimited-product wallet-only orders/s / the bare SQL of the same orders/s (what HTTP, the session and the shop's JavaScript add), median of ${TURNS} turns`,
      round(middle(orderVsBareSql), 3),
      '',
      undefined,
      `turns: ${orderVsBareSql.map((ratio) => round(ratio, 3)).join(', ')}`,
    ),
    figure(
      'hotrow.bareSqlVsSignedIn',
      `the bare SQL of the same orders/s / signed-in GET /api/me/s (the ceiling of orderVsSignedIn for a server sending these statements), median of ${TURNS} turns`,
      round(middle(bareSqlVsSignedIn), 3),
      '',
      undefined,
      `turns: ${bareSqlVsSignedIn.map((ratio) => round(ratio, 3)).join(', ')}`,
    ),
    figure(
      'hotrow.bareNotifyUpdatesPerSecond',
      `bare SQL conditional UPDATE of the same row with a pg_notify in its transaction, ${CONNECTIONS} connections`,
      round(bareNotify.perSecond, 0),
      'updates/s',
      undefined,
      `${round(bareNotify.perSecond / bare.perSecond, 3)}x the update alone`,
    ),
    figure(
      'hotrow.walletOrderRoundTrips',
      'one wallet-only order: round trips to PostgreSQL (statements)',
      trips.walletOrder.roundTrips,
      'round trips',
      undefined,
      `${trips.walletOrder.statements} statements`,
    ),
    figure(
      'hotrow.cardCheckoutRoundTrips',
      'one card checkout: round trips to PostgreSQL (statements)',
      trips.cardCheckout.roundTrips,
      'round trips',
      undefined,
      `${trips.cardCheckout.statements} statements`,
    ),
    figure(
      'hotrow.oversold',
      'units sold beyond the stock (stock + held + sold - received)',
      timedOversold,
      'units',
      { op: '=', value: 0 },
      `${afterTimed.sold} sold in ${afterTimed.orders} orders`,
    ),
    figure(
      'hotrow.dropProbe',
      `drop: ${PROBE_STOCK} units, ${PROBE_ATTEMPTS} orders at once`,
      `${afterProbe.orders} orders, stock ${afterProbe.stock}, held ${afterProbe.held}`,
      '',
      { op: '=', value: `${PROBE_STOCK} orders, stock 0, held 0` },
      probeOk ? undefined : `${probeRun.ok} 2xx answers`,
    ),
  );
  return {
    figures,
    runs: { turns, orders: orderRun, unlimited: unlimitedRun, signedIn: signedInRun, bare, bareNotify, probe: probeRun },
    roundTrips: trips,
    variants: { timed: afterTimed, probe: afterProbe },
  };
}
