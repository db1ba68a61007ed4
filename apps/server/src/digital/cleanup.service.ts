import { and, eq, inArray } from 'drizzle-orm';
import { STORAGE_BUCKET } from '@storefront/domain/storage.ts';
import { releaseTracks, trackFiles } from '../db/schema/index.ts';
import type { Tx } from '../db/transaction.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { StorageDeps } from '../storage/storage.service.ts';
import { deleteObjectGeneration, findObject, objectKey } from '../storage/storage.service.ts';

/**
 * Removing the stored files of deleted tracks and detached masters (issue 28, decision 061
 * amended in session 10). The flow that drops them (a track removed from its release, a
 * master replaced by one at another path) queues `digital-file-cleanup` in its own
 * transaction, so the job exists only once the change is committed and survives a restart;
 * the job deletes from the storage driver (local disk or S3) and, when the store fails,
 * throws so the queue retries it with backoff. A file something still refers to when the job
 * runs (a track_file row with that key, a track with that master path and generation) is
 * left alone: the job only ever removes what nothing points at.
 */
export const FILE_CLEANUP_QUEUE = 'digital-file-cleanup';

export interface FileCleanupJob {
  /** Driver keys of encoded files (`digital/<track>/<generation>/<format>.<ext>`). */
  keys: string[];
  /** Masters (storage objects under `masters/`) at the generation that was attached. */
  masters: { path: string; generation: number }[];
}

/** What removing `trackIds` from their release leaves behind: their encoded files and masters. */
export async function filesOfTracks(tx: Tx, trackIds: number[]): Promise<FileCleanupJob> {
  if (trackIds.length === 0) return { keys: [], masters: [] };
  const files = await tx.select({ key: trackFiles.key }).from(trackFiles).where(inArray(trackFiles.trackId, trackIds));
  const tracks = await tx.select({ path: releaseTracks.masterPath, generation: releaseTracks.masterGeneration }).from(releaseTracks).where(inArray(releaseTracks.id, trackIds));
  return {
    keys: files.map((file) => file.key),
    masters: tracks.flatMap((track) => (track.path && track.generation !== null ? [{ path: track.path, generation: track.generation }] : [])),
  };
}

/** Queues the removal inside the caller's transaction (nothing to remove: no job). */
export async function queueFileCleanup(tx: Tx, jobs: JobQueue, job: FileCleanupJob): Promise<void> {
  if (job.keys.length === 0 && job.masters.length === 0) return;
  await jobs.sendInTransaction(tx, FILE_CLEANUP_QUEUE, job);
}

/** Runs one cleanup job; rejects (the queue retries) when the store fails. Returns what it removed. */
export async function runFileCleanup(storage: StorageDeps, job: FileCleanupJob): Promise<{ keys: string[]; masters: string[] }> {
  const { db, driver } = storage;
  const removed = { keys: [] as string[], masters: [] as string[] };
  const referenced = job.keys.length
    ? new Set((await db.select({ key: trackFiles.key }).from(trackFiles).where(inArray(trackFiles.key, job.keys))).map((row) => row.key))
    : new Set<string>();
  for (const key of job.keys) {
    if (referenced.has(key)) continue;
    await driver.delete(key);
    removed.keys.push(key);
  }
  for (const master of job.masters) {
    const [attached] = await db
      .select({ id: releaseTracks.id })
      .from(releaseTracks)
      .where(and(eq(releaseTracks.masterPath, master.path), eq(releaseTracks.masterGeneration, master.generation)))
      .limit(1);
    if (attached) continue;
    const object = await findObject(db, STORAGE_BUCKET, master.path);
    // Another upload to the same path since (a newer generation) is someone's new master: kept.
    if (!object || object.generation !== master.generation) continue;
    // The bytes first, throwing on failure, so a retry still finds the row that names them.
    await driver.delete(objectKey(object.blobKey));
    await deleteObjectGeneration(storage, STORAGE_BUCKET, master.path, master.generation);
    removed.masters.push(master.path);
  }
  if (removed.keys.length || removed.masters.length)
    storage.log?.info({ keys: removed.keys.length, masters: removed.masters }, 'removed files of deleted tracks and detached masters');
  return removed;
}
