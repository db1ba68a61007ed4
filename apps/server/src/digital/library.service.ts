import { and, asc, eq, inArray, isNull, or } from 'drizzle-orm';
import type { z } from 'zod';
import type { libraryReleaseOutput } from '@storefront/domain/contracts/digital.ts';
import { downloadsOpen, type DownloadFormat } from '@storefront/domain/digital.ts';
import type { Db } from '../db/client.ts';
import { digitalOwnership, releases, releaseTracks, trackFiles } from '../db/schema/index.ts';
import type { Tx } from '../db/transaction.ts';
import { fileInputsOf, fileSignature, signatureOfKey } from './file-signature.service.ts';

/**
 * What fans own (issue 28): a whole release or single tracks, from a purchase, a code or a
 * physical product that carries the release. Granting twice from the same source is a no-op.
 */
export interface Grant {
  userId: string;
  releaseId: number;
  trackId: number | null;
  source: 'purchase' | 'code' | 'bundle';
  sourceRef: string;
}

export async function grantOwnership(db: Db | Tx, grant: Grant): Promise<void> {
  await db.insert(digitalOwnership).values(grant).onConflictDoNothing();
}

/** True when the user owns the whole release, or (with a track) that track. */
export async function owns(db: Db, userId: string, releaseId: number, trackId: number | null): Promise<boolean> {
  const [row] = await db
    .select({ id: digitalOwnership.id })
    .from(digitalOwnership)
    .where(
      and(
        eq(digitalOwnership.userId, userId),
        eq(digitalOwnership.releaseId, releaseId),
        trackId === null ? isNull(digitalOwnership.trackId) : or(isNull(digitalOwnership.trackId), eq(digitalOwnership.trackId, trackId)),
      ),
    )
    .limit(1);
  return row !== undefined;
}

/** Everything `userId` owns; `today` is the label's calendar day (a preorder's downloads open on its date). */
export async function getLibrary(db: Db, userId: string, today: string): Promise<z.input<typeof libraryReleaseOutput>[]> {
  const owned = await db.select().from(digitalOwnership).where(eq(digitalOwnership.userId, userId)).orderBy(asc(digitalOwnership.createdAt));
  if (owned.length === 0) return [];
  const releaseIds = [...new Set(owned.map((row) => row.releaseId))];
  const rows = await db.select().from(releases).where(inArray(releases.id, releaseIds));
  const tracks = await db.select().from(releaseTracks).where(inArray(releaseTracks.releaseId, releaseIds)).orderBy(asc(releaseTracks.position));
  return releaseIds.flatMap((releaseId) => {
    const release = rows.find((row) => row.id === releaseId);
    if (!release) return [];
    const mine = owned.filter((row) => row.releaseId === releaseId);
    const whole = mine.some((row) => row.trackId === null);
    return [
      {
        id: release.id,
        title: release.title,
        artist: release.artist,
        artwork: release.artwork,
        whole,
        sources: [...new Set(mine.map((row) => row.source))],
        availableOn: downloadsOpen(release.releaseDate, today) ? null : release.releaseDate,
        tracks: tracks
          .filter((track) => track.releaseId === releaseId)
          .map((track) => ({
            id: track.id,
            position: track.position,
            title: track.title,
            owned: whole || mine.some((row) => row.trackId === track.id),
            ready: track.encodeStatus === 'ready',
          })),
      },
    ];
  });
}

export interface DownloadFile {
  trackId: number;
  position: number;
  title: string;
  key: string;
  size: number;
  contentType: string;
}

/** The current encoded files of a release's tracks (one track with `trackId`) in `format`; tracks not yet encoded are absent. */
export async function downloadFiles(db: Db, releaseId: number, trackId: number | null, format: DownloadFormat | 'preview'): Promise<DownloadFile[]> {
  return db
    .select({
      trackId: releaseTracks.id,
      position: releaseTracks.position,
      title: releaseTracks.title,
      key: trackFiles.key,
      size: trackFiles.size,
      contentType: trackFiles.contentType,
    })
    .from(releaseTracks)
    .innerJoin(trackFiles, and(eq(trackFiles.trackId, releaseTracks.id), eq(trackFiles.masterGeneration, releaseTracks.masterGeneration), eq(trackFiles.format, format)))
    .where(and(eq(releaseTracks.releaseId, releaseId), trackId === null ? undefined : eq(releaseTracks.id, trackId)))
    .orderBy(asc(releaseTracks.position));
}

/**
 * The preview file of a track of a published release, only when it was made with the release's
 * current preview length, cover and tags (issue 40 item 1): after such a change nothing is served
 * until the new preview is ready, never the old file (which may be the whole track).
 */
export async function previewFile(db: Db, trackId: number): Promise<DownloadFile | undefined> {
  const [row] = await db
    .select({
      trackId: releaseTracks.id,
      position: releaseTracks.position,
      title: releaseTracks.title,
      key: trackFiles.key,
      size: trackFiles.size,
      contentType: trackFiles.contentType,
    })
    .from(releaseTracks)
    .innerJoin(releases, eq(releases.id, releaseTracks.releaseId))
    .innerJoin(trackFiles, and(eq(trackFiles.trackId, releaseTracks.id), eq(trackFiles.masterGeneration, releaseTracks.masterGeneration), eq(trackFiles.format, 'preview')))
    .where(and(eq(releaseTracks.id, trackId), eq(releases.published, true)));
  if (!row) return undefined;
  const inputs = await fileInputsOf(db, trackId);
  return inputs && signatureOfKey(row.key) === fileSignature('preview', inputs) ? row : undefined;
}
