import { fairOrder } from '@storefront/domain/drops.ts';
import { connect, queryRows } from './db.ts';

/** The drop section's measurements and checks (bench/sections/drop.ts), against PostgreSQL's own commit times. */

/**
 * The commit time of every admission batch and of the sell-out, from PostgreSQL itself
 * (track_commit_timestamp): on each `drop` notification, the batches that still have an
 * admitted fan (whose row the batch's transaction wrote last) and the drop row's own commit.
 */
export async function watchCommits(databaseUrl: string, dropId: string) {
  const listener = await connect(databaseUrl);
  const reader = await connect(databaseUrl);
  const batchCommits = new Map<number, number>();
  let soldOutCommit: number | null = null;
  let running = false;
  let again = false;
  const read = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        const rows = await queryRows<{ batch: number; ms: string }>(
          reader,
          `SELECT batch, (extract(epoch FROM min(pg_xact_commit_timestamp(xmin))) * 1000)::float8::text AS ms
           FROM drop_entry WHERE drop_id = $1 AND status = 'admitted' AND batch IS NOT NULL GROUP BY batch`,
          [dropId],
        );
        for (const row of rows) batchCommits.set(row.batch, Math.min(batchCommits.get(row.batch) ?? Infinity, Number(row.ms)));
        const [drop] = await queryRows<{ status: string; ms: string }>(
          reader,
          `SELECT status, (extract(epoch FROM pg_xact_commit_timestamp(xmin)) * 1000)::float8::text AS ms FROM "drop" WHERE id = $1`,
          [dropId],
        );
        if (drop?.status === 'sold-out' && soldOutCommit === null) soldOutCommit = Number(drop.ms);
      } while (again);
    } finally {
      running = false;
    }
  };
  listener.on('notification', (message) => {
    if (message.payload?.includes('"topic":"drop"')) void read().catch(() => undefined);
  });
  await listener.query('LISTEN storefront_live');
  return {
    batchCommits,
    soldOutCommit: () => soldOutCommit,
    async stop() {
      await read().catch(() => undefined);
      await listener.end();
      await reader.end();
    },
  };
}

export function percentileOf(histogram: number[], p: number): number {
  const total = histogram.reduce((a, b) => a + b, 0);
  if (total === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * total);
  let seen = 0;
  for (const [ms, n] of histogram.entries()) {
    seen += n;
    if (seen >= rank) return ms;
  }
  return histogram.length - 1;
}

export function merge(into: number[], from: number[]) {
  for (const [i, n] of from.entries()) into[i] = (into[i] ?? 0) + n;
}

export interface EntryRow {
  number: number;
  position: number | null;
  status: string;
  batch: number | null;
  /** Commit time of the row's last change (its end, for entries that left or expired during the sale). */
  last_commit_ms: string | null;
  ended_ms: string | null;
}

/**
 * The order check: the pre-queue's order recomputed from the revealed seed (packages/domain's
 * fairOrder), later arrivals by number; every stored position compared; and an admission is in
 * order when every entry ahead of it in the recomputed order had stopped waiting by then:
 * admitted in the same batch or an earlier one, or left before that batch committed.
 */
export async function orderCheck(seed: string, preQueueCount: number, entries: EntryRow[], batchCommits: Map<number, number>, startedMs: number) {
  const order = await fairOrder(
    seed,
    Array.from({ length: preQueueCount }, (_, i) => i + 1),
  );
  const expected = new Map<number, number>(order.map((n, i) => [n, i + 1]));
  for (const entry of entries) if (entry.number > preQueueCount) expected.set(entry.number, entry.number);
  const positionMismatches = entries.filter((entry) => entry.position !== expected.get(entry.number)).length;
  const byPosition = [...entries].sort((a, b) => expected.get(a.number)! - expected.get(b.number)!);
  // In batch numbers: a fan who left before the start stopped waiting before batch 1 (the start
  // rewrote its row, so its commit time is the start's); one who left during the sale, before
  // the first batch that committed after its leave.
  const batchesByCommit = [...batchCommits.entries()].sort((a, b) => a[1] - b[1]);
  const leftBefore = (entry: EntryRow) =>
    entry.ended_ms !== null && Number(entry.ended_ms) < startedMs
      ? 0
      : (batchesByCommit.find(([, commit]) => commit > Number(entry.last_commit_ms))?.[0] ?? Number.POSITIVE_INFINITY);
  let waitedUntil = 0;
  let blocker: EntryRow | null = null;
  let admissions = 0;
  let inOrder = 0;
  // The first admissions out of order, each with the entry ahead of it that was still waiting.
  const examples: { entry: EntryRow; expected: number; ahead: EntryRow | null; aheadExpected: number | null }[] = [];
  for (const entry of byPosition) {
    if (entry.batch !== null) {
      admissions += 1;
      if (waitedUntil <= entry.batch) inOrder += 1;
      else if (examples.length < 5) examples.push({ entry, expected: expected.get(entry.number)!, ahead: blocker, aheadExpected: blocker ? expected.get(blocker.number)! : null });
    }
    const stoppedWaiting = entry.batch ?? (entry.status === 'left' && entry.last_commit_ms !== null ? leftBefore(entry) : Number.POSITIVE_INFINITY);
    if (stoppedWaiting > waitedUntil) {
      waitedUntil = stoppedWaiting;
      blocker = entry;
    }
  }
  return { positionMismatches, admissions, share: admissions === 0 ? 1 : inOrder / admissions, examples };
}

/**
 * Admissions against stock (limit 1): at every batch's commit, the fans admitted so far whose
 * admission had not ended by leaving or expiring (those who bought keep their unit) never
 * exceed the initial units; the worst excess is the number of fans admitted with no unit
 * behind them. Commit times from PostgreSQL: a batch's, and each ended row's own.
 */
export function admittedWithoutStock(entries: EntryRow[], units: number, batchCommits: Map<number, number>): number {
  const changes: { at: number; delta: number }[] = [];
  for (const entry of entries) {
    if (entry.batch === null) continue;
    const admittedAt = batchCommits.get(entry.batch);
    if (admittedAt === undefined) continue;
    changes.push({ at: admittedAt, delta: 1 });
    if ((entry.status === 'left' || entry.status === 'expired') && entry.last_commit_ms !== null) changes.push({ at: Number(entry.last_commit_ms), delta: -1 });
  }
  // An end committed at the same instant as a batch counts first (a round records expiries before it admits).
  changes.sort((a, b) => a.at - b.at || a.delta - b.delta);
  let holding = 0;
  let worst = 0;
  for (const change of changes) {
    holding += change.delta;
    worst = Math.max(worst, holding - units);
  }
  return worst;
}
