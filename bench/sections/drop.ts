import { createHmac, randomBytes } from 'node:crypto';
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { hashSessionToken } from '../../apps/server/src/accounts/session-token.ts';
import { callFunction } from '../lib/client.ts';
import { NGINX_LIMITS, startCluster, type Cluster } from '../lib/cluster.ts';
import { connect, queryRows } from '../lib/db.ts';
import { admittedWithoutStock, merge, orderCheck, percentileOf, watchCommits, type EntryRow } from '../lib/drop-checks.ts';
import { figure, round, type Figure } from '../lib/figures.ts';
import type { FanSpec, FansCommand, FansReply, FansStats } from '../workers/drop-fans.ts';

/**
 * Issue 35's drop at full size: `fans` signed-in fans join a `units`-unit drop (limit 1 per
 * customer) in its pre-queue on three instances behind nginx, follow "now serving" on their
 * live streams, and buy when admitted. See docs/performance.md ("The drop") for what is
 * simulated and the sizing drawn from these figures.
 */
export interface DropOptions {
  fans: number;
  units: number;
  /** The most fans admitted at once (the drop's setting). */
  maxAdmitted: number;
  /** Processes of the load generator; each holds fans / workers streams. */
  workers: number;
  /** Fans joining at once, across all workers. */
  joinConcurrency: number;
  /** Give up waiting for the sell-out after this long. */
  saleTimeoutSeconds: number;
}

const INSTANCES = 3;
/** The proof-of-work's cost (DROP_CHALLENGE_COST): low, and really solved by the load generator. */
const CHALLENGE_COST = 1000;
const CHECKOUT_WINDOW_SECONDS = 60;
const ADMIN_EMAIL = 'drop-admin@bench.example';
const WALLET_CENTS = 20_000;
/** Only fans admitted this soon after the start let their admission run out (each costs a whole window). */
const EXPIRE_WITHIN_MS = 15_000;

const contact = { name: 'Drop Fan', email: 'fan@bench.example', phone: '' };
const shipping = { name: 'Drop Fan', line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };

/** 2% leave the queue before the start, 2% press Leave when admitted, 2% let the admission expire (if admitted early). */
function planOf(index: number): FanSpec['plan'] {
  const slot = index % 50;
  return slot === 7 ? 'leave-before-start' : slot === 19 ? 'leave-when-admitted' : slot === 31 ? 'let-expire' : 'buy';
}

/** Fan i's loopback address: 40 fans per address (the join limit is 60 a minute per address). */
const addressOf = (index: number) => `127.10.${Math.floor(index / 40 / 250)}.${(Math.floor(index / 40) % 250) + 1}`;

/** The signed bearer form of a session token, as sign-in hands it out (`set-auth-token`). */
const bearerOf = (token: string, secret: string) => encodeURIComponent(`${token}.${createHmac('sha256', secret).update(token).digest('base64')}`);

/** Fans and an admin, with sessions and wallet credit, written directly (the scale section's way): sign-up is not what is measured. */
async function seedAccounts(cluster: Cluster, fans: number): Promise<{ admin: string; fanTokens: string[] }> {
  const db = await connect(cluster.databaseUrl);
  try {
    const ids = ['u_drop_admin', ...Array.from({ length: fans }, (_, i) => `u_drop_${i}`)];
    const emails = [ADMIN_EMAIL, ...Array.from({ length: fans }, (_, i) => `fan-${i}@bench.example`)];
    const names = ['dropadmin', ...Array.from({ length: fans }, (_, i) => `dropfan${i}`)];
    const tokens = ids.map(() => randomBytes(24).toString('base64url'));
    await db.query('BEGIN');
    await db.query(
      `INSERT INTO "user" (id, name, email, email_verified, username, username_lower, created_at, updated_at)
       SELECT id, 'Drop Fan ' || username, email, true, username, username, now(), now() FROM unnest($1::text[], $2::text[], $3::text[]) AS t(id, email, username)`,
      [ids, emails, names],
    );
    await db.query(`UPDATE "user" SET role = 'admin' WHERE id = 'u_drop_admin'`);
    await db.query(
      `INSERT INTO session (id, token, user_id, expires_at, created_at, updated_at, ip_address, user_agent)
       SELECT 's_' || user_id, token, user_id, now() + interval '30 days', now(), now(), '', 'bench' FROM unnest($1::text[], $2::text[]) AS t(user_id, token)`,
      // The table keeps each token's hash (decision 043); a fresh session, not due for its daily extension.
      [ids, tokens.map(hashSessionToken)],
    );
    await db.query(`INSERT INTO wallet (user_id, balance_cents) SELECT id, $2 FROM unnest($1::text[]) AS t(id)`, [ids.slice(1), WALLET_CENTS]);
    await db.query(`INSERT INTO ledger_entry (user_id, kind, available_delta_cents, reference) SELECT id, 'grant', $2, 'bench-drop-' || id FROM unnest($1::text[]) AS t(id)`, [
      ids.slice(1),
      WALLET_CENTS,
    ]);
    await db.query('COMMIT');
    await db.query('ANALYZE "user", session, wallet');
    const bearers = tokens.map((token) => bearerOf(token, cluster.authSecret));
    return { admin: bearers[0]!, fanTokens: bearers.slice(1) };
  } finally {
    await db.end();
  }
}

function startWorker(): { child: ChildProcess; ask(command: FansCommand): Promise<FansReply> } {
  const child = fork(path.join(import.meta.dirname, '../workers/drop-fans.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return {
    child,
    ask: (command) =>
      new Promise((resolve, reject) => {
        child.once('message', (reply: FansReply) => ('error' in reply ? reject(new Error(reply.error)) : resolve(reply)));
        child.send(command);
      }),
  };
}

/** Wallet-only orders per instance, from nginx's access log (the upstream that answered). */
function ordersPerInstance(cluster: Cluster): number[] {
  const lines = fs.existsSync(cluster.accessLog) ? fs.readFileSync(cluster.accessLog, 'utf8').split('\n') : [];
  return cluster.instances.map(
    (instance) =>
      lines.filter((line) => line.includes('POST /fn/completeWalletOnlyOrderStreetFlavor') && / 200 /.test(line) && line.includes(`upstream=127.0.0.1:${instance.port}`)).length,
  );
}

export async function benchDrop(options: DropOptions, log: (line: string) => void, resultsDir: string) {
  const cluster = await startCluster({
    count: INSTANCES,
    env: { DROP_CHALLENGE_COST: String(CHALLENGE_COST), ADMIN_EMAILS: ADMIN_EMAIL },
    log: (line) => log(`  ${line}`),
  });
  const workers: ReturnType<typeof startWorker>[] = [];
  try {
    let started = Date.now();
    const { admin, fanTokens } = await seedAccounts(cluster, options.fans);
    log(`  ${options.fans.toLocaleString('en-US')} fans with sessions and credit in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const runId = randomBytes(4).toString('hex');
    const { id: productId } = await callFunction<{ id: string }>(
      cluster.base,
      'releaseBizarreProduct',
      {
        name: `Drop Pressing ${runId}`,
        description: 'A numbered pressing sold in a drop.',
        priceCents: 2500,
        images: ['/content/covers/cover-01.svg'],
        options: [{ name: 'Edition', values: ['Numbered'] }],
        variants: [{ options: ['Numbered'], sku: `DROP-${runId}`, priceCents: null, stock: options.units }],
      },
      admin,
    );
    const { products } = await callFunction<{ products: { id: string; variants: { id: string }[] }[] }>(cluster.base, 'listAllProducts', null, admin);
    const variantId = products.find((product) => product.id === productId)!.variants[0]!.id;
    const drop = await callFunction<{ id: string }>(
      cluster.base,
      'scheduleDrop',
      {
        name: `Bench drop ${runId}`,
        slug: `bench-${runId}`,
        variantIds: [variantId],
        startsAt: new Date(Date.now() + 3600_000).toISOString(),
        queueOpensAt: new Date(Date.now() - 1000).toISOString(),
        perCustomerLimit: 1,
        admissionsPerMinute: 100_000,
        maxAdmitted: options.maxAdmitted,
        checkoutWindowSeconds: CHECKOUT_WINDOW_SECONDS,
        challenge: true,
      },
      admin,
    );

    // The load generator: fans split among worker processes.
    const perWorker = Math.ceil(options.fans / options.workers);
    for (let w = 0; w < options.workers; w += 1) workers.push(startWorker());
    await Promise.all(
      workers.map((worker, w) => {
        const fans: FanSpec[] = [];
        for (let i = w * perWorker; i < Math.min(options.fans, (w + 1) * perWorker); i += 1) fans.push({ token: fanTokens[i]!, ip: addressOf(i), plan: planOf(i) });
        return worker.ask({
          setup: {
            host: cluster.host,
            port: cluster.port,
            dropId: drop.id,
            fans,
            purchase: { items: [{ id: productId, variantId, qty: 1 }], contact, shipping, runId },
            joinConcurrency: Math.max(1, Math.round(options.joinConcurrency / options.workers)),
            expireWithinMs: EXPIRE_WITHIN_MS,
          },
        });
      }),
    );

    // 1. The pre-queue: every fan opens its live stream, solves the challenge and joins.
    const cpu0 = cluster.cpu();
    started = Date.now();
    const joinReplies = await Promise.all(workers.map((worker) => worker.ask({ join: true })));
    const joinSeconds = (Date.now() - started) / 1000;
    const cpu1 = cluster.cpu();
    const memoryWithStreams = cluster.memory();
    const joined = joinReplies.map((reply) => ('joined' in reply ? reply.joined : null)).filter((s): s is FansStats => s !== null);
    const streams = joined.reduce((sum, s) => sum + s.streamsOpened, 0);
    const joins = joined.reduce((sum, s) => sum + s.joined, 0);
    log(`  ${joins} joined and ${streams} live streams open in ${joinSeconds.toFixed(1)} s`);
    const left = (await Promise.all(workers.map((worker) => worker.ask({ leaveBeforeStart: true })))).reduce((sum, reply) => sum + ('left' in reply ? reply.left : 0), 0);

    // 2. The start, a few seconds from now; then the sale, until the drop is sold out.
    const commits = await watchCommits(cluster.databaseUrl, drop.id);
    await callFunction(cluster.base, 'editDrop', { dropId: drop.id, startsAt: new Date(Date.now() + 3000).toISOString() }, admin);
    const db = await connect(cluster.databaseUrl);
    try {
      const saleDeadline = Date.now() + options.saleTimeoutSeconds * 1000;
      let status = 'scheduled';
      while (status !== 'sold-out' && Date.now() < saleDeadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        status = (await queryRows<{ status: string }>(db, 'SELECT status FROM "drop" WHERE id = $1', [drop.id]))[0]!.status;
      }
      // The sold-out event reaches the last streams.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const cpu2 = cluster.cpu();
      await commits.stop();

      const [dropRow] = await queryRows<{
        seed: string;
        pre_queue_count: number;
        started_ms: string;
        sold_out_ms: string | null;
        now_serving: number;
        batches: number;
        challenge_failures: number;
      }>(
        db,
        `SELECT seed, pre_queue_count, (extract(epoch FROM started_at) * 1000)::bigint AS started_ms, (extract(epoch FROM sold_out_at) * 1000)::bigint AS sold_out_ms,
                now_serving, batches, challenge_failures FROM "drop" WHERE id = $1`,
        [drop.id],
      );
      const entries = await queryRows<EntryRow>(
        db,
        `SELECT number, position, status, batch, (extract(epoch FROM pg_xact_commit_timestamp(xmin)) * 1000)::float8::text AS last_commit_ms,
                (extract(epoch FROM ended_at) * 1000)::float8::text AS ended_ms
         FROM drop_entry WHERE drop_id = $1`,
        [drop.id],
      );
      const batches = await queryRows<{ batch: number; now_serving: number; admitted_ms: string }>(
        db,
        `SELECT batch, max(position) AS now_serving, (extract(epoch FROM min(admitted_at)) * 1000)::float8::text AS admitted_ms FROM drop_entry WHERE drop_id = $1 AND batch IS NOT NULL GROUP BY batch`,
        [drop.id],
      );
      const [ledger] = await queryRows<{ stock: number; held: number; sold: string; orders: string; first_ms: string | null; last_ms: string | null }>(
        db,
        `SELECT v.stock, v.held, coalesce(sum(i.qty), 0)::bigint AS sold, count(DISTINCT i.order_id)::bigint AS orders,
                (extract(epoch FROM min(o.created_at)) * 1000)::bigint AS first_ms, (extract(epoch FROM max(o.created_at)) * 1000)::bigint AS last_ms
         FROM product_variant v LEFT JOIN order_item i ON i.variant_id = v.id LEFT JOIN "order" o ON o.id = i.order_id WHERE v.id = $1 GROUP BY v.id`,
        [variantId],
      );
      const orderTimes = (
        await queryRows<{ ms: string }>(
          db,
          `SELECT (extract(epoch FROM o.created_at) * 1000)::bigint AS ms FROM "order" o JOIN order_item i ON i.order_id = o.id WHERE i.variant_id = $1`,
          [variantId],
        )
      ).map((row) => Number(row.ms));

      // Position updates: each event's arrival minus its batch's commit (the round's own clock, before its commit, if the commit was not seen).
      const references: Record<string, number> = {};
      let batchesTimedByCommit = 0;
      for (const batch of batches) {
        const commit = commits.batchCommits.get(batch.batch);
        if (commit !== undefined) batchesTimedByCommit += 1;
        references[`live:${batch.now_serving}`] = commit ?? Number(batch.admitted_ms);
      }
      if (dropRow!.sold_out_ms !== null) references[`sold-out:${dropRow!.now_serving}`] = commits.soldOutCommit() ?? Number(dropRow!.sold_out_ms);
      const collected = (await Promise.all(workers.map((worker) => worker.ask({ collect: { references } })))).flatMap((reply) => ('collected' in reply ? [reply.collected] : []));
      const histogram: number[] = [];
      for (const part of collected) merge(histogram, part.histogram);
      // The steady state: every batch but the start's and sold out's, which go to every page at once.
      const steadyHistogram: number[] = [];
      for (const part of collected) merge(steadyHistogram, part.steadyHistogram);
      const total = (key: keyof (typeof collected)[number]) => collected.reduce((sum, part) => sum + (part[key] as number), 0);
      const failures = (key: 'purchaseFailures' | 'joinFailures') => {
        const all: Record<string, number> = {};
        // Each worker's counts are its totals since it started (the join's among them).
        for (const part of collected) for (const [message, n] of Object.entries(part[key])) all[message] = (all[message] ?? 0) + n;
        return all;
      };

      const soldOutSeconds = dropRow!.sold_out_ms === null ? null : (Number(dropRow!.sold_out_ms) - Number(dropRow!.started_ms)) / 1000;
      const sold = Number(ledger!.sold);
      const oversold = ledger!.stock + ledger!.held + sold - options.units;
      const check = await orderCheck(dropRow!.seed, dropRow!.pre_queue_count, entries, commits.batchCommits, Number(dropRow!.started_ms));
      // Every entry, for checking the checks afterwards (bench/results/ is git-ignored).
      fs.writeFileSync(
        path.join(resultsDir, 'drop-entries.json'),
        JSON.stringify({ seed: dropRow!.seed, preQueueCount: dropRow!.pre_queue_count, batchCommits: Object.fromEntries(commits.batchCommits), entries }),
      );
      const withoutStock = admittedWithoutStock(entries, options.units, commits.batchCommits);
      const saleSeconds = soldOutSeconds ?? (Date.now() - Number(dropRow!.started_ms)) / 1000;
      const ordersPerSecond = sold / saleSeconds;
      // The busiest 5 s of orders: what the instances sustained while fans were buying.
      orderTimes.sort((a, b) => a - b);
      let peak = 0;
      for (let i = 0, j = 0; i < orderTimes.length; i += 1) {
        while (orderTimes[i]! - orderTimes[j]! >= 5000) j += 1;
        peak = Math.max(peak, i - j + 1);
      }
      const peakPerSecond = peak / 5;
      const perInstanceOrders = ordersPerInstance(cluster);
      const joinCpu = { instances: cpu1.instances.reduce((a, b, i) => a + b - cpu0.instances[i]!, 0), postgres: cpu1.postgres - cpu0.postgres, nginx: cpu1.nginx - cpu0.nginx };
      const saleCpu = { instances: cpu2.instances.reduce((a, b, i) => a + b - cpu1.instances[i]!, 0), postgres: cpu2.postgres - cpu1.postgres, nginx: cpu2.nginx - cpu1.nginx };
      const p99 = percentileOf(histogram, 99);
      const samples = total('samples');
      const simulated =
        `${options.fans} fans (${joins} joined, ${left} left before the start), ${streams} live streams through nginx (no polling), ` +
        `challenge cost ${CHALLENGE_COST} solved by the load generator, ${INSTANCES} instances, limit 1, window ${CHECKOUT_WINDOW_SECONDS} s, at most ${options.maxAdmitted} admitted at once`;
      log(`  ${simulated}`);

      const figures: Figure[] = [
        figure('drop.fans', `drop: fans joined (${options.fans} fans, ${options.units} units, ${INSTANCES} instances behind nginx)`, joins, 'fans', {
          op: '>=',
          value: options.fans,
        }),
        figure('drop.streams', 'drop: live streams held through nginx (the page follows the drop topic)', streams, 'streams', { op: '>=', value: options.fans }),
        figure('drop.joinsPerSecond', 'drop: joins/s into the pre-queue (stream, challenge, join)', round(joins / joinSeconds, 1), '/s'),
        figure('drop.soldOutSeconds', 'drop: start to sold out', soldOutSeconds === null ? null : round(soldOutSeconds, 1), 's'),
        figure('drop.positionP99', `drop: position update p99 (batch commit to fan, ${samples.toLocaleString('en-US')} deliveries)`, p99, 'ms', { op: '<', value: 1000 }),
        figure('drop.positionP50', 'drop: position update p50', percentileOf(histogram, 50), 'ms'),
        figure(
          'drop.positionP99Steady',
          `drop: position update p99 after the start (paced batches, ${total('steadySamples').toLocaleString('en-US')} deliveries; not the start's or sold out's, said to every page at once)`,
          percentileOf(steadyHistogram, 99),
          'ms',
        ),
        figure('drop.ordersPerSecond', 'drop: orders/s, start to sold out', round(ordersPerSecond, 1), '/s'),
        figure('drop.ordersPeak', 'drop: orders/s, busiest 5 s', round(peakPerSecond, 1), '/s'),
        figure('drop.admittedWithoutStock', 'drop: fans admitted with no stock behind them', withoutStock, 'fans', { op: '=', value: 0 }),
        figure('drop.oversold', 'drop: oversold units (initial = stock + held + sold)', oversold, 'units', { op: '=', value: 0 }),
        figure('drop.sold', 'drop: units sold', sold, 'units', { op: '=', value: options.units }),
        figure('drop.inOrder', 'drop: admissions in the committed order (recomputed from the seed)', round(check.share * 100, 2), '%', { op: '=', value: 100 }),
        figure('drop.positionMismatches', 'drop: stored positions that differ from the recomputed order', check.positionMismatches, 'entries', { op: '=', value: 0 }),
      ];
      // Per-instance figures for sizing (docs/performance.md): CPU per fan joined and per fan in the sale, memory per stream.
      figures.push(
        figure('drop.joinCpuInstance', 'drop: instance CPU per join (stream, challenge, join), summed over instances', round((joinCpu.instances / joins) * 1000, 2), 'ms'),
        figure('drop.joinCpuPostgres', 'drop: PostgreSQL CPU per join', round((joinCpu.postgres / joins) * 1000, 2), 'ms'),
        figure('drop.saleCpuInstance', 'drop: instance CPU of the sale per fan in the queue, summed over instances', round((saleCpu.instances / joins) * 1000, 2), 'ms'),
        figure('drop.saleCpuPostgres', 'drop: PostgreSQL CPU of the sale per fan in the queue', round((saleCpu.postgres / joins) * 1000, 2), 'ms'),
        figure('drop.streamsPerInstance', 'drop: live streams per instance', Math.round(streams / INSTANCES), 'streams'),
        figure(
          'drop.memoryPerStream',
          'drop: instance memory per open stream (RSS with streams / streams, upper bound)',
          round((memoryWithStreams.instances.reduce((a, b) => a + b, 0) * 1024) / Math.max(1, streams), 1),
          'KiB',
        ),
      );
      const purchaseFailures = failures('purchaseFailures');
      const refused = Object.values(purchaseFailures).reduce((a, b) => a + b, 0);
      figures.push(
        figure(
          'drop.refusedPurchases',
          'drop: admitted fans whose order was refused',
          refused,
          'fans',
          { op: '=', value: 0 },
          refused > 0 ? JSON.stringify(purchaseFailures) : undefined,
        ),
      );
      return {
        figures,
        simulated,
        nginx: { ...NGINX_LIMITS, streamsCapacity: (NGINX_LIMITS.workerProcesses * NGINX_LIMITS.workerConnections) / 2, processFileLimit: 20_000 },
        joinSeconds,
        saleSeconds,
        admissions: check.admissions,
        outOfOrderExamples: check.examples,
        batchCommits: Object.fromEntries(commits.batchCommits),
        batches: dropRow!.batches,
        batchesTimedByCommit,
        challengeFailures: dropRow!.challenge_failures,
        perInstanceOrders,
        memoryWithStreamsMiB: memoryWithStreams,
        cpuSeconds: { join: joinCpu, sale: saleCpu, perInstanceSale: cpu2.instances.map((b, i) => round(b - cpu1.instances[i]!, 1)) },
        ledger: { stock: ledger!.stock, held: ledger!.held, sold, orders: Number(ledger!.orders) },
        fans: {
          admitted: total('admitted'),
          bought: total('bought'),
          leftWhenAdmitted: total('leftWhenAdmitted'),
          letExpire: total('letExpire'),
          soldOutSeen: total('soldOutSeen'),
          positionsLearned: total('positionsLearned'),
          calls: total('calls'),
          callFailures: total('callFailures'),
          unmatchedEvents: total('unmatched'),
          streamsOpenAtEnd: total('streamsOpenAtEnd'),
          joinFailures: failures('joinFailures'),
          purchaseFailures,
        },
        positionLatencyMs: { p50: percentileOf(histogram, 50), p90: percentileOf(histogram, 90), p99, max: histogram.length - 1, samples },
        steadyPositionLatencyMs: {
          p50: percentileOf(steadyHistogram, 50),
          p90: percentileOf(steadyHistogram, 90),
          p99: percentileOf(steadyHistogram, 99),
          samples: total('steadySamples'),
        },
        dropId: drop.id,
      };
    } finally {
      await db.end();
    }
  } finally {
    for (const worker of workers) {
      if (worker.child.connected) worker.child.send({ close: true });
      else worker.child.kill();
    }
    await cluster.stop();
  }
}
