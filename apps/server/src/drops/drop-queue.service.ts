import { and, eq, isNotNull, sql } from 'drizzle-orm';
import {
  admissionsAllowed,
  DROP_MESSAGES,
  entryListHash,
  estimatedWaitSeconds,
  fairOrder,
  isSoldOut,
  shareInOrder,
  type DropEntryStatus,
  type DropStatus,
} from '@storefront/domain/drops.ts';
import type { Db } from '../db/client.ts';
import { dropEntries, dropItems, drops, dropUsedChallenges, productVariants } from '../db/schema/index.ts';
import { sqlState } from '../db/errors.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';
import { hitRateLimit } from '../http/rate-limit.ts';
import { publishLive } from '../live/live.publish.ts';
import { checkSolution } from './drop-challenge.ts';
import { signAdmission } from './drop-tokens.ts';
import { requireDrop, type DropRow } from './drops.service.ts';

/**
 * The drop's queue (issue 35, decision 066): joins numbered by the database, the start's
 * shuffle from the committed seed, admission rounds against stock that any instance may run,
 * a fan's own state, leaving, and the public fairness data. Everything lives in PostgreSQL.
 */

export interface QueueDeps {
  db: Db;
  /** AUTH_SECRET first, then old secrets still accepted (admission tokens, challenges). */
  secrets: readonly string[];
  /** DROP_CHALLENGE_COST: 0 turns the challenge off. */
  challengeCost: number;
  /** DROP_JOINS_PER_ADDRESS. */
  joinsPerAddress: number;
}

/** Joins per account within a minute (decision 066); per address: DROP_JOINS_PER_ADDRESS. */
export const JOIN_LIMITS = { perAccount: 10, windowSeconds: 60 } as const;

type EntryRow = typeof dropEntries.$inferSelect;

/** A fan's own place in a drop, as dropStateOutput says. */
export function stateOf(drop: DropRow, entry: EntryRow | undefined, now = new Date()) {
  const waiting = entry?.status === 'waiting' && entry.position !== null && drop.status === 'live';
  const ahead = waiting ? Math.max(0, entry.position! - drop.nowServing - 1) : null;
  const admitted = entry?.status === 'admitted' && entry.expiresAt !== null && entry.expiresAt > now;
  return {
    dropId: drop.id,
    dropStatus: drop.status,
    entry: entry
      ? {
          number: entry.number,
          position: entry.position,
          // An admission past its window reads as expired before the next round records it.
          status: (entry.status === 'admitted' && !admitted ? 'expired' : entry.status) as DropEntryStatus,
          expiresAt: admitted ? entry.expiresAt!.toISOString() : null,
          admission: admitted ? entry.token : null,
          unitsBought: entry.unitsBought,
        }
      : null,
    nowServing: drop.nowServing,
    ahead,
    estimatedWaitSeconds: waiting ? estimatedWaitSeconds(entry.position!, drop.nowServing, drop.admissionsPerMinute) : null,
    perCustomerLimit: drop.perCustomerLimit,
    note: drop.note,
    serverTime: now.toISOString(),
  };
}

async function entryOf(db: Db | Tx, dropId: string, userId: string): Promise<EntryRow | undefined> {
  const [entry] = await db
    .select()
    .from(dropEntries)
    .where(and(eq(dropEntries.dropId, dropId), eq(dropEntries.userId, userId)));
  return entry;
}

export async function myDropState(db: Db, userId: string, dropId: string) {
  const drop = await requireDrop(db, { dropId });
  return stateOf(drop, await entryOf(db, dropId, userId));
}

async function countChallengeFailure(db: Db, dropId: string): Promise<void> {
  await db
    .update(drops)
    .set({ challengeFailures: sql`${drops.challengeFailures} + 1` })
    .where(eq(drops.id, dropId));
}

/** The refusal of a join the drop's status does not allow (null: joining is open). */
function joinRefusal(drop: DropRow, now: Date): AppError | null {
  if (drop.status === 'cancelled') return new AppError('failed-precondition', DROP_MESSAGES.cancelled);
  if (drop.status === 'sold-out') return new AppError('failed-precondition', DROP_MESSAGES.soldOut);
  if (drop.queueOpensAt > now) return new AppError('failed-precondition', DROP_MESSAGES.queueNotOpen);
  return null;
}

/**
 * Joins the queue, once per account: rate-limited per account and address, the proof-of-work
 * checked and spent, then the entry numbered by the drop row's own counter in one transaction.
 * A second join answers the existing entry.
 */
export async function joinDrop(deps: QueueDeps, userId: string, clientSubject: string, input: { dropId: string; challenge?: string | undefined }, now = new Date()) {
  const { db } = deps;
  const drop = await requireDrop(db, { dropId: input.dropId });
  const existing = await entryOf(db, drop.id, userId);
  if (existing) return stateOf(drop, existing);
  const refused = joinRefusal(drop, now);
  if (refused) throw refused;
  await hitRateLimit(db, `drop-join:account:${userId}`, JOIN_LIMITS.perAccount, JOIN_LIMITS.windowSeconds);
  await hitRateLimit(db, `drop-join:address:${clientSubject}`, deps.joinsPerAddress, JOIN_LIMITS.windowSeconds);
  if (drop.challenge && deps.challengeCost > 0) {
    if (!input.challenge) throw new AppError('failed-precondition', DROP_MESSAGES.challengeNeeded);
    const solved = await checkSolution(deps.secrets, drop.id, input.challenge);
    // Each challenge solves one join: its signature is kept until it expires.
    const fresh = solved ? await db.insert(dropUsedChallenges).values(solved).onConflictDoNothing().returning({ signature: dropUsedChallenges.signature }) : [];
    if (fresh.length === 0) {
      await countChallengeFailure(db, drop.id);
      throw new AppError('permission-denied', DROP_MESSAGES.challengeFailed);
    }
  }
  // The number comes from the drop row's counter, in ONE statement with the entry (no gaps,
  // the client picks nothing). Joins of one drop queue on that row, so it is held only for
  // this statement and its commit: numbered, inserted and committed in one round trip. With
  // BEGIN, UPDATE, INSERT and COMMIT sent apart, the bench's 20,000-fan drop joined at about
  // 22 a second whatever the instances did (15-22 of 30 connections waiting on the row).
  let numbered: number | undefined;
  try {
    const result = await db.execute<{ number: number }>(sql`
      WITH counted AS (
        UPDATE ${drops} SET entry_count = entry_count + 1
        WHERE id = ${drop.id} AND status IN ('scheduled', 'postponed', 'live')
        RETURNING entry_count, status)
      INSERT INTO ${dropEntries} (drop_id, number, user_id, position)
      SELECT ${drop.id}, entry_count, ${userId}, CASE WHEN status = 'live' THEN entry_count END FROM counted
      RETURNING number`);
    numbered = result.rows[0]?.number;
  } catch (error) {
    // The same account joined at the same moment: the first entry stands.
    if (sqlState(error) !== '23505') throw error;
    return myDropState(db, userId, drop.id);
  }
  const counted = await requireDrop(db, { dropId: drop.id });
  if (numbered === undefined) throw joinRefusal(counted, now) ?? new AppError('failed-precondition', DROP_MESSAGES.alreadyEnded);
  return stateOf(counted, await entryOf(db, drop.id, userId));
}

/** Leaves the queue, or ends the caller's admission; the next round admits the next fan. */
export async function leaveDrop(db: Db, userId: string, dropId: string) {
  const drop = await requireDrop(db, { dropId });
  const [entry] = await db
    .update(dropEntries)
    .set({ status: 'left', endedAt: new Date() })
    .where(and(eq(dropEntries.dropId, dropId), eq(dropEntries.userId, userId), sql`${dropEntries.status} IN ('waiting', 'admitted')`))
    .returning();
  if (!entry && !(await entryOf(db, dropId, userId))) throw new AppError('failed-precondition', DROP_MESSAGES.notInQueue);
  return stateOf(drop, entry ?? (await entryOf(db, dropId, userId)));
}

/**
 * What a round decides on, read in ONE statement so that it is one snapshot: the units left
 * across the drop's variants (the stock column; held units are not left; null: no count
 * kept), the fans admitted now and those admitted within the last minute. Read in two
 * statements, a purchase committing between them (stock down, its admission ended) would
 * show the stock before and the admissions after it, and admit one fan too many.
 */
async function roundFigures(tx: Tx, dropId: string, now: Date): Promise<{ left: number | null; admittedNow: number; lastMinute: number }> {
  const result = await tx.execute<{ left: string | null; admitted_now: number; last_minute: number }>(sql`
    SELECT
      (SELECT CASE WHEN bool_or(v.stock IS NULL) THEN NULL ELSE coalesce(sum(v.stock), 0) END
         FROM ${dropItems} di JOIN ${productVariants} v ON v.id = di.variant_id WHERE di.drop_id = ${dropId}) AS left,
      (SELECT count(*)::int FROM ${dropEntries} WHERE drop_id = ${dropId} AND status = 'admitted') AS admitted_now,
      (SELECT count(*)::int FROM ${dropEntries} WHERE drop_id = ${dropId} AND admitted_at > ${new Date(now.getTime() - 60_000)}) AS last_minute`);
  const row = result.rows[0]!;
  return { left: row.left === null ? null : Number(row.left), admittedNow: Number(row.admitted_now), lastMinute: Number(row.last_minute) };
}

export interface RoundResult {
  dropId: string;
  /** False when another instance held the drop's lock: it ran the round. */
  ran: boolean;
  started: boolean;
  admitted: number;
  expired: number;
  soldOut: boolean;
  status: DropStatus;
  nowServing: number;
  /** Once started: the revealed seed and the pre-queue's size, said with "now serving" (decision 073). */
  reveal: { seed: string; preQueueCount: number } | null;
}

/** The start (decision 066): fixes the pre-queue, publishes its list's hash, reveals the seed and writes the shuffled positions. */
async function start(tx: Tx, drop: DropRow, now: Date): Promise<DropRow> {
  const preQueue = Array.from({ length: drop.entryCount }, (_, index) => index + 1);
  const order = await fairOrder(drop.seed, preQueue);
  const listHash = await entryListHash(preQueue);
  if (order.length > 0) {
    const positions = order.map((_, index) => index + 1);
    await tx.execute(sql`
      UPDATE ${dropEntries} AS e SET position = v.position
      FROM unnest(${`{${order.join(',')}}`}::int[], ${`{${positions.join(',')}}`}::int[]) AS v(number, position)
      WHERE e.drop_id = ${drop.id} AND e.number = v.number`);
  }
  const [started] = await tx
    .update(drops)
    .set({ status: 'live', preQueueCount: drop.entryCount, entryListHash: listHash, seedRevealedAt: now, startedAt: now, updatedAt: now })
    .where(eq(drops.id, drop.id))
    .returning();
  return started!;
}

/**
 * One admission round of a drop (decision 066), any instance, no leader: under the drop's
 * advisory lock (another instance holding it runs the round instead) and its row lock, in one
 * transaction: start if due, expire ended admissions, close when nothing is left, and admit
 * the next fans in order while the units left cover their limits. Announces the new "now
 * serving" once, after the commit.
 */
export async function advanceDrop(deps: Pick<QueueDeps, 'db' | 'secrets'>, dropId: string, at?: Date): Promise<RoundResult> {
  const result = await runTransaction(
    deps.db,
    async (tx): Promise<RoundResult & { announce: boolean }> => {
      const idle = {
        dropId,
        ran: false,
        started: false,
        admitted: 0,
        expired: 0,
        soldOut: false,
        status: 'scheduled' as DropStatus,
        nowServing: 0,
        reveal: null,
        announce: false,
      };
      const locked = await tx.execute<{ locked: boolean }>(sql`SELECT pg_try_advisory_xact_lock(hashtext('drop-queue'), hashtext(${dropId})) AS locked`);
      if (!locked.rows[0]?.locked) return idle;
      const [row] = await tx.select().from(drops).where(eq(drops.id, dropId)).for('update');
      if (!row) return idle;
      // The round's time is the database's clock once both locks are held (performance.md, drop
      // limit 4): a round that waited for a connection or the lock, on any instance, no longer
      // writes an earlier time than the round before it, so admission, expiry and sell-out
      // times follow the batches' order.
      const now = at ?? new Date(Number((await tx.execute<{ ms: string }>(sql`SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint::text AS ms`)).rows[0]!.ms));
      let drop = row;
      let started = false;
      if ((drop.status === 'scheduled' || drop.status === 'postponed') && drop.startsAt <= now) {
        drop = await start(tx, drop, now);
        started = true;
      }
      const reveal = drop.seedRevealedAt && drop.preQueueCount !== null ? { seed: drop.seed, preQueueCount: drop.preQueueCount } : null;
      const base = { ...idle, ran: true, started, status: drop.status, nowServing: drop.nowServing, reveal, announce: started };
      if (drop.status !== 'live' && drop.status !== 'sold-out') return base;
      const expired = await tx
        .update(dropEntries)
        .set({ status: 'expired', endedAt: now })
        .where(and(eq(dropEntries.dropId, dropId), eq(dropEntries.status, 'admitted'), sql`${dropEntries.expiresAt} <= ${now}`))
        .returning({ number: dropEntries.number });
      if (drop.status === 'sold-out') return { ...base, expired: expired.length };
      const figures = await roundFigures(tx, dropId, now);
      if (isSoldOut(figures.left)) {
        await tx
          .update(dropEntries)
          .set({ status: 'closed', endedAt: now })
          .where(and(eq(dropEntries.dropId, dropId), eq(dropEntries.status, 'waiting')));
        await tx.update(drops).set({ status: 'sold-out', soldOutAt: now, updatedAt: now }).where(eq(drops.id, dropId));
        return { ...base, expired: expired.length, soldOut: true, status: 'sold-out', announce: true };
      }
      const allowed = admissionsAllowed({
        unitsLeft: figures.left,
        admittedNow: figures.admittedNow,
        perCustomerLimit: drop.perCustomerLimit,
        maxAdmitted: drop.maxAdmitted,
        perMinute: drop.admissionsPerMinute,
        admittedLastMinute: figures.lastMinute,
        waiting: Number.MAX_SAFE_INTEGER,
      });
      if (allowed === 0) return { ...base, expired: expired.length };
      const next = await tx
        .select({ number: dropEntries.number, userId: dropEntries.userId, position: dropEntries.position })
        .from(dropEntries)
        .where(and(eq(dropEntries.dropId, dropId), eq(dropEntries.status, 'waiting'), sql`${dropEntries.position} IS NOT NULL`))
        .orderBy(dropEntries.position)
        .limit(allowed);
      if (next.length === 0) return { ...base, expired: expired.length };
      const batch = drop.batches + 1;
      const expiresAt = new Date(now.getTime() + drop.checkoutWindowSeconds * 1000);
      const secret = deps.secrets[0]!;
      const tokens = next.map((entry) => signAdmission(secret, { userId: entry.userId, dropId, entryNumber: entry.number, expiresAt: expiresAt.getTime() }));
      await tx.execute(sql`
        UPDATE ${dropEntries} AS e SET status = 'admitted', admitted_at = ${now}, expires_at = ${expiresAt}, batch = ${batch}, token = v.token
        FROM unnest(${`{${next.map((entry) => entry.number).join(',')}}`}::int[], ${toPgTextArray(tokens)}::text[]) AS v(number, token)
        WHERE e.drop_id = ${dropId} AND e.number = v.number AND e.status = 'waiting'`);
      const nowServing = Math.max(drop.nowServing, ...next.map((entry) => entry.position!));
      await tx.update(drops).set({ nowServing, batches: batch }).where(eq(drops.id, dropId));
      return { ...base, expired: expired.length, admitted: next.length, nowServing, announce: true };
    },
    { isolationLevel: 'read committed' },
  );
  const { announce, ...round } = result;
  // Once per batch, after the commit, never per fan.
  if (announce) await publishLive(deps.db, { topic: 'drop', id: dropId, nowServing: round.nowServing, status: round.status, ...round.reveal });
  return round;
}

/** A Postgres array literal of texts (tokens hold only URL-safe characters and dots). */
function toPgTextArray(values: string[]): string {
  return `{${values.map((value) => `"${value}"`).join(',')}}`;
}

/** Announces a drop's status (cancelled, postponed) to every open page, after the change committed. */
export async function announceDrop(db: Db, drop: { id: string; nowServing: number; status: DropStatus }): Promise<void> {
  await publishLive(db, { topic: 'drop', id: drop.id, nowServing: drop.nowServing, status: drop.status });
}

/** The public fairness data: entry numbers only. */
export async function dropFairness(db: Db, ref: { dropId: string } | { slug: string }) {
  const drop = await requireDrop(db, ref);
  const revealed = drop.seedRevealedAt !== null && drop.preQueueCount !== null;
  const preQueueCount = drop.preQueueCount ?? 0;
  const ordered = revealed
    ? await db
        .select({ number: dropEntries.number })
        .from(dropEntries)
        .where(and(eq(dropEntries.dropId, drop.id), sql`${dropEntries.number} <= ${preQueueCount}`))
        .orderBy(dropEntries.position)
    : [];
  return {
    dropId: drop.id,
    slug: drop.slug,
    status: drop.status,
    seedHash: drop.seedHash,
    entryListHash: drop.entryListHash,
    seed: revealed ? drop.seed : null,
    preQueue: revealed ? Array.from({ length: preQueueCount }, (_, index) => index + 1) : [],
    order: ordered.map((row) => row.number),
    entrants: drop.entryCount,
    nowServing: drop.nowServing,
    inOrderShare: shareInOrder(await admissionsOf(db, drop.id)),
  };
}

/** Every admission of a drop: its position and batch. */
export async function admissionsOf(db: Db, dropId: string): Promise<{ position: number; batch: number }[]> {
  const rows = await db
    .select({ position: dropEntries.position, batch: dropEntries.batch })
    .from(dropEntries)
    .where(and(eq(dropEntries.dropId, dropId), sql`${dropEntries.batch} IS NOT NULL`));
  return rows.map((row) => ({ position: row.position!, batch: row.batch! }));
}

/** Forgets used challenges past their expiry (they could not be used again anyway). */
export async function forgetUsedChallenges(db: Db, now = new Date()): Promise<void> {
  await db.delete(dropUsedChallenges).where(sql`${dropUsedChallenges.expiresAt} < ${now}`);
}

/** The places of a drop's entries that have one, by account: what the live pacing reads (drop-pacing.ts). */
export async function dropPlaces(db: Db, dropId: string): Promise<Map<string, number>> {
  const rows = await db
    .select({ userId: dropEntries.userId, position: dropEntries.position })
    .from(dropEntries)
    .where(and(eq(dropEntries.dropId, dropId), isNotNull(dropEntries.position)));
  return new Map(rows.map((row) => [row.userId, row.position!]));
}
