import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { and, eq, inArray, sql } from 'drizzle-orm';
import sharp from 'sharp';
import { STORAGE_BUCKET } from '@storefront/domain/storage.ts';
import { parseDownloadUrl } from '@storefront/domain/storage-location.ts';
import { warnCleanup } from '../cleanup.ts';
import { releases, releaseTracks, trackFiles } from '../db/schema/index.ts';
import { runTransaction } from '../db/transaction.ts';
import type { StorageDeps } from '../storage/storage.service.ts';
import { findByToken, findObject, objectKey } from '../storage/storage.service.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { FILE_CLEANUP_QUEUE, type FileCleanupJob } from './cleanup.service.ts';
import { AUDIO_FORMATS, encode, FORMAT_FILES, probeAudio, type AudioFormat } from './encoder.ts';
import { fileInputsOf, fileSignature, signatureOfKey, staleFormats, trackFileKey, type FileInputs } from './file-signature.service.ts';
import { ENCODE_QUEUE } from './releases.service.ts';

/**
 * The `encode-track` job (issue 28, decision 056): a track's master into every format and
 * the preview, one ffmpeg run per format, each file stored through the storage driver (local
 * disk or S3) under a key made of the track, the master's generation and the format, then
 * recorded. So a job that runs again (a retry, or a worker that died and the job expired to
 * another instance) skips the formats already recorded and rewrites the same keys: the
 * result is the same whoever runs it and however often. A job for an older generation (the
 * master was replaced) does nothing. A failure is recorded on the track; the first
 * ENCODE_ATTEMPTS failures are retried by the queue with backoff, after that the track shows
 * Failed in the console with the error, and Retry starts a fresh set.
 */
export const ENCODE_ATTEMPTS = 3;

export interface EncodeJob {
  trackId: number;
  generation: number;
}

export interface EncodeDeps {
  storage: StorageDeps;
  timeoutMs: number;
  /** Tests: a run that fails on purpose. */
  encodeFile?: typeof encode;
  /** Tests: a pause after the files are made, before the job reads whether the release changed meanwhile. */
  beforeFinish?: () => Promise<void>;
  /** Where a replaced file the store would not delete is handed on (the cleanup job retries it). */
  jobs?: Pick<JobQueue, 'send'>;
}

async function artworkFile(deps: EncodeDeps, artwork: string, dir: string): Promise<string | undefined> {
  // The release's artwork is one of the shop's own uploaded images (or none).
  const location = artwork ? parseDownloadUrl(artwork) : undefined;
  if (!location || location.bucket !== STORAGE_BUCKET) return undefined;
  const object = await findByToken(deps.storage.db, location.bucket, location.path, location.token);
  const blob = object && (await deps.storage.driver.get(objectKey(object.blobKey)));
  // Made without it, the files would carry the cover's signature and never be made again:
  // the job fails instead (retried, then Failed with this in the console).
  if (!blob) throw new Error('The release’s artwork could not be read from storage: upload it again.');
  const chunks: Buffer[] = [];
  for await (const chunk of blob.stream) chunks.push(chunk as Buffer);
  const file = path.join(dir, 'cover.jpg');
  await sharp(Buffer.concat(chunks)).resize({ width: 600, height: 600, fit: 'inside', withoutEnlargement: true }).jpeg({ quality: 88 }).toFile(file);
  return file;
}

/** Runs one encode job; resolves when the track is done (or the job is stale), rejects when the queue should retry. */
export async function runEncodeJob(deps: EncodeDeps, job: EncodeJob): Promise<'ready' | 'stale' | 'failed'> {
  const { db } = deps.storage;
  // Claimed for this generation only: a newer master has its own job.
  const [track] = await db
    .update(releaseTracks)
    .set({ encodeStatus: 'encoding', encodeAttempts: sql`${releaseTracks.encodeAttempts} + 1`, updatedAt: new Date() })
    .where(and(eq(releaseTracks.id, job.trackId), eq(releaseTracks.masterGeneration, job.generation), inArray(releaseTracks.encodeStatus, ['queued', 'encoding'])))
    .returning();
  if (!track) return 'stale';
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), `encode-${job.trackId}-`));
  try {
    const [release] = await db.select().from(releases).where(eq(releases.id, track.releaseId));
    const [{ trackCount } = { trackCount: 1 }] = await db
      .select({ trackCount: sql<number>`count(*)::int` })
      .from(releaseTracks)
      .where(eq(releaseTracks.releaseId, track.releaseId));
    const master = track.masterPath ? await findObject(db, STORAGE_BUCKET, track.masterPath) : undefined;
    if (!release || !master || master.generation !== job.generation) throw new Error('The master of this track is no longer stored: upload it again.');
    const blob = await deps.storage.driver.get(objectKey(master.blobKey));
    if (!blob) throw new Error('The master of this track is missing from storage: upload it again.');
    const masterFile = path.join(dir, 'master');
    await pipeline(blob.stream, fs.createWriteStream(masterFile));
    const probe = await probeAudio(masterFile);
    const artwork = await artworkFile(deps, release.artwork, dir);
    const inputs: FileInputs = { release, track, trackCount };
    // Done: made from this master with the release's current cover, tags and preview length.
    const done = new Set(
      (
        await db
          .select({ format: trackFiles.format, key: trackFiles.key })
          .from(trackFiles)
          .where(and(eq(trackFiles.trackId, track.id), eq(trackFiles.masterGeneration, job.generation)))
      )
        .filter((row) => signatureOfKey(row.key) === fileSignature(row.format as AudioFormat, inputs))
        .map((row) => row.format),
    );
    const tags = { title: track.title, artist: release.artist, album: release.title, trackNumber: track.position, trackCount, isrc: track.isrc };
    for (const format of AUDIO_FORMATS) {
      if (done.has(format)) continue;
      const output = path.join(dir, `${format}.${FORMAT_FILES[format].extension}`);
      await (deps.encodeFile ?? encode)({
        master: masterFile,
        output,
        format,
        tags,
        ...(artwork ? { artwork } : {}),
        ...(format === 'preview' && release.previewSeconds ? { previewSeconds: release.previewSeconds } : {}),
        timeoutMs: deps.timeoutMs,
      });
      // Streamed to the store, never whole in memory (issue 40 item 5).
      const { size } = await fs.promises.stat(output);
      const key = trackFileKey(track.id, job.generation, format, fileSignature(format, inputs));
      await deps.storage.driver.putFile(key, output);
      const values = { trackId: track.id, format, masterGeneration: job.generation, key, size, contentType: FORMAT_FILES[format].contentType, createdAt: new Date() };
      const [previous] = await db
        .select({ key: trackFiles.key })
        .from(trackFiles)
        .where(and(eq(trackFiles.trackId, track.id), eq(trackFiles.format, format)));
      await db
        .insert(trackFiles)
        .values(values)
        .onConflictDoUpdate({ target: [trackFiles.trackId, trackFiles.format], set: values });
      // The file of the master this one replaces is no longer served: its bytes go (decision 061).
      if (previous && previous.key !== key) {
        await deps.storage.driver.delete(previous.key).catch(async (error: unknown) => {
          warnCleanup(`delete the replaced encoding ${previous.key}`)(error);
          // Handed to the cleanup job, which retries until the store deletes it (decision 061, session 10).
          await deps.jobs?.send(FILE_CLEANUP_QUEUE, { keys: [previous.key], masters: [] } satisfies FileCleanupJob);
        });
      }
      done.add(format);
      await db
        .update(releaseTracks)
        .set({ encodeDone: done.size, updatedAt: new Date() })
        .where(and(eq(releaseTracks.id, track.id), eq(releaseTracks.masterGeneration, job.generation)));
    }
    await deps.beforeFinish?.();
    // The release was edited while this ran (a new preview length, cover or title): make the
    // files again. Read under the track's row lock, which a save holds from its first change of
    // the track to its commit: a save either committed before (its change is read here) or
    // reads this outcome after (and queues the track itself, releases.service.ts).
    const changed = await runTransaction(db, async (tx) => {
      await tx.select({ id: releaseTracks.id }).from(releaseTracks).where(eq(releaseTracks.id, track.id)).for('update');
      const now = await fileInputsOf(tx, track.id);
      const stale = now !== undefined && (await staleFormats(tx, track.id, job.generation, now)).length > 0;
      await tx
        .update(releaseTracks)
        .set({
          encodeStatus: stale ? 'queued' : 'ready',
          encodeDone: done.size,
          encodeError: null,
          durationSeconds: Math.round(probe.durationSeconds),
          ...(stale ? { encodeAttempts: 0 } : {}),
          updatedAt: new Date(),
        })
        .where(and(eq(releaseTracks.id, track.id), eq(releaseTracks.masterGeneration, job.generation)));
      return stale;
    });
    if (changed) await deps.jobs?.send(ENCODE_QUEUE, { trackId: track.id, generation: job.generation } satisfies EncodeJob);
    return 'ready';
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const final = track.encodeAttempts >= ENCODE_ATTEMPTS;
    await db
      .update(releaseTracks)
      .set({ encodeStatus: final ? 'failed' : 'queued', encodeError: message.slice(0, 1000), updatedAt: new Date() })
      .where(and(eq(releaseTracks.id, track.id), eq(releaseTracks.masterGeneration, job.generation)));
    deps.storage.log?.warn({ err: error, trackId: track.id, attempt: track.encodeAttempts }, final ? 'encoding failed for good' : 'encoding failed, will retry');
    if (final) return 'failed';
    throw error;
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}
