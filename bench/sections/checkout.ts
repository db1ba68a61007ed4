import type { Quote } from '@storefront/domain/pricing.ts';
import { randomBytes } from 'node:crypto';
import type { AppServer } from '../lib/app-server.ts';
import { shopCli } from '../lib/cli.ts';
import { ADMIN, callFunction, SHOPPER, signIn } from '../lib/client.ts';
import { connect, queryRows } from '../lib/db.ts';
import { figure, round, type Figure } from '../lib/figures.ts';
import { runLoad } from '../lib/load.ts';
import { centsToDecimal } from '@storefront/domain/money.ts';

const CONNECTIONS = 50;
/** The overspend probe: credit for exactly this many orders, many more attempts at once. */
const PROBE_AFFORDABLE = 25;
const PROBE_ATTEMPTS = 200;

const contact = { name: 'Bench Buyer', email: 'shopper@example.com', phone: '' };
const shipping = { name: 'Bench Buyer', line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };

function usd(cents: number): string {
  return centsToDecimal(cents);
}

/** The correctness check of the concurrency tests: ledger sums equal balances, none negative. */
async function ledgerCheck(databaseUrl: string, userIds: string[], since: Date) {
  const db = await connect(databaseUrl);
  try {
    const wallets = await queryRows<{ user_id: string; balance_cents: string; held_cents: string; available_sum: string; held_sum: string }>(
      db,
      `SELECT w.user_id, w.balance_cents, w.held_cents,
              COALESCE(SUM(l.available_delta_cents), 0)::bigint AS available_sum,
              COALESCE(SUM(l.held_delta_cents), 0)::bigint AS held_sum
       FROM wallet w LEFT JOIN ledger_entry l ON l.user_id = w.user_id
       WHERE w.user_id = ANY($1)
       GROUP BY w.user_id, w.balance_cents, w.held_cents`,
      [userIds],
    );
    const inconsistent = wallets.filter((w) => w.available_sum !== w.balance_cents || w.held_sum !== w.held_cents || Number(w.balance_cents) < 0).length;
    // Overspend: debits that no order accounts for, or orders that took more than they debited.
    const perUser = await queryRows<{ user_id: string; orders: string; order_cents: string; debit_cents: string; balance_cents: string }>(
      db,
      `SELECT u.id AS user_id,
              (SELECT count(*) FROM "order" o WHERE o.user_id = u.id AND o.created_at >= $2)::bigint AS orders,
              (SELECT COALESCE(SUM(o.wallet_applied_cents), 0) FROM "order" o WHERE o.user_id = u.id AND o.created_at >= $2)::bigint AS order_cents,
              (SELECT COALESCE(-SUM(l.available_delta_cents), 0) FROM ledger_entry l WHERE l.user_id = u.id AND l.kind = 'debit' AND l.created_at >= $2)::bigint AS debit_cents,
              (SELECT balance_cents FROM wallet w WHERE w.user_id = u.id) AS balance_cents
       FROM "user" u WHERE u.id = ANY($1)`,
      [userIds, since],
    );
    return { inconsistent, perUser };
  } finally {
    await db.end();
  }
}

export async function benchCheckout(app: AppServer, productId: string, options: { durationSeconds: number; warmupSeconds: number }) {
  const figures: Figure[] = [];
  const shopperToken = await signIn(app.base, SHOPPER.email, SHOPPER.password);
  const items = [{ id: productId, qty: 1 }];
  const auth = { 'content-type': 'application/json', authorization: `Bearer ${shopperToken}` };

  // Enough credit for every order the run can make, granted through the ledger.
  await shopCli(app, ['grant-credits', SHOPPER.email, '5000000']);
  const quote = await callFunction<Quote>(app.base, 'quoteCheckout', { items, useWallet: true }, shopperToken);
  if (quote.amountDueCents !== 0) throw new Error(`The shopper's wallet does not cover the order: ${JSON.stringify(quote)}`);
  const reviewed = {
    subtotalCents: quote.subtotalCents,
    shippingCents: quote.shippingCents,
    taxCents: quote.taxCents,
    walletAppliedCents: quote.walletAppliedCents,
    totalCents: quote.totalCents,
  };

  const quoteRun = await runLoad({
    url: `${app.base}/fn/quoteCheckout`,
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ data: { items, useWallet: true } }),
    connections: CONNECTIONS,
    durationSeconds: options.durationSeconds,
    warmupSeconds: options.warmupSeconds,
  });
  figures.push(
    figure(
      'checkout.quote.rps',
      `quoteCheckout: req/s at ${CONNECTIONS} connections`,
      round(quoteRun.okPerSecond, 0),
      'req/s',
      undefined,
      quoteRun.requests - quoteRun.ok > 0 ? `${quoteRun.requests - quoteRun.ok} non-2xx` : undefined,
    ),
    figure('checkout.quote.p99', 'quoteCheckout: p99', quoteRun.latencyMs.p99, 'ms'),
  );

  const runId = randomBytes(4).toString('hex');
  const db = await connect(app.databaseUrl);
  const [shopper] = await queryRows<{ id: string }>(db, 'SELECT id FROM "user" WHERE email = $1', [SHOPPER.email]);
  const [admin] = await queryRows<{ id: string }>(db, 'SELECT id FROM "user" WHERE email = $1', [ADMIN.email]);
  const [{ now: since }] = (await queryRows<{ now: Date }>(db, 'SELECT now()')) as [{ now: Date }];
  await db.end();

  const orderBody = (id: string) => JSON.stringify({ data: { items, contact, shipping, quote: reviewed, checkoutId: id } });
  const orderRun = await runLoad({
    url: `${app.base}/fn/completeWalletOnlyOrderStreetFlavor`,
    method: 'POST',
    headers: auth,
    bodyTemplate: orderBody(`bench-${runId}-__SEQ__`),
    connections: CONNECTIONS,
    durationSeconds: options.durationSeconds,
  });

  // The overspend probe: a buyer with credit for exactly PROBE_AFFORDABLE orders sends
  // PROBE_ATTEMPTS at once; exactly PROBE_AFFORDABLE may succeed and the balance end at 0.
  const adminToken = await signIn(app.base, ADMIN.email, ADMIN.password);
  await shopCli(app, ['grant-credits', ADMIN.email, usd(quote.totalCents * PROBE_AFFORDABLE)]);
  const probe = await runLoad({
    url: `${app.base}/fn/completeWalletOnlyOrderStreetFlavor`,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
    bodyTemplate: orderBody(`probe-${runId}-__SEQ__`),
    connections: CONNECTIONS,
    durationSeconds: 30,
    amount: PROBE_ATTEMPTS,
  });

  const check = await ledgerCheck(app.databaseUrl, [shopper!.id, admin!.id], since);
  const buyer = check.perUser.find((row) => row.user_id === shopper!.id)!;
  const prober = check.perUser.find((row) => row.user_id === admin!.id)!;
  const overspendCents = Number(buyer.debit_cents) - Number(buyer.order_cents) + (Number(prober.debit_cents) - Number(prober.order_cents));
  const madeOrders = Number(buyer.orders);
  const probeOk = Number(prober.orders) === PROBE_AFFORDABLE && Number(prober.balance_cents) === 0 && probe.ok === PROBE_AFFORDABLE;
  const failedOrders = orderRun.requests - orderRun.ok;

  figures.push(
    figure(
      'checkout.wallet.ordersPerSecond',
      `wallet-only orders/s at ${CONNECTIONS} connections (one buyer)`,
      round(orderRun.okPerSecond, 0),
      'orders/s',
      { op: '>=', value: 300 },
      failedOrders > 0 ? `${failedOrders} non-2xx answers` : undefined,
    ),
    figure('checkout.wallet.p99', 'wallet-only order: p99', orderRun.latencyMs.p99, 'ms'),
    // Requests still in flight when autocannon stops are answered to nobody but may commit.
    figure(
      'checkout.wallet.ordersMatch',
      'orders in the database match the 2xx answers (+ up to 1 in flight per connection)',
      madeOrders >= orderRun.ok && madeOrders <= orderRun.ok + CONNECTIONS ? 'yes' : 'no',
      '',
      { op: '=', value: 'yes' },
      `${madeOrders} orders, ${orderRun.ok} 2xx answers`,
    ),
    figure('checkout.ledger.inconsistent', 'wallets whose ledger sum differs from the balance, or negative', check.inconsistent, 'wallets', { op: '=', value: 0 }),
    figure('checkout.overspend', 'overspend (debits - wallet amounts of orders)', overspendCents, 'cents', { op: '=', value: 0 }),
    figure(
      'checkout.probe',
      `probe: credit for ${PROBE_AFFORDABLE} orders, ${PROBE_ATTEMPTS} attempts at once`,
      `${prober.orders} orders, balance ${prober.balance_cents} cents`,
      '',
      { op: '=', value: `${PROBE_AFFORDABLE} orders, balance 0 cents` },
      probeOk ? undefined : `${probe.ok} 2xx answers`,
    ),
  );
  return { figures, runs: { quote: quoteRun, orders: orderRun, probe } };
}
