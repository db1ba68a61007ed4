import type pg from 'pg';
import type { AppServer } from '../lib/app-server.ts';
import { ADMIN, SHOPPER, signIn } from '../lib/client.ts';
import { connect, queryRows } from '../lib/db.ts';
import { figure, round, type Figure } from '../lib/figures.ts';
import { runLoad, type LoadResult } from '../lib/load.ts';

export interface ScaleOptions {
  products: number;
  orders: number;
  /** Orders of the demo shopper among them (My Orders of a user with many orders). */
  shopperOrders: number;
  users: number;
  connections: number;
  /** The steady load at which p99 is measured, requests per second. */
  rate: number;
  durationSeconds: number;
  warmupSeconds: number;
  /** A short run as fast as the server goes, for its capacity. */
  saturateSeconds: number;
  /** Back-to-back runs of each order desk search's bare SQL, for its p99. */
  bareRuns: number;
}

/**
 * Direct SQL is the practical way to 10,000 products and 1,000,000 orders: one
 * generate_series insert per table, in the shapes the services write. Products get a
 * NOTIFY afterwards, as the catalog service would send, so caches hear of them.
 */
export async function fillDatabase(db: pg.Client, options: ScaleOptions, log: (line: string) => void) {
  await db.query('SET synchronous_commit = off');
  const [{ count: existing }] = (await queryRows<{ count: number }>(db, 'SELECT count(*)::int AS count FROM product')) as [{ count: number }];
  const images = (await queryRows<{ url: string }>(db, 'SELECT DISTINCT url FROM product_image ORDER BY url')).map((row) => row.url);
  const toAdd = Math.max(0, options.products - existing);
  let started = Date.now();
  await db.query('BEGIN');
  await db.query(
    `INSERT INTO product (id, name, description, price_cents, sort_order, is_active, category, created_at, updated_at)
     SELECT 'p_scale_' || i, 'Scale Release ' || lpad(i::text, 5, '0'),
            'A catalogue item made by the benchmark to measure the shop at scale: vinyl, tape or merch number ' || i || '.',
            500 + (i * 37) % 9500, (i % 10), true, (ARRAY['merch', 'music', 'bundles'])[1 + i % 3], now() - (i || ' minutes')::interval, now()
     FROM generate_series(1, $1::int) AS i`,
    [toAdd],
  );
  await db.query(
    `INSERT INTO product_image (product_id, position, url)
     SELECT 'p_scale_' || i, 0, ($2::text[])[1 + i % array_length($2::text[], 1)] FROM generate_series(1, $1::int) AS i`,
    [toAdd, images],
  );
  await db.query(`SELECT pg_notify('storefront_live', '{"topic":"products"}')`);
  await db.query('COMMIT');
  log(`  ${toAdd} products in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  started = Date.now();
  await db.query(
    `INSERT INTO "user" (id, name, email, email_verified, username, username_lower, created_at, updated_at)
     SELECT 'u_scale_' || i, 'Scale Buyer ' || i, 'scale-' || i || '@bench.example', true, 'scalebuyer' || i, 'scalebuyer' || i, now(), now()
     FROM generate_series(1, $1::int) AS i`,
    [options.users],
  );
  const [shopper] = await queryRows<{ id: string }>(db, 'SELECT id FROM "user" WHERE email = $1', [SHOPPER.email]);
  // A bulk load: the orders' secondary indexes (trigram GIN, the list orders) are dropped and
  // built once afterwards, from their own definitions (the migrations'), which is several
  // times faster than maintaining them row by row. Constraint indexes (keys, unique) stay.
  const secondary = await queryRows<{ name: string; definition: string }>(
    db,
    `SELECT indexname AS name, indexdef AS definition FROM pg_indexes
     WHERE schemaname = current_schema() AND tablename IN ('order', 'order_item')
       AND indexname NOT IN (SELECT conname FROM pg_constraint WHERE conrelid IN ('"order"'::regclass, 'order_item'::regclass))`,
  );
  for (const index of secondary) await db.query(`DROP INDEX "${index.name}"`);
  // Order i belongs to the shopper for the first shopperOrders, then to the scale buyers in
  // turn; dates spread over two years; one order in twenty is still open (not fulfilled). The
  // contact and ship-to name and email are buyer n's (one of `users`), the line is product n's,
  // so the order desk's searches by email, name and product find a few hundred orders each.
  await db.query(
    `INSERT INTO "order" (id, user_id, checkout_id, payment_intent_id, subtotal_cents, shipping_cents, tax_cents,
                          wallet_applied_cents, charged_cents, contact, shipping, order_fulfilled, order_status, created_at, fulfilled_at)
     SELECT 'o_scale_' || i,
            CASE WHEN i <= $2 THEN $3 ELSE 'u_scale_' || (1 + i % $4) END,
            'scale:' || i, 'pi_scale_' || i,
            2500, 999, 324, 0, 3823,
            jsonb_build_object('name', 'Scale Buyer ' || (1 + i % $4), 'email', 'scale-' || (1 + i % $4) || '@bench.example', 'phone', ''),
            jsonb_build_object('name', 'Scale Buyer ' || (1 + i % $4), 'line1', '1 Main St', 'line2', '', 'city', 'Springfield', 'state', 'IL', 'postal_code', '62701', 'country', 'US'),
            i % 20 <> 0, CASE WHEN i % 20 <> 0 THEN 'shipped' END,
            now() - ((i * 63) % 63072000 || ' seconds')::interval,
            CASE WHEN i % 20 <> 0 THEN now() END
     FROM generate_series(1, $1::int) AS i`,
    [options.orders, options.shopperOrders, shopper!.id, options.users],
  );
  await db.query(
    `INSERT INTO order_item (order_id, position, product_id, name, qty, unit_cents)
     SELECT 'o_scale_' || i, 0, 'p_scale_' || (1 + i % $2), 'Scale Release ' || lpad((1 + i % $2)::text, 5, '0'), 1, 2500 FROM generate_series(1, $1::int) AS i`,
    [options.orders, Math.max(1, toAdd)],
  );
  log(`  ${options.orders.toLocaleString('en-US')} orders and their items in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  started = Date.now();
  await db.query(`SET maintenance_work_mem = '256MB'`);
  for (const index of secondary) await db.query(index.definition);
  log(`  their ${secondary.length} secondary indexes built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  started = Date.now();
  await db.query('ANALYZE product, product_image, "user", "order", order_item, order_search_term, order_item_term');
  log(`  ANALYZE in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { shopperId: shopper!.id };
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

function nodesOf(node: PlanNode, found: PlanNode[] = []): PlanNode[] {
  found.push(node);
  for (const child of node.Plans ?? []) nodesOf(child, found);
  return found;
}

// The SQL shapes of apps/server/src/orders/order-views.service.ts (listOrdersOf, listOpenOrders
// and `views` for their items), first page and a page further on (keyset cursor).
const ORDER_COLUMNS = `"id", "user_id", "checkout_id", "payment_intent_id", "subtotal_cents", "shipping_cents", "tax_cents", "wallet_applied_cents", "charged_cents", "contact", "shipping", "order_fulfilled", "order_status", "created_at", "fulfilled_at", (extract(epoch from "created_at") * 1000000)::bigint::text`;

/**
 * The order desk's searches (listOrders, issue 16): by order id, buyer email, buyer name and
 * product, each a needle among `orders` orders. The SQL below is what desk.service.ts sends
 * for `{status: 'all', q, limit: 20}` (Drizzle's text, parameters in the same places): the
 * matching terms, the matching lines' orders, the page, then the items of the page: the
 * bare-SQL reference the endpoint's figure is compared to.
 */
export function deskSearches(options: Pick<ScaleOptions, 'orders' | 'users' | 'products'>) {
  const buyer = Math.min(1234, options.users);
  const product = String(Math.min(4242, options.products)).padStart(5, '0');
  return [
    { key: 'orderId', label: 'order id', q: `o_scale_${Math.floor(options.orders / 2) + 7}` },
    { key: 'email', label: 'buyer email', q: `scale-${buyer}@bench.example` },
    { key: 'name', label: 'buyer name', q: `Scale Buyer ${buyer}` },
    { key: 'product', label: 'product', q: `Scale Release ${product}` },
  ];
}

const DESK_TERMS_SQL = `select ARRAY(SELECT "term" FROM "order_search_term" WHERE "term" LIKE $1 LIMIT $2), ARRAY(SELECT "term" FROM "order_item_term" WHERE "term" LIKE $3 LIMIT $4) from (SELECT 1) AS one`;
const DESK_LINE_ORDERS_SQL = `select distinct "order_id" from "order_item" where lower("order_item"."name") = ANY($1::text[]) limit $2`;
const DESK_COLUMNS = `"id", "user_id", "checkout_id", "payment_intent_id", "subtotal_cents", "shipping_cents", "tax_cents", "wallet_applied_cents", "charged_cents", "contact", "shipping", "order_fulfilled", "order_status", "created_at", "fulfilled_at", "refunded_wallet_cents", "refunded_card_cents", "refund_status", "carrier", "tracking_number", (extract(epoch from "created_at") * 1000000)::bigint::text`;
const DESK_BUYER_TEXT = `lower(coalesce("order"."contact"->>'email', '') || ' ' || coalesce("order"."contact"->>'name', '') || ' ' || coalesce("order"."shipping"->>'name', ''))`;
const DESK_ITEMS_SQL = `select "order_id", "position", "product_id", "name", "qty", "unit_cents" from "order_item" where "order_item"."order_id" in (SELECT unnest($1::text[])) order by "order_item"."order_id" asc, "order_item"."position" asc`;

/** The order list statement as desk.service.ts builds it: a term or line condition only when there are any. */
function deskListQuery(q: string, buyers: string[], lineOrders: string[], limit = 21): { text: string; values: unknown[] } {
  const text = q.trim();
  const values: unknown[] = [text, text];
  const conditions = ['"order"."id" = $1', '"order"."payment_intent_id" = $2'];
  if (buyers.length) conditions.push(`${DESK_BUYER_TEXT} = ANY($${values.push(buyers)}::text[])`);
  if (lineOrders.length) conditions.push(`"order"."id" = ANY($${values.push(lineOrders)}::text[])`);
  const limitParam = values.push(limit);
  return { text: `select ${DESK_COLUMNS} from "order" where (${conditions.join(' or ')}) order by "order"."created_at" desc, "order"."id" desc limit $${limitParam}`, values };
}

function likePattern(q: string): string {
  return `%${q
    .trim()
    .toLowerCase()
    .replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The statements of one desk search, as the service sends them (unnamed, so each is planned with its values). */
async function deskSearchStatements(db: pg.Client, q: string) {
  const pattern = likePattern(q);
  const [terms] = (await db.query({ text: DESK_TERMS_SQL, values: [pattern, 1000, pattern, 1000], rowMode: 'array' })).rows as [string[], string[]][];
  const [buyers, lines] = terms!;
  const lineOrders = lines.length ? ((await db.query(DESK_LINE_ORDERS_SQL, [lines, 10_000])).rows as { order_id: string }[]).map((row) => row.order_id) : [];
  return deskListQuery(q, buyers, lineOrders);
}

/** The same statements as the endpoint, back to back on one connection: terms, the lines' orders, the page, its items. */
async function bareDeskSearch(db: pg.Client, q: string): Promise<number> {
  const started = performance.now();
  const list = await deskSearchStatements(db, q);
  const rows = (await db.query(list.text, list.values)).rows as { id: string }[];
  await db.query(DESK_ITEMS_SQL, [rows.slice(0, 20).map((row) => row.id)]);
  return performance.now() - started;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** p50/p99 of the bare SQL of each desk search: `runs` back-to-back runs after a warm-up. */
async function bareDeskFigures(db: pg.Client, searches: ReturnType<typeof deskSearches>, runs: number) {
  const result: Record<string, { p50: number; p99: number; matches: number }> = {};
  for (const search of searches) {
    for (let i = 0; i < 20; i += 1) await bareDeskSearch(db, search.q);
    const times: number[] = [];
    for (let i = 0; i < runs; i += 1) times.push(await bareDeskSearch(db, search.q));
    times.sort((a, b) => a - b);
    const all = await deskSearchStatements(db, search.q);
    const [count] = await queryRows<{ n: number }>(db, `SELECT count(*)::int AS n FROM (${all.text.replace(/ limit \$\d+$/, '')}) AS found`, all.values.slice(0, -1));
    result[search.key] = { p50: round(percentile(times, 50), 2), p99: round(percentile(times, 99), 2), matches: count!.n };
  }
  return result;
}

async function explainQueries(db: pg.Client, shopperId: string, searches: ReturnType<typeof deskSearches>) {
  // Cursors from the middle of each list, as a client paging on would send.
  const [mid] = await queryRows<{ created_at: Date; id: string }>(
    db,
    `SELECT created_at, id FROM "order" WHERE user_id = $1 ORDER BY created_at DESC, id DESC OFFSET (SELECT count(*) / 2 FROM "order" WHERE user_id = $1) LIMIT 1`,
    [shopperId],
  );
  const [openMid] = await queryRows<{ created_at: Date; id: string }>(
    db,
    `SELECT created_at, id FROM "order" WHERE order_fulfilled = false ORDER BY created_at DESC, id DESC OFFSET (SELECT count(*) / 2 FROM "order" WHERE order_fulfilled = false) LIMIT 1`,
  );
  const firstPage = (await queryRows<{ id: string }>(db, `SELECT id FROM "order" WHERE user_id = $1 ORDER BY created_at DESC, id DESC LIMIT 20`, [shopperId])).map((r) => r.id);
  const deskLists = [];
  for (const search of searches) deskLists.push({ search, list: await deskSearchStatements(db, search.q) });
  const list = (where: string) => `SELECT ${ORDER_COLUMNS} FROM "order" WHERE ${where} ORDER BY "order"."created_at" DESC, "order"."id" DESC LIMIT 21`;
  const after = `("order"."created_at", "order"."id") < ($2::timestamptz, $3)`;
  const queries: { name: string; kind: 'order list' | 'order items' | 'desk search' | 'shop'; sql: string; values: unknown[] }[] = [
    { name: 'My Orders, first page', kind: 'order list', sql: list(`"order"."user_id" = $1`), values: [shopperId] },
    { name: 'My Orders, a page from the middle', kind: 'order list', sql: list(`("order"."user_id" = $1 AND ${after})`), values: [shopperId, mid!.created_at, mid!.id] },
    { name: 'View Orders, first page', kind: 'order list', sql: list(`"order"."order_fulfilled" = false`), values: [] },
    {
      name: 'View Orders, a page from the middle',
      kind: 'order list',
      sql: list(`("order"."order_fulfilled" = false AND ${after.replace('$2', '$1').replace('$3', '$2')})`),
      values: [openMid!.created_at, openMid!.id],
    },
    {
      name: 'order items of a page',
      kind: 'order items',
      sql: `SELECT "order_id", "position", "product_id", "name", "qty", "unit_cents" FROM "order_item" WHERE "order_item"."order_id" IN (SELECT unnest($1::text[])) ORDER BY "order_item"."order_id", "order_item"."position"`,
      values: [firstPage],
    },
    ...deskLists.map(({ search, list }) => ({ name: `order desk search by ${search.label}`, kind: 'desk search' as const, sql: list.text, values: list.values })),
    {
      name: 'shop list (all active products, cached by the server)',
      kind: 'shop',
      sql: `SELECT "id", "name", "description", "price_cents", "sort_order", "is_active", "created_at", "updated_at" FROM "product" WHERE "product"."is_active" = true ORDER BY "product"."sort_order" DESC, "product"."name" ASC, "product"."id" ASC`,
      values: [],
    },
  ];
  const plans = [];
  for (const query of queries) {
    // A prepared statement with parameters, as node-postgres sends the services' queries.
    const [row] = await queryRows<{ 'QUERY PLAN': [{ Plan: PlanNode; 'Execution Time': number }] }>(db, `EXPLAIN (ANALYZE, FORMAT JSON) ${query.sql}`, query.values);
    const textRows = await queryRows<{ 'QUERY PLAN': string }>(db, `EXPLAIN ${query.sql}`, query.values);
    const plan = row!['QUERY PLAN'][0];
    const nodes = nodesOf(plan.Plan);
    const onOrders = (node: PlanNode) => node['Relation Name'] === 'order' || node['Relation Name'] === 'order_item';
    plans.push({
      name: query.name,
      kind: query.kind,
      executionMs: round(plan['Execution Time'], 3),
      indexes: [...new Set(nodes.map((node) => node['Index Name']).filter(Boolean))],
      seqScanOnOrders: nodes.some((node) => node['Node Type'] === 'Seq Scan' && onOrders(node)),
      // A page of a list read in index order needs no sort; a Sort means every match is read.
      sortsOrders: query.kind === 'order list' && nodes.some((node) => node['Node Type'].includes('Sort')),
      text: textRows.map((r) => r['QUERY PLAN']).join('\n'),
    });
  }
  return plans;
}

export async function benchScale(app: AppServer, options: ScaleOptions, log: (line: string) => void) {
  const figures: Figure[] = [];
  const db = await connect(app.databaseUrl);
  let plans: Awaited<ReturnType<typeof explainQueries>>;
  let bare: Awaited<ReturnType<typeof bareDeskFigures>>;
  const searches = deskSearches(options);
  try {
    const started = Date.now();
    const { shopperId } = await fillDatabase(db, options, log);
    figures.push(figure('scale.fillSeconds', 'scale: time to insert the products and orders (SQL)', round((Date.now() - started) / 1000, 1), 's'));
    const [counts] = await queryRows<{ products: number; orders: number; mine: number; open: number }>(
      db,
      `SELECT (SELECT count(*) FROM product WHERE is_active)::int AS products, (SELECT count(*) FROM "order")::int AS orders,
              (SELECT count(*) FROM "order" WHERE user_id = $1)::int AS mine, (SELECT count(*) FROM "order" WHERE NOT order_fulfilled)::int AS open`,
      [shopperId],
    );
    figures.push(
      figure(
        'scale.data',
        'scale: rows',
        `${counts!.products} products, ${counts!.orders.toLocaleString('en-US')} orders (${counts!.mine} of the shopper, ${counts!.open.toLocaleString('en-US')} open)`,
        '',
      ),
    );
    plans = await explainQueries(db, shopperId, searches);
    bare = await bareDeskFigures(db, searches, options.bareRuns);
  } finally {
    await db.end();
  }
  // Wait until the server has rebuilt its view of 10,000 products (the NOTIFY dropped it).
  const listResponse = await fetch(`${app.base}/api/products`, { headers: { 'accept-encoding': 'identity' } });
  const firstPage = (await listResponse.json()) as { products: unknown[]; next: string | null };
  const listed = firstPage.products.length;
  const listBytes = Number(listResponse.headers.get('content-length') ?? 0);
  // A page from the middle of the shop (its cursor, as a visitor scrolling that far sends).
  let middle = firstPage.next;
  for (let page = 1; middle && page < 200; page += 1) {
    middle = ((await (await fetch(`${app.base}/api/products?limit=60&after=${middle}`)).json()) as { next: string | null }).next;
    if (page === 80) break; // 80 x 60 = 4,800 products in
  }

  const shopperToken = await signIn(app.base, SHOPPER.email, SHOPPER.password);
  const adminToken = await signIn(app.base, ADMIN.email, ADMIN.password);
  const call = (name: string, token: string, data: object = { limit: 20 }) => ({
    url: `${app.base}/fn/${name}`,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ data }),
  });
  type Target = { url: string; method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string };
  const targets: Record<string, Target> = {
    list: { url: `${app.base}/api/products` },
    listBrotli: { url: `${app.base}/api/products`, headers: { 'accept-encoding': 'br, gzip' } },
    // Read from the database (decision 030): a deep page, a narrow search, a broad one in a category.
    deepPage: { url: `${app.base}/api/products${middle ? `?after=${middle}` : '?limit=24'}`, headers: { 'accept-encoding': 'br, gzip' } },
    searchNarrow: { url: `${app.base}/api/products?q=release%2004242`, headers: { 'accept-encoding': 'br, gzip' } },
    searchBroad: { url: `${app.base}/api/products?q=vinyl&category=music`, headers: { 'accept-encoding': 'br, gzip' } },
    myOrders: call('listMyOrders', shopperToken),
    openOrders: call('listOpenOrders', adminToken),
    ...Object.fromEntries(searches.map((search) => [`desk.${search.key}`, call('listOrders', adminToken, { status: 'all', q: search.q, limit: 20 })])),
  };
  // Latency at a steady load (what a visitor waits), then the most the server can do.
  const steady: Record<string, LoadResult> = {};
  const saturated: Record<string, LoadResult> = {};
  for (const [name, target] of Object.entries(targets)) {
    steady[name] = await runLoad({
      ...target,
      connections: options.connections,
      durationSeconds: options.durationSeconds,
      warmupSeconds: options.warmupSeconds,
      overallRate: options.rate,
    });
    saturated[name] = await runLoad({ ...target, connections: options.connections, durationSeconds: options.saturateSeconds });
  }
  const note = (name: string) => {
    const run = steady[name]!;
    const bad = run.requests - run.ok + run.errors + run.timeouts;
    return `p50 ${run.latencyMs.p50} ms at ${round(run.okPerSecond, 0)} req/s${bad ? `, ${bad} failed` : ''}; at most ${round(saturated[name]!.okPerSecond, 0)} req/s (p99 ${saturated[name]!.latencyMs.p99} ms)`;
  };
  const at = `${options.rate} req/s, ${options.connections} connections`;
  // One figure() per measured address: a table of the same shape on purpose, not code to fold.
  figures.push(
    // Browsers and the SDK's fetch always accept br/gzip: that is the shop list's target.
    figure(
      'scale.listBrotli.p99',
      `scale: shop list p99 (${listed} products, br as browsers ask; ${at})`,
      steady.listBrotli!.latencyMs.p99,
      'ms',
      { op: '<', value: 50 },
      note('listBrotli'),
    ),
    figure('scale.list.p99', `scale: shop list p99 uncompressed (${Math.round(listBytes / 1024)} KB; ${at})`, steady.list!.latencyMs.p99, 'ms', undefined, note('list')),
    figure(
      'scale.deepPage.p99',
      `scale: a shop page 4,800 products in p99 (24 a page, from the database; ${at})`,
      steady.deepPage!.latencyMs.p99,
      'ms',
      { op: '<', value: 50 },
      note('deepPage'),
    ),
    figure(
      'scale.searchNarrow.p99',
      `scale: shop search p99 (?q=release 04242, a few matches; ${at})`,
      steady.searchNarrow!.latencyMs.p99,
      'ms',
      { op: '<', value: 50 },
      note('searchNarrow'),
    ),
    figure(
      'scale.searchBroad.p99',
      `scale: shop search p99 (?q=vinyl&category=music, thousands of matches; ${at})`,
      steady.searchBroad!.latencyMs.p99,
      'ms',
      { op: '<', value: 50 },
      note('searchBroad'),
    ),
    figure('scale.myOrders.p99', `scale: My Orders p99 (listMyOrders, 20 a page; ${at})`, steady.myOrders!.latencyMs.p99, 'ms', { op: '<', value: 50 }, note('myOrders')),
    figure('scale.openOrders.p99', `scale: View Orders p99 (listOpenOrders, 20 a page; ${at})`, steady.openOrders!.latencyMs.p99, 'ms', { op: '<', value: 50 }, note('openOrders')),
  );
  for (const search of searches) {
    const run = steady[`desk.${search.key}`]!;
    const sqlRef = bare![search.key]!;
    figures.push(
      figure(
        `scale.desk.${search.key}.p99`,
        `scale: order desk search by ${search.label} p99 (listOrders "${search.q}", ${sqlRef.matches} matches of ${options.orders.toLocaleString('en-US')}, 20 a page; ${at})`,
        run.latencyMs.p99,
        'ms',
        { op: '<', value: 50 },
        note(`desk.${search.key}`),
      ),
      figure(
        `scale.desk.${search.key}.sqlRatio`,
        `scale: order desk search by ${search.label}, bare SQL p99 (the same 4 statements on one connection, ${options.bareRuns} runs) and endpoint/SQL ratio`,
        sqlRef.p99,
        'ms',
        undefined,
        `endpoint p99 / SQL p99 = ${round(run.latencyMs.p99 / Math.max(sqlRef.p99, 0.001), 1)}; SQL p50 ${sqlRef.p50} ms; plan: ${plans.find((plan) => plan.name === `order desk search by ${search.label}`)?.indexes.join(', ') ?? '?'}`,
      ),
    );
  }
  const orderPlans = plans.filter((plan) => plan.kind !== 'shop');
  const seqScans = orderPlans.filter((plan) => plan.seqScanOnOrders);
  const sorting = orderPlans.filter((plan) => plan.sortsOrders);
  const describe = (list: typeof plans) => list.map((plan) => `${plan.name}: ${plan.indexes.join(', ') || 'no index'} (${plan.executionMs} ms)`).join('; ');
  figures.push(
    figure(
      'scale.orderSeqScans',
      `scale: order queries with a Seq Scan on "order"/"order_item" (of ${orderPlans.length} EXPLAINed)`,
      seqScans.length,
      'plans',
      { op: '=', value: 0 },
      describe(seqScans.length ? seqScans : orderPlans),
    ),
    figure(
      'scale.orderSorts',
      'scale: order list pages that sort instead of reading the index in order',
      sorting.length,
      'plans',
      { op: '=', value: 0 },
      sorting.length ? describe(sorting) : undefined,
    ),
  );
  return { figures, runs: { steady, saturated }, plans };
}
