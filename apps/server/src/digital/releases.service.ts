import { and, asc, count, desc, eq, inArray, notInArray, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { adminReleaseOutput, publicReleaseOutput, saveReleaseInput } from '@storefront/domain/contracts/digital.ts';
import { DIGITAL_MESSAGES } from '@storefront/domain/digital.ts';
import type { Db } from '../db/client.ts';
import { downloadCodes, releases, releaseTracks, trackFiles } from '../db/schema/index.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { AppError } from '../errors.ts';
import { filesOfTracks, queueFileCleanup } from './cleanup.service.ts';
import { AUDIO_FORMATS } from './encoder.ts';
import { fileInputsOf, staleFormats } from './file-signature.service.ts';

/**
 * Releases and their tracks (issue 28): the label's console writes them, the release page
 * reads the published ones. Only this file and the other services of this folder touch the
 * digital tables.
 */
export type SaveReleaseInput = z.output<typeof saveReleaseInput>;
export type AdminRelease = z.input<typeof adminReleaseOutput>;
export type PublicRelease = z.input<typeof publicReleaseOutput>;
export type ReleaseRow = typeof releases.$inferSelect;
export type TrackRow = typeof releaseTracks.$inferSelect;

export const ENCODE_QUEUE = 'encode-track';

/**
 * Creates a release or replaces its fields and track list (tracks keep their masters by id;
 * missing ones are removed, and the removal of their stored files is queued in the same transaction).
 */
export async function saveRelease(db: Db, jobs: JobQueue, input: SaveReleaseInput, artwork: string): Promise<{ id: number; trackIds: number[] }> {
  return runTransaction(db, async (tx) => {
    const fields = {
      kind: input.kind,
      title: input.title,
      artist: input.artist,
      releaseDate: input.releaseDate,
      artwork,
      credits: input.credits ?? '',
      upc: input.upc ?? null,
      priceCents: input.priceCents,
      nameYourPrice: input.nameYourPrice,
      previewSeconds: input.previewSeconds,
      published: input.published,
      updatedAt: new Date(),
    };
    let releaseId: number;
    if (input.id) {
      const [updated] = await tx.update(releases).set(fields).where(eq(releases.id, input.id)).returning({ id: releases.id });
      if (!updated) throw new AppError('not-found', DIGITAL_MESSAGES.releaseNotFound);
      releaseId = updated.id;
    } else {
      const [created] = await tx.insert(releases).values(fields).returning({ id: releases.id });
      releaseId = created!.id;
    }
    const kept = input.tracks.flatMap((track) => (track.id ? [track.id] : []));
    const dropped = await tx
      .select({ id: releaseTracks.id })
      .from(releaseTracks)
      .where(and(eq(releaseTracks.releaseId, releaseId), kept.length ? notInArray(releaseTracks.id, kept) : undefined));
    const leftBehind = await filesOfTracks(
      tx,
      dropped.map((track) => track.id),
    );
    await tx.delete(releaseTracks).where(and(eq(releaseTracks.releaseId, releaseId), kept.length ? notInArray(releaseTracks.id, kept) : undefined));
    await queueFileCleanup(tx, jobs, leftBehind);
    // Positions are unique per release: park the kept tracks out of the way, then number them in order.
    await tx
      .update(releaseTracks)
      .set({ position: sql`-${releaseTracks.id}` })
      .where(eq(releaseTracks.releaseId, releaseId));
    const trackIds: number[] = [];
    for (const [index, track] of input.tracks.entries()) {
      const values = {
        title: track.title,
        isrc: track.isrc ?? null,
        lyrics: track.lyrics ?? '',
        shownDurationSeconds: track.shownDurationSeconds ?? null,
        priceCents: track.priceCents ?? null,
        nameYourPrice: track.nameYourPrice,
        position: index + 1,
        updatedAt: new Date(),
      };
      if (track.id) {
        const [row] = await tx
          .update(releaseTracks)
          .set(values)
          .where(and(eq(releaseTracks.id, track.id), eq(releaseTracks.releaseId, releaseId)))
          .returning({ id: releaseTracks.id });
        if (!row) throw new AppError('not-found', DIGITAL_MESSAGES.trackNotFound);
        trackIds.push(row.id);
      } else {
        const [row] = await tx
          .insert(releaseTracks)
          .values({ ...values, releaseId })
          .returning({ id: releaseTracks.id });
        trackIds.push(row!.id);
      }
    }
    await requeueStaleFiles(tx, jobs, trackIds);
    return { id: releaseId, trackIds };
  });
}

function adminTrack(track: TrackRow) {
  return {
    id: track.id,
    position: track.position,
    title: track.title,
    isrc: track.isrc,
    lyrics: track.lyrics,
    shownDurationSeconds: track.shownDurationSeconds,
    priceCents: track.priceCents,
    nameYourPrice: track.nameYourPrice,
    masterPath: track.masterPath,
    durationSeconds: track.durationSeconds,
    encodeStatus: track.encodeStatus,
    encodeDone: track.encodeDone,
    encodeTotal: AUDIO_FORMATS.length,
    encodeAttempts: track.encodeAttempts,
    encodeError: track.encodeError,
  };
}

export async function listReleasesForAdmin(db: Db): Promise<AdminRelease[]> {
  const rows = await db
    .select()
    .from(releases)
    .orderBy(sql`${releases.releaseDate} DESC`, sql`${releases.id} DESC`);
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const tracks = await db.select().from(releaseTracks).where(inArray(releaseTracks.releaseId, ids)).orderBy(asc(releaseTracks.position));
  const codeCounts = await db
    .select({ releaseId: downloadCodes.releaseId, total: count(), redeemed: count(downloadCodes.redeemedAt) })
    .from(downloadCodes)
    .where(inArray(downloadCodes.releaseId, ids))
    .groupBy(downloadCodes.releaseId);
  return rows.map((row) => {
    const codes = codeCounts.find((entry) => entry.releaseId === row.id);
    return {
      id: row.id,
      kind: row.kind,
      title: row.title,
      artist: row.artist,
      releaseDate: row.releaseDate,
      artwork: row.artwork,
      credits: row.credits,
      upc: row.upc,
      priceCents: row.priceCents,
      nameYourPrice: row.nameYourPrice,
      previewSeconds: row.previewSeconds,
      published: row.published,
      tracks: tracks.filter((track) => track.releaseId === row.id).map(adminTrack),
      codes: { total: codes?.total ?? 0, redeemed: codes?.redeemed ?? 0 },
    };
  });
}

export async function findRelease(db: Db, id: number): Promise<ReleaseRow | undefined> {
  const [row] = await db.select().from(releases).where(eq(releases.id, id));
  return row;
}

export async function findTrack(db: Db | Tx, id: number): Promise<TrackRow | undefined> {
  const [row] = await db.select().from(releaseTracks).where(eq(releaseTracks.id, id));
  return row;
}

export async function listTracks(db: Db, releaseId: number): Promise<TrackRow[]> {
  return db.select().from(releaseTracks).where(eq(releaseTracks.releaseId, releaseId)).orderBy(asc(releaseTracks.position));
}

export const previewUrl = (trackId: number) => `/api/digital/tracks/${trackId}/preview`;

/** A published release as the release page shows it; undefined when there is none (or it is a draft). */
export async function getPublicRelease(db: Db, id: number, products: { productId: string; trackId: number | null }[], today = new Date()): Promise<PublicRelease | undefined> {
  const release = await findRelease(db, id);
  if (!release?.published) return undefined;
  const tracks = await listTracks(db, id);
  const previews = await db
    .select({ trackId: trackFiles.trackId })
    .from(trackFiles)
    .where(
      and(
        inArray(
          trackFiles.trackId,
          tracks.map((track) => track.id),
        ),
        eq(trackFiles.format, 'preview'),
      ),
    );
  const withPreview = new Set(previews.map((row) => row.trackId));
  return {
    id: release.id,
    kind: release.kind,
    title: release.title,
    artist: release.artist,
    releaseDate: release.releaseDate,
    artwork: release.artwork,
    credits: release.credits,
    priceCents: release.priceCents,
    nameYourPrice: release.nameYourPrice,
    preorder: release.releaseDate > today.toISOString().slice(0, 10),
    productId: products.find((entry) => entry.trackId === null)?.productId ?? null,
    tracks: tracks.map((track) => ({
      id: track.id,
      position: track.position,
      title: track.title,
      durationSeconds: track.shownDurationSeconds ?? track.durationSeconds,
      priceCents: track.priceCents,
      nameYourPrice: track.nameYourPrice,
      lyrics: track.lyrics,
      previewUrl: withPreview.has(track.id) ? previewUrl(track.id) : null,
      productId: products.find((entry) => entry.trackId === track.id)?.productId ?? null,
    })),
    // The roster's credits are the roster's: digital/pages and functions add them (ArtistsOfRelease).
    artists: [],
  };
}

/** The roster artists a release credits, as the roster answers (decision 070); app.ts hands it over, digital imports no roster. */
export type ArtistsOfRelease = (releaseId: number) => Promise<{ id: number; name: string; slug: string }[]>;

/**
 * Files follow their release (issue 40 item 1): a saved change to what a track's files carry
 * (the preview's length, the cover, the tags) queues their making again. Until then the preview
 * is not served (library.service.ts); downloads keep the old files until the new ones replace
 * them. A track still encoding checks again when it ends (encode.service.ts).
 */
async function requeueStaleFiles(tx: Tx, jobs: JobQueue, trackIds: number[]): Promise<void> {
  for (const trackId of trackIds) {
    const inputs = await fileInputsOf(tx, trackId);
    if (!inputs || inputs.generation === null || inputs.status !== 'ready') continue;
    const stale = await staleFormats(tx, trackId, inputs.generation, inputs);
    if (stale.length === 0) continue;
    await tx
      .update(releaseTracks)
      .set({ encodeStatus: 'queued', encodeDone: AUDIO_FORMATS.length - stale.length, encodeAttempts: 0, encodeError: null, updatedAt: new Date() })
      .where(eq(releaseTracks.id, trackId));
    await jobs.sendInTransaction(tx, ENCODE_QUEUE, { trackId, generation: inputs.generation });
  }
}

/** Points a track at a stored master (its generation) and queues the encoding, in one transaction. */
export async function setTrackMaster(db: Db, jobs: JobQueue, trackId: number, master: { path: string; generation: number }): Promise<void> {
  await runTransaction(db, async (tx) => {
    const [before] = await tx
      .select({ path: releaseTracks.masterPath, generation: releaseTracks.masterGeneration })
      .from(releaseTracks)
      .where(eq(releaseTracks.id, trackId))
      .for('update');
    const [row] = await tx
      .update(releaseTracks)
      .set({ masterPath: master.path, masterGeneration: master.generation, encodeStatus: 'queued', encodeDone: 0, encodeAttempts: 0, encodeError: null, updatedAt: new Date() })
      .where(eq(releaseTracks.id, trackId))
      .returning({ id: releaseTracks.id });
    if (!row) throw new AppError('not-found', DIGITAL_MESSAGES.trackNotFound);
    await jobs.sendInTransaction(tx, ENCODE_QUEUE, { trackId, generation: master.generation });
    // A master at another path is detached: its object goes once nothing else uses it. (At the
    // same path the upload itself replaced the bytes; the encode job removes the old encodings.)
    if (before?.path && before.generation !== null && before.path !== master.path) {
      await queueFileCleanup(tx, jobs, { keys: [], masters: [{ path: before.path, generation: before.generation }] });
    }
  });
}

/** The console's Retry on a failed encoding: a fresh set of attempts. */
export async function retryTrackEncoding(db: Db, jobs: JobQueue, trackId: number): Promise<void> {
  await runTransaction(db, async (tx) => {
    const [row] = await tx
      .update(releaseTracks)
      .set({ encodeStatus: 'queued', encodeAttempts: 0, encodeError: null, updatedAt: new Date() })
      .where(and(eq(releaseTracks.id, trackId), eq(releaseTracks.encodeStatus, 'failed')))
      .returning({ generation: releaseTracks.masterGeneration });
    if (!row) {
      const track = await findTrack(tx, trackId);
      if (!track) throw new AppError('not-found', DIGITAL_MESSAGES.trackNotFound);
      // Not failed (queued, encoding or ready): nothing to retry.
      return;
    }
    await jobs.sendInTransaction(tx, ENCODE_QUEUE, { trackId, generation: row.generation });
  });
}

/** The published releases, for sitemap.xml (decision 062): a draft or a withdrawn release is not listed. */
export async function listPublishedReleases(db: Db): Promise<{ id: number; updatedAt: Date }[]> {
  return db.select({ id: releases.id, updatedAt: releases.updatedAt }).from(releases).where(eq(releases.published, true)).orderBy(asc(releases.id));
}

/** Published releases as an artist's page lists them (decision 070): newest first. */
export async function listPublishedReleaseCards(
  db: Db,
  ids: number[],
): Promise<{ id: number; kind: ReleaseRow['kind']; title: string; artist: string; releaseDate: string; artwork: string; updatedAt: Date }[]> {
  if (ids.length === 0) return [];
  return db
    .select({
      id: releases.id,
      kind: releases.kind,
      title: releases.title,
      artist: releases.artist,
      releaseDate: releases.releaseDate,
      artwork: releases.artwork,
      updatedAt: releases.updatedAt,
    })
    .from(releases)
    .where(and(inArray(releases.id, ids), eq(releases.published, true)))
    .orderBy(desc(releases.releaseDate), desc(releases.id));
}

/** Each release's artist credit as the console saved it, for the roster's report of releases linked to no artist. */
export async function listReleaseCredits(db: Db): Promise<{ id: number; title: string; artist: string }[]> {
  return db.select({ id: releases.id, title: releases.title, artist: releases.artist }).from(releases).orderBy(asc(releases.id));
}

/** The release of each track (a track's credit shows on its release's artist page). */
export async function releasesOfTracks(db: Db, trackIds: number[]): Promise<number[]> {
  if (trackIds.length === 0) return [];
  const rows = await db.selectDistinct({ releaseId: releaseTracks.releaseId }).from(releaseTracks).where(inArray(releaseTracks.id, trackIds));
  return rows.map((row) => row.releaseId);
}
