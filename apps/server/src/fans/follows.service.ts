import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { followTarget } from '@storefront/domain/contracts/fans.ts';
import type { Db } from '../db/client.ts';
import { sqlState } from '../db/errors.ts';
import { fanFollows } from '../db/schema/index.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';
import { publishLive } from '../live/live.publish.ts';
import { artistsByIds, artistsOfProducts } from '../roster/roster.service.ts';

/**
 * Fans' follows of the label and of roster artists (issue 37 part 1, decision 074). Artists
 * are not accounts: these rows are apart from `follows` (the label's accounts followed at
 * signup). One row per fan and target (a unique index), so following twice is one follow.
 * Every change tells the fan's other tabs on the 'profile' topic, after its commit.
 */
export type FollowTarget = z.output<typeof followTarget>;

export const FOLLOW_MESSAGES = {
  noArtist: 'That artist is not on the roster.',
} as const;

/** The fan's follows: the label and each artist, the newest first. */
export async function listFollows(db: Db | Tx, userId: string) {
  const rows = await db
    .select({ artistId: fanFollows.artistId, createdAt: fanFollows.createdAt })
    .from(fanFollows)
    .where(eq(fanFollows.userId, userId))
    .orderBy(desc(fanFollows.createdAt), desc(fanFollows.id));
  const label = rows.find((row) => row.artistId === null);
  const named = await artistsByIds(
    db,
    rows.flatMap((row) => (row.artistId === null ? [] : [row.artistId])),
  );
  const artists = rows.flatMap((row) => {
    const artist = row.artistId === null ? undefined : named.get(row.artistId);
    return artist ? [{ ...artist, since: row.createdAt.toISOString() }] : [];
  });
  return { label: Boolean(label), labelSince: label ? label.createdAt.toISOString() : null, artists };
}

/** Follows or unfollows one target; following what is followed already changes nothing. */
export async function setFollow(db: Db, userId: string, target: FollowTarget, followed: boolean): Promise<void> {
  const artistId = target.kind === 'artist' ? target.artistId : null;
  await runTransaction(db, async (tx) => {
    if (followed) {
      try {
        await tx.insert(fanFollows).values({ userId, artistId, source: 'button' }).onConflictDoNothing();
      } catch (error) {
        // The artist's foreign key: no such artist (or merged away meanwhile).
        if (sqlState(error) === '23503') throw new AppError('not-found', FOLLOW_MESSAGES.noArtist);
        throw error;
      }
    } else {
      await tx.delete(fanFollows).where(and(eq(fanFollows.userId, userId), artistId === null ? isNull(fanFollows.artistId) : eq(fanFollows.artistId, artistId)));
    }
    await publishLive(tx, { topic: 'profile', userId });
  });
}

/**
 * Step "follow what was bought" (decision 074), in the order's transaction and only for an
 * order it created (so once per order): the artists the bought products credit, and the label
 * for a product that credits none. A follow the fan has already is left as it is.
 */
export async function followForPurchase(tx: Tx, userId: string, productIds: readonly string[]): Promise<void> {
  const unique = [...new Set(productIds)];
  if (unique.length === 0) return;
  const credited = await artistsOfProducts(tx, unique);
  const artistIds = [...new Set(credited.map((row) => row.id))];
  const label = unique.some((id) => !credited.some((row) => row.productId === id));
  const values = [...(label ? [null] : []), ...artistIds].map((artistId) => ({ userId, artistId, source: 'purchase' as const }));
  if (values.length === 0) return;
  await tx.insert(fanFollows).values(values).onConflictDoNothing();
  await publishLive(tx, { topic: 'profile', userId });
}

/** A roster merge (decision 070): the fans of `from` follow `into` (one follow each), in the merge's transaction. */
export async function moveFollows(tx: Tx, from: number, into: number): Promise<void> {
  await tx.execute(
    sql`INSERT INTO ${fanFollows} (user_id, artist_id, source, created_at) SELECT user_id, ${into}, source, created_at FROM ${fanFollows} WHERE artist_id = ${from} ON CONFLICT DO NOTHING`,
  );
  await tx.delete(fanFollows).where(eq(fanFollows.artistId, from));
}

/** Deleting an account (decision 074): its follows go with it. */
export async function forgetFollows(tx: Db | Tx, userId: string): Promise<void> {
  await tx.delete(fanFollows).where(eq(fanFollows.userId, userId));
}

/** The data export's part: every follow with when and how it was made. */
export async function exportFollows(db: Db, userId: string) {
  const rows = await db
    .select({ artistId: fanFollows.artistId, source: fanFollows.source, createdAt: fanFollows.createdAt })
    .from(fanFollows)
    .where(eq(fanFollows.userId, userId))
    .orderBy(fanFollows.id);
  const named = await artistsByIds(
    db,
    rows.flatMap((row) => (row.artistId === null ? [] : [row.artistId])),
  );
  return rows.map((row) => ({
    target: row.artistId === null ? 'label' : `artist:${named.get(row.artistId)?.slug ?? row.artistId}`,
    source: row.source,
    createdAt: row.createdAt.toISOString(),
  }));
}
