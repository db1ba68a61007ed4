import { and, asc, count, eq, inArray, ne, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { creditSubject, saveArtistInput } from '@storefront/domain/contracts/roster.ts';
import { ARTIST_SLUG_MAX, artistSlug, ROSTER_MESSAGES } from '@storefront/domain/roster.ts';
import { recordAudit, type Actor } from '../audit/audit.service.ts';
import type { Db } from '../db/client.ts';
import { sqlState } from '../db/errors.ts';
import { artists, artistSlugs, productArtists, releaseArtists, trackArtists } from '../db/schema/index.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';

/**
 * The label's roster (issue 36 part 1, decision 070): artists, the addresses they had, and the
 * credits of releases, tracks and products. An address once used always leads to its artist
 * (a rename or a merge keeps it redirecting), and an artist anything names is never deleted:
 * the credit tables' foreign keys refuse it, and the console can only merge it into another.
 */
export type ArtistRow = typeof artists.$inferSelect;
export type SaveArtistInput = z.output<typeof saveArtistInput>;
export type CreditSubject = z.output<typeof creditSubject>;

export interface ArtistCredits {
  releaseIds: number[];
  trackIds: number[];
  productIds: string[];
}

/** Every change of an address takes this lock: an address is never both one artist's and another's old one. */
async function lockAddresses(tx: Tx) {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('roster-addresses'))`);
}

/** True when the address is free for this artist: no other artist has it, now or before. */
async function addressFree(tx: Tx, slug: string, artistId: number | null): Promise<boolean> {
  const current = await tx
    .select({ id: artists.id })
    .from(artists)
    .where(and(eq(artists.slug, slug), artistId === null ? undefined : ne(artists.id, artistId)));
  const old = await tx
    .select({ id: artistSlugs.artistId })
    .from(artistSlugs)
    .where(and(eq(artistSlugs.slug, slug), artistId === null ? undefined : ne(artistSlugs.artistId, artistId)));
  return current.length === 0 && old.length === 0;
}

export async function findArtist(db: Db | Tx, id: number): Promise<ArtistRow | undefined> {
  const [row] = await db.select().from(artists).where(eq(artists.id, id));
  return row;
}

/** The artist at an address, its current one or one it had before (then `moved` is true: the page redirects). */
export async function findArtistBySlug(db: Db, slug: string): Promise<{ artist: ArtistRow; moved: boolean } | undefined> {
  const [current] = await db.select().from(artists).where(eq(artists.slug, slug));
  if (current) return { artist: current, moved: false };
  const [old] = await db.select({ artist: artists }).from(artistSlugs).innerJoin(artists, eq(artists.id, artistSlugs.artistId)).where(eq(artistSlugs.slug, slug));
  return old ? { artist: old.artist, moved: true } : undefined;
}

/** The roster in name order (the public list, the sitemap and the console). */
export async function listArtists(db: Db): Promise<ArtistRow[]> {
  return db
    .select()
    .from(artists)
    .orderBy(asc(sql`lower(${artists.name})`), asc(artists.id));
}

/** What names one artist. */
export async function creditsOf(db: Db | Tx, artistId: number): Promise<ArtistCredits> {
  // One after another: on a transaction's one connection, queries cannot overlap.
  const releaseRows = await db.select({ id: releaseArtists.releaseId }).from(releaseArtists).where(eq(releaseArtists.artistId, artistId)).orderBy(asc(releaseArtists.releaseId));
  const trackRows = await db.select({ id: trackArtists.trackId }).from(trackArtists).where(eq(trackArtists.artistId, artistId)).orderBy(asc(trackArtists.trackId));
  const productRows = await db.select({ id: productArtists.productId }).from(productArtists).where(eq(productArtists.artistId, artistId)).orderBy(asc(productArtists.productId));
  return { releaseIds: releaseRows.map((row) => row.id), trackIds: trackRows.map((row) => row.id), productIds: productRows.map((row) => row.id) };
}

/** Every artist's credits and old addresses at once (the console's list). */
export async function rosterDetails(db: Db): Promise<{ credits: Map<number, ArtistCredits>; oldSlugs: Map<number, string[]> }> {
  const [releaseRows, trackRows, productRows, slugRows] = await Promise.all([
    db.select().from(releaseArtists).orderBy(asc(releaseArtists.releaseId)),
    db.select().from(trackArtists).orderBy(asc(trackArtists.trackId)),
    db.select().from(productArtists).orderBy(asc(productArtists.productId)),
    db.select().from(artistSlugs).orderBy(asc(artistSlugs.slug)),
  ]);
  const credits = new Map<number, ArtistCredits>();
  const of = (id: number) => credits.get(id) ?? credits.set(id, { releaseIds: [], trackIds: [], productIds: [] }).get(id)!;
  for (const row of releaseRows) of(row.artistId).releaseIds.push(row.releaseId);
  for (const row of trackRows) of(row.artistId).trackIds.push(row.trackId);
  for (const row of productRows) of(row.artistId).productIds.push(row.productId);
  const oldSlugs = new Map<number, string[]>();
  for (const row of slugRows) oldSlugs.set(row.artistId, [...(oldSlugs.get(row.artistId) ?? []), row.slug]);
  return { credits, oldSlugs };
}

/** The releases some artist is credited on (the rest are the migration's report of names it could not match). */
export async function creditedReleaseIds(db: Db): Promise<Set<number>> {
  const rows = await db.selectDistinct({ id: releaseArtists.releaseId }).from(releaseArtists);
  return new Set(rows.map((row) => row.id));
}

/** The artists a release credits, in credit order (its page links them). */
export async function artistsOfRelease(db: Db, releaseId: number): Promise<{ id: number; name: string; slug: string }[]> {
  return db
    .select({ id: artists.id, name: artists.name, slug: artists.slug })
    .from(releaseArtists)
    .innerJoin(artists, eq(artists.id, releaseArtists.artistId))
    .where(eq(releaseArtists.releaseId, releaseId))
    .orderBy(asc(releaseArtists.position), asc(sql`lower(${artists.name})`));
}

/** These artists' names and addresses by number (a fan's follows, decision 074); a missing one is left out. */
export async function artistsByIds(db: Db | Tx, ids: readonly number[]): Promise<Map<number, { id: number; name: string; slug: string }>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: artists.id, name: artists.name, slug: artists.slug })
    .from(artists)
    .where(inArray(artists.id, [...ids]));
  return new Map(rows.map((row) => [row.id, row]));
}

/** The artists each of these products credits, in credit order (a purchase's follows, a product page's buttons; decision 074). */
export async function artistsOfProducts(db: Db | Tx, productIds: readonly string[]): Promise<{ productId: string; id: number; name: string; slug: string }[]> {
  if (productIds.length === 0) return [];
  return db
    .select({ productId: productArtists.productId, id: artists.id, name: artists.name, slug: artists.slug })
    .from(productArtists)
    .innerJoin(artists, eq(artists.id, productArtists.artistId))
    .where(inArray(productArtists.productId, [...productIds]))
    .orderBy(asc(productArtists.position), asc(sql`lower(${artists.name})`));
}

/** The products credited to the artist at this address (or an old one of theirs): the shop's artist filter. Undefined: no such artist. */
export async function productIdsOfArtist(db: Db, slug: string): Promise<string[] | undefined> {
  const found = await findArtistBySlug(db, slug);
  if (!found) return undefined;
  return (await creditsOf(db, found.artist.id)).productIds;
}

/**
 * Adds an artist or edits one. A new artist without an address gets one made from its name
 * (-2, -3... when taken); a changed address keeps the old one redirecting. An address another
 * artist has, or had, is refused: a shared link never changes whom it shows.
 */
export async function saveArtist(db: Db, input: SaveArtistInput, image: string, actor: Actor): Promise<{ id: number; slug: string }> {
  try {
    return await saveArtistOnce(db, input, image, actor);
  } catch (error) {
    // The address's unique index, should a change slip past the lock: the same answer.
    if (sqlState(error) === '23505') throw new AppError('already-exists', ROSTER_MESSAGES.slugTaken);
    throw error;
  }
}

async function saveArtistOnce(db: Db, input: SaveArtistInput, image: string, actor: Actor): Promise<{ id: number; slug: string }> {
  return runTransaction(db, async (tx) => {
    await lockAddresses(tx);
    const fields = { name: input.name, bio: input.bio ?? '', image, links: input.links };
    if (input.id === undefined) {
      let slug = input.slug;
      if (slug === undefined) {
        const base = artistSlug(input.name) || 'artist';
        slug = base;
        for (let n = 2; !(await addressFree(tx, slug, null)); n += 1) slug = `${base.slice(0, ARTIST_SLUG_MAX - 5).replace(/-+$/, '')}-${n}`;
      } else if (!(await addressFree(tx, slug, null))) {
        throw new AppError('already-exists', ROSTER_MESSAGES.slugTaken);
      }
      const [row] = await tx
        .insert(artists)
        .values({ ...fields, slug })
        .returning({ id: artists.id });
      await recordAudit(tx, { actor, action: 'artist.create', targetType: 'artist', targetId: String(row!.id), after: { ...fields, slug } });
      return { id: row!.id, slug };
    }
    const [before] = await tx.select().from(artists).where(eq(artists.id, input.id)).for('update');
    if (!before) throw new AppError('not-found', ROSTER_MESSAGES.notFound);
    const slug = input.slug ?? before.slug;
    if (slug !== before.slug) {
      if (!(await addressFree(tx, slug, before.id))) throw new AppError('already-exists', ROSTER_MESSAGES.slugTaken);
      // The old address redirects; taking back an address it had before makes it current again.
      await tx.delete(artistSlugs).where(eq(artistSlugs.slug, slug));
      await tx.insert(artistSlugs).values({ slug: before.slug, artistId: before.id });
    }
    await tx
      .update(artists)
      .set({ ...fields, slug, updatedAt: new Date() })
      .where(eq(artists.id, before.id));
    await recordAudit(tx, {
      actor,
      action: 'artist.edit',
      targetType: 'artist',
      targetId: String(before.id),
      before: { name: before.name, slug: before.slug, bio: before.bio, image: before.image, links: before.links },
      after: { ...fields, slug },
    });
    return { id: before.id, slug };
  });
}

function subjectRef(subject: CreditSubject): string {
  return `${subject.kind}:${subject.id}`;
}

/**
 * Credits an artist (or takes the credit away) on a release, a track or a product. `alsoProducts`
 * are credited with a release (the products that sell or carry it, read from the digital area).
 */
export async function setCredit(db: Db, input: { artistId: number; subject: CreditSubject; linked: boolean; alsoProducts?: string[] }, actor: Actor): Promise<void> {
  const { artistId, subject, linked } = input;
  try {
    await runTransaction(db, async (tx) => {
      const [artist] = await tx.select({ id: artists.id }).from(artists).where(eq(artists.id, artistId)).for('share');
      if (!artist) throw new AppError('not-found', ROSTER_MESSAGES.notFound);
      const products = subject.kind === 'product' ? [subject.id] : (input.alsoProducts ?? []);
      let changed = 0;
      if (subject.kind === 'release') {
        changed += linked
          ? (await tx.insert(releaseArtists).values({ releaseId: subject.id, artistId, position: 0 }).onConflictDoNothing().returning()).length
          : (
              await tx
                .delete(releaseArtists)
                .where(and(eq(releaseArtists.releaseId, subject.id), eq(releaseArtists.artistId, artistId)))
                .returning()
            ).length;
      } else if (subject.kind === 'track') {
        changed += linked
          ? (await tx.insert(trackArtists).values({ trackId: subject.id, artistId, position: 0 }).onConflictDoNothing().returning()).length
          : (
              await tx
                .delete(trackArtists)
                .where(and(eq(trackArtists.trackId, subject.id), eq(trackArtists.artistId, artistId)))
                .returning()
            ).length;
      }
      if (products.length > 0) {
        changed += linked
          ? (
              await tx
                .insert(productArtists)
                .values(products.map((productId) => ({ productId, artistId, position: 0 })))
                .onConflictDoNothing()
                .returning()
            ).length
          : (
              await tx
                .delete(productArtists)
                .where(and(inArray(productArtists.productId, products), eq(productArtists.artistId, artistId)))
                .returning()
            ).length;
      }
      if (changed === 0) return;
      await tx.update(artists).set({ updatedAt: new Date() }).where(eq(artists.id, artistId));
      await recordAudit(tx, {
        actor,
        action: linked ? 'artist.link' : 'artist.unlink',
        targetType: 'artist',
        targetId: String(artistId),
        after: { subject: subjectRef(subject), ...(subject.kind === 'release' && products.length > 0 ? { products } : {}) },
      });
    });
  } catch (error) {
    // A release, track or product that does not exist: the credit's foreign key says so.
    if (sqlState(error) === '23503') throw new AppError('not-found', ROSTER_MESSAGES[`${subject.kind}NotFound`]);
    throw error;
  }
}

async function creditCount(tx: Tx, artistId: number): Promise<number> {
  const [releaseCount] = await tx.select({ n: count() }).from(releaseArtists).where(eq(releaseArtists.artistId, artistId));
  const [trackCount] = await tx.select({ n: count() }).from(trackArtists).where(eq(trackArtists.artistId, artistId));
  const [productCount] = await tx.select({ n: count() }).from(productArtists).where(eq(productArtists.artistId, artistId));
  return (releaseCount?.n ?? 0) + (trackCount?.n ?? 0) + (productCount?.n ?? 0);
}

/**
 * Merges `from` into `into`: every credit moves (one already there stays one), every address
 * of `from` (its current one too) redirects to `into`, and `from` goes. One transaction.
 */
export async function mergeArtist(
  db: Db,
  input: { from: number; into: number },
  actor: Actor,
  /** What other areas keep of `from` moves to `into` in the merge's transaction (fans' follows, decision 074). */
  alsoMove: (tx: Tx, from: number, into: number) => Promise<void> = async () => {},
): Promise<void> {
  if (input.from === input.into) throw new AppError('invalid-argument', ROSTER_MESSAGES.mergeIntoSelf);
  await runTransaction(db, async (tx) => {
    await lockAddresses(tx);
    const rows = await tx
      .select()
      .from(artists)
      .where(inArray(artists.id, [input.from, input.into]))
      .orderBy(asc(artists.id))
      .for('update');
    const from = rows.find((row) => row.id === input.from);
    const into = rows.find((row) => row.id === input.into);
    if (!from || !into) throw new AppError('not-found', ROSTER_MESSAGES.notFound);
    const moved = await creditsOf(tx, from.id);
    await tx.execute(
      sql`INSERT INTO ${releaseArtists} (release_id, artist_id, position) SELECT release_id, ${into.id}, position FROM ${releaseArtists} WHERE artist_id = ${from.id} ON CONFLICT DO NOTHING`,
    );
    await tx.execute(
      sql`INSERT INTO ${trackArtists} (track_id, artist_id, position) SELECT track_id, ${into.id}, position FROM ${trackArtists} WHERE artist_id = ${from.id} ON CONFLICT DO NOTHING`,
    );
    await tx.execute(
      sql`INSERT INTO ${productArtists} (product_id, artist_id, position) SELECT product_id, ${into.id}, position FROM ${productArtists} WHERE artist_id = ${from.id} ON CONFLICT DO NOTHING`,
    );
    await tx.delete(releaseArtists).where(eq(releaseArtists.artistId, from.id));
    await tx.delete(trackArtists).where(eq(trackArtists.artistId, from.id));
    await tx.delete(productArtists).where(eq(productArtists.artistId, from.id));
    await tx.update(artistSlugs).set({ artistId: into.id }).where(eq(artistSlugs.artistId, from.id));
    await tx.insert(artistSlugs).values({ slug: from.slug, artistId: into.id });
    await alsoMove(tx, from.id, into.id);
    await tx.delete(artists).where(eq(artists.id, from.id));
    await tx.update(artists).set({ updatedAt: new Date() }).where(eq(artists.id, into.id));
    await recordAudit(tx, {
      actor,
      action: 'artist.merge',
      targetType: 'artist',
      targetId: String(into.id),
      before: { id: from.id, name: from.name, slug: from.slug },
      after: { into: { id: into.id, name: into.name, slug: into.slug }, moved },
    });
  });
}

/** Removes an artist nothing names (a typo); one that is named can only be merged (decision 070). */
export async function deleteArtist(db: Db, id: number, actor: Actor): Promise<void> {
  try {
    await runTransaction(db, async (tx) => {
      const [before] = await tx.select().from(artists).where(eq(artists.id, id)).for('update');
      if (!before) throw new AppError('not-found', ROSTER_MESSAGES.notFound);
      if ((await creditCount(tx, id)) > 0) throw new AppError('failed-precondition', ROSTER_MESSAGES.inUse);
      await tx.delete(artists).where(eq(artists.id, id));
      await recordAudit(tx, { actor, action: 'artist.delete', targetType: 'artist', targetId: String(id), before: { name: before.name, slug: before.slug } });
    });
  } catch (error) {
    // A credit written between the count and the delete: the foreign key (ON DELETE RESTRICT: 23001) refuses, the answer is the same.
    if (sqlState(error) === '23001' || sqlState(error) === '23503') throw new AppError('failed-precondition', ROSTER_MESSAGES.inUse);
    throw error;
  }
}
