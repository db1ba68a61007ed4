import { createHash } from 'node:crypto';
import { and, count, eq } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { releases, releaseTracks, trackFiles } from '../db/schema/index.ts';
import type { Tx } from '../db/transaction.ts';
import { AUDIO_FORMATS, FORMAT_FILES, type AudioFormat } from './encoder.ts';

/** What a file is made of besides its master: the release's and the track's fields it carries. */
export interface FileInputs {
  release: { artwork: string; title: string; artist: string; previewSeconds: number | null };
  track: { title: string; position: number; isrc: string | null };
  trackCount: number;
}

/**
 * A short hash of what a file of `format` is made of besides the master (issue 40 item 1): the
 * cover, the tags and, for the preview, its length. A file whose signature is not the current
 * one is made again; a preview is not served until it is (a download keeps its old file until
 * the new one replaces it).
 */
export function fileSignature(format: AudioFormat, inputs: FileInputs): string {
  const { release, track, trackCount } = inputs;
  const made = {
    artwork: release.artwork,
    album: release.title,
    artist: release.artist,
    title: track.title,
    trackNumber: track.position,
    trackCount,
    isrc: track.isrc,
    ...(format === 'preview' ? { previewSeconds: release.previewSeconds } : {}),
  };
  return createHash('sha256').update(JSON.stringify(made)).digest('hex').slice(0, 16);
}

export const trackFileKey = (trackId: number, generation: number, format: AudioFormat, signature: string) =>
  `digital/${trackId}/${generation}/${signature}/${format}.${FORMAT_FILES[format].extension}`;

/** The signature a stored file's key carries (none for files made before signatures: they are made again). */
export const signatureOfKey = (key: string): string | null => {
  const parts = key.split('/');
  return parts.length === 5 ? parts[3]! : null;
};

/** The current inputs of a track's files, read from the database. */
export async function fileInputsOf(db: Db | Tx, trackId: number): Promise<(FileInputs & { generation: number | null; status: string }) | undefined> {
  const [row] = await db
    .select({ release: releases, track: releaseTracks })
    .from(releaseTracks)
    .innerJoin(releases, eq(releases.id, releaseTracks.releaseId))
    .where(eq(releaseTracks.id, trackId));
  if (!row) return undefined;
  const [{ n } = { n: 1 }] = await db.select({ n: count() }).from(releaseTracks).where(eq(releaseTracks.releaseId, row.track.releaseId));
  return { release: row.release, track: row.track, trackCount: n, generation: row.track.masterGeneration, status: row.track.encodeStatus };
}

/** The formats of a track whose file is missing or was made with other inputs than `inputs`. */
export async function staleFormats(db: Db | Tx, trackId: number, generation: number, inputs: FileInputs): Promise<AudioFormat[]> {
  const files = await db
    .select({ format: trackFiles.format, key: trackFiles.key })
    .from(trackFiles)
    .where(and(eq(trackFiles.trackId, trackId), eq(trackFiles.masterGeneration, generation)));
  const current = new Set(files.filter((file) => signatureOfKey(file.key) === fileSignature(file.format as AudioFormat, inputs)).map((file) => file.format));
  return AUDIO_FORMATS.filter((format) => !current.has(format));
}
