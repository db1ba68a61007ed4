import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { and, eq, inArray, isNotNull, isNull, lt, or } from 'drizzle-orm';
import { isMasterPath } from '@storefront/domain/storage-paths.ts';
import { UPLOAD_MESSAGES } from '@storefront/domain/storage.ts';
import type { Db } from '../db/client.ts';
import { storageUploadPending, storageUploadSessions } from '../db/schema/index.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import { bodyToFile } from './storage.body.ts';
import { storageErrors, StorageHttpError } from './storage.errors.ts';
import type { UploadMetadata } from './storage.metadata.ts';
import { storeMasterFile, storeUpload, uploadLimit } from './masters.service.ts';
import { findObject, type StorageDeps, type StorageObjectRow } from './storage.service.ts';

/**
 * Resumable uploads (spec section 4: start, query status, upload chunks, finalize). The
 * session row in Postgres is shared by every instance; its `received` is the offset a
 * client continues from after a dropped connection. A chunk counts only once it has fully
 * arrived: a half-sent chunk changes nothing. Where the received bytes sit depends on the
 * driver: a staging file under DATA_DIR/storage/uploads (local disk), or the parts of an
 * S3 multipart upload keyed by the session plus, below S3's 5 MiB smallest part, a buffer
 * row in `storage_upload_pending` (S3, decision 022), so a chunk may reach any instance.
 */
export type UploadSession = typeof storageUploadSessions.$inferSelect;

export const SESSION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

function stagingDir(deps: StorageDeps): string {
  return path.join(deps.config.dataDir, 'storage', 'uploads');
}

function stagingFile(deps: StorageDeps, id: string): string {
  if (!/^[A-Za-z0-9_-]{32}$/.test(id)) throw new Error('Invalid upload session id.');
  return path.join(stagingDir(deps), id);
}

/** The chunk's offset is not where the server is: answered 409 with the offset to continue from. */
export class OffsetMismatchError extends StorageHttpError {
  readonly received: number;

  constructor(received: number) {
    super('invalid-argument', UPLOAD_MESSAGES.wrongOffset(received), 409);
    this.received = received;
  }
}

const sessionNotFound = () => new StorageHttpError('object-not-found', UPLOAD_MESSAGES.sessionNotFound, 404);
const sessionClosed = () => storageErrors.invalid(UPLOAD_MESSAGES.sessionClosed);
const tooLarge = (maxBytes: number) => storageErrors.tooLarge(UPLOAD_MESSAGES.tooLarge(maxBytes));

export interface StartSessionInput {
  bucket: string;
  path: string;
  totalSize: number;
  declaredContentType: string | null;
  metadata: UploadMetadata;
  createdBy: string;
}

export async function startSession(deps: StorageDeps, input: StartSessionInput): Promise<UploadSession> {
  if (input.totalSize === 0) throw storageErrors.invalid(UPLOAD_MESSAGES.empty);
  if (input.totalSize > uploadLimit(deps.config, input.path)) throw tooLarge(uploadLimit(deps.config, input.path));
  const id = randomBytes(24).toString('base64url');
  if (!deps.driver.multipart) {
    await fs.promises.mkdir(stagingDir(deps), { recursive: true });
    await fs.promises.writeFile(stagingFile(deps, id), Buffer.alloc(0), { flag: 'wx' });
  }
  // S3: an upload of more than one part gets its multipart upload now, kept in the row.
  const store = deps.driver.multipart;
  const multipartUploadId = store && input.totalSize > store.minPartSize ? await store.create(sessionUploadKey(id)) : null;
  const now = new Date();
  const [session] = await deps.db
    .insert(storageUploadSessions)
    .values({
      id,
      multipartUploadId,
      bucket: input.bucket,
      path: input.path,
      totalSize: input.totalSize,
      declaredContentType: input.declaredContentType,
      metadata: { ...input.metadata },
      createdBy: input.createdBy,
      expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS),
    })
    .returning();
  return session!;
}

/** An open or finished session of this user; expired and unknown ones are not found. */
export async function findSession(db: Db, id: string): Promise<UploadSession> {
  const [session] = await db.select().from(storageUploadSessions).where(eq(storageUploadSessions.id, id));
  if (!session || session.expiresAt.getTime() < Date.now()) throw sessionNotFound();
  return session;
}

/** The object-store key of a session's multipart upload (ids are base64url; keys are lower case). */
export function sessionUploadKey(id: string): string {
  return `uploads/${Buffer.from(id, 'base64url').toString('hex')}`;
}

/**
 * S3: adds a chunk to the session's bytes, in the transaction that holds its row. Bytes
 * below the smallest part size wait in `storage_upload_pending`; once there are enough
 * (or the upload is complete) they go out as the next part. The part number comes from the
 * committed row, so a part sent by a transaction that then failed is simply sent again.
 */
async function appendToMultipart(deps: StorageDeps, tx: Tx, session: UploadSession, chunk: Buffer, complete: boolean) {
  const store = deps.driver.multipart!;
  const [pending] = await tx.select().from(storageUploadPending).where(eq(storageUploadPending.sessionId, session.id));
  const buffered = pending ? Buffer.concat([pending.bytes, chunk]) : chunk;
  if (buffered.length >= store.minPartSize || (complete && session.parts.length > 0 && buffered.length > 0)) {
    const key = sessionUploadKey(session.id);
    // Started with the session when it is larger than one part (so an abort always finds it).
    const uploadId = session.multipartUploadId ?? (await store.create(key));
    const part = await store.uploadPart(key, uploadId, session.parts.length + 1, buffered);
    await tx
      .update(storageUploadSessions)
      .set({ multipartUploadId: uploadId, parts: [...session.parts, part] })
      .where(eq(storageUploadSessions.id, session.id));
    if (pending) await tx.delete(storageUploadPending).where(eq(storageUploadPending.sessionId, session.id));
  } else if (chunk.length > 0) {
    await tx
      .insert(storageUploadPending)
      .values({ sessionId: session.id, bytes: buffered })
      .onConflictDoUpdate({ target: storageUploadPending.sessionId, set: { bytes: buffered } });
  }
}

/**
 * Reads a stream into memory, refusing to hold more than `max` bytes: finalize buffers only
 * images (at most UPLOAD_MAX_BYTES, re-encoded in memory by sharp); masters are streamed.
 */
async function streamToBuffer(stream: Readable, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of stream) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    length += buffer.length;
    if (length > max) {
      stream.destroy();
      throw new Error(`An upload of more than ${max} bytes would be held in memory.`);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/** S3: assembles the session's parts on the first call; the assembled key, or the bytes of an upload smaller than one part. */
async function assembleMultipart(deps: StorageDeps, id: string): Promise<{ key: string } | { bytes: Buffer }> {
  const store = deps.driver.multipart!;
  const [session] = await deps.db.select().from(storageUploadSessions).where(eq(storageUploadSessions.id, id));
  if (!session) throw sessionNotFound();
  if (session.parts.length === 0) {
    const [pending] = await deps.db.select().from(storageUploadPending).where(eq(storageUploadPending.sessionId, id));
    return { bytes: pending?.bytes ?? Buffer.alloc(0) };
  }
  const key = sessionUploadKey(id);
  if (session.multipartUploadId) {
    try {
      await store.complete(key, session.multipartUploadId, session.parts);
    } catch (error) {
      // A repeated finalize: the parts were assembled before.
      if (!(await deps.driver.stat(key))) throw error;
    }
    await deps.db.update(storageUploadSessions).set({ multipartUploadId: null }).where(eq(storageUploadSessions.id, id));
  }
  return { key };
}

/** S3: the complete upload's bytes (an image: at most `max`). */
async function readMultipart(deps: StorageDeps, id: string, max: number): Promise<Buffer> {
  const assembled = await assembleMultipart(deps, id);
  if ('bytes' in assembled) return assembled.bytes;
  const blob = await deps.driver.get(assembled.key);
  if (!blob) throw new Error(`The assembled upload ${assembled.key} is missing from the object store.`);
  return streamToBuffer(blob.stream, max);
}

/** The complete upload of an image, in memory (bounded by UPLOAD_MAX_BYTES, the images' limit). */
async function sessionBytes(deps: StorageDeps, session: UploadSession): Promise<Buffer> {
  const max = deps.config.UPLOAD_MAX_BYTES;
  if (deps.driver.multipart) return (await readMultipart(deps, session.id, max)).subarray(0, session.totalSize);
  if (session.totalSize > max) throw new Error(`An upload of more than ${max} bytes would be held in memory.`);
  return (await fs.promises.readFile(stagingFile(deps, session.id))).subarray(0, session.totalSize);
}

/**
 * The complete upload of a master as a local file, never whole in memory: on the local disk
 * its staging file; on S3 the assembled object streamed to a file beside the staging files
 * (removed by the caller), which ffprobe reads and the driver streams back to its key.
 */
async function sessionFile(deps: StorageDeps, session: UploadSession): Promise<{ file: string; scratch?: string }> {
  const staging = stagingFile(deps, session.id);
  if (!deps.driver.multipart) {
    if ((await fs.promises.stat(staging)).size > session.totalSize) await fs.promises.truncate(staging, session.totalSize);
    return { file: staging };
  }
  const scratch = `${staging}.master`;
  await fs.promises.mkdir(stagingDir(deps), { recursive: true });
  const assembled = await assembleMultipart(deps, session.id);
  if ('bytes' in assembled) {
    await fs.promises.writeFile(scratch, assembled.bytes.subarray(0, session.totalSize));
  } else {
    const blob = await deps.driver.get(assembled.key);
    if (!blob) throw new Error(`The assembled upload ${assembled.key} is missing from the object store.`);
    await pipeline(blob.stream, fs.createWriteStream(scratch));
  }
  return { file: scratch, scratch };
}

/**
 * Deletes the bytes of a session that is over (finished, cancelled, refused or expired):
 * its staging file, or its multipart upload (aborted), assembled object and buffered bytes.
 */
export async function reclaimSessionBytes(deps: StorageDeps, id: string): Promise<void> {
  if (deps.driver.multipart) {
    const [session] = await deps.db.select().from(storageUploadSessions).where(eq(storageUploadSessions.id, id));
    const key = sessionUploadKey(id);
    if (session?.multipartUploadId) await deps.driver.multipart.abort(key, session.multipartUploadId);
    await deps.driver.delete(key);
    await deps.db.delete(storageUploadPending).where(eq(storageUploadPending.sessionId, id));
  }
  await fs.promises.rm(stagingFile(deps, id), { force: true });
  await deps.db.update(storageUploadSessions).set({ multipartUploadId: null, parts: [], reclaimedAt: new Date() }).where(eq(storageUploadSessions.id, id));
}

async function reclaimOrLog(deps: StorageDeps, id: string) {
  // Left-over bytes cost space, not correctness: the cleanup job tries again.
  await reclaimSessionBytes(deps, id).catch((error: unknown) => deps.log?.warn({ err: error, session: id }, 'could not delete the bytes of an upload session'));
}

export interface SessionCleanup {
  expired: number;
  reclaimed: number;
  deleted: number;
}

/**
 * The `storage-cleanup` job: an active session that received nothing for
 * UPLOAD_SESSION_IDLE_HOURS (a client that gave up or cancelled without telling us) or
 * outlived its week is expired; the bytes of every ended session are reclaimed; rows past
 * their expiry whose bytes are gone are deleted.
 */
export async function cleanUpUploadSessions(deps: StorageDeps, now = new Date()): Promise<SessionCleanup> {
  const idleSince = new Date(now.getTime() - deps.config.UPLOAD_SESSION_IDLE_HOURS * 60 * 60 * 1000);
  const sessions = storageUploadSessions;
  const expired = await deps.db
    .update(sessions)
    .set({ status: 'expired', updatedAt: now })
    .where(and(eq(sessions.status, 'active'), or(lt(sessions.updatedAt, idleSince), lt(sessions.expiresAt, now))))
    .returning({ id: sessions.id });
  const ended = await deps.db
    .select({ id: sessions.id })
    .from(sessions)
    .where(and(inArray(sessions.status, ['final', 'canceled', 'failed', 'expired']), isNull(sessions.reclaimedAt)));
  let reclaimed = 0;
  for (const session of ended) {
    try {
      await reclaimSessionBytes(deps, session.id);
      reclaimed += 1;
    } catch (error) {
      deps.log?.warn({ err: error, session: session.id }, 'could not delete the bytes of an upload session');
    }
  }
  const deleted = await deps.db
    .delete(sessions)
    .where(and(lt(sessions.expiresAt, now), isNotNull(sessions.reclaimedAt)))
    .returning({ id: sessions.id });
  return { expired: expired.length, reclaimed, deleted: deleted.length };
}

/** Copies `part` into the staging file at `offset` and cuts anything after it. */
async function writeAt(staging: string, part: string, offset: number, length: number) {
  const target = await fs.promises.open(staging, 'r+');
  const source = await fs.promises.open(part, 'r');
  try {
    const buffer = Buffer.alloc(Math.min(length, 1024 * 1024) || 1);
    for (let copied = 0; copied < length;) {
      const { bytesRead } = await source.read(buffer, 0, Math.min(buffer.length, length - copied), copied);
      if (bytesRead === 0) throw new Error('The received chunk is shorter than expected.');
      await target.write(buffer, 0, bytesRead, offset + copied);
      copied += bytesRead;
    }
    await target.truncate(offset + length);
    await target.sync();
  } finally {
    await source.close();
    await target.close();
  }
}

export type ChunkResult = { status: 'active'; received: number } | { status: 'final'; object: StorageObjectRow };

/**
 * Receives one chunk at `offset` (which must be the offset received so far). With
 * `finalize`, the complete upload is checked, re-encoded and stored as the object.
 */
export async function receiveChunk(
  deps: StorageDeps,
  session: UploadSession,
  chunk: { offset: number; body: Readable; declaredLength: number | undefined; finalize: boolean },
): Promise<ChunkResult> {
  if (session.status === 'final' && chunk.finalize && chunk.offset === session.totalSize) {
    // A repeated finalize (the first answer was lost): answer with the stored object.
    const object = await findObject(deps.db, session.bucket, session.path);
    if (object) return { status: 'final', object };
  }
  if (session.status !== 'active') throw sessionClosed();
  if (chunk.offset !== session.received) throw new OffsetMismatchError(session.received);
  const remaining = session.totalSize - session.received;
  if (chunk.declaredLength !== undefined && chunk.declaredLength > remaining) {
    throw storageErrors.invalid(`The chunk goes past the declared size of ${session.totalSize} bytes.`);
  }

  const staging = stagingFile(deps, session.id);
  if (deps.driver.multipart) await fs.promises.mkdir(stagingDir(deps), { recursive: true });
  const part = `${staging}.${randomBytes(6).toString('hex')}.part`;
  const length = await bodyToFile(chunk.body, part, remaining, () => storageErrors.invalid(`The chunk goes past the declared size of ${session.totalSize} bytes.`));
  let received: number;
  try {
    const bytes = deps.driver.multipart ? await fs.promises.readFile(part) : undefined;
    received = await runTransaction(
      deps.db,
      async (tx) => {
        const [current] = await tx.select().from(storageUploadSessions).where(eq(storageUploadSessions.id, session.id)).for('update');
        if (!current || current.status !== 'active') throw sessionClosed();
        if (current.received !== chunk.offset) throw new OffsetMismatchError(current.received);
        const next = chunk.offset + length;
        if (bytes) await appendToMultipart(deps, tx, current, bytes, next === current.totalSize);
        else await writeAt(staging, part, chunk.offset, length);
        await tx.update(storageUploadSessions).set({ received: next, updatedAt: new Date() }).where(eq(storageUploadSessions.id, session.id));
        return next;
      },
      { isolationLevel: 'read committed' },
    );
  } finally {
    await fs.promises.rm(part, { force: true });
  }
  if (!chunk.finalize) return { status: 'active', received };
  if (received !== session.totalSize) {
    throw storageErrors.invalid(`The upload is not complete: ${received} of ${session.totalSize} bytes received.`);
  }
  return { status: 'final', object: await finalizeSession(deps, session) };
}

async function finalizeSession(deps: StorageDeps, session: UploadSession): Promise<StorageObjectRow> {
  // A master (hundreds of MB) is checked and stored from a file; an image is read into memory.
  const source = isMasterPath(session.path) ? await sessionFile(deps, session) : { bytes: await sessionBytes(deps, session) };
  let lostRace = false;
  try {
    const input = { bucket: session.bucket, path: session.path, metadata: session.metadata as UploadMetadata, createdBy: session.createdBy };
    const closeSession = async (tx: Tx) => {
      const [current] = await tx.select().from(storageUploadSessions).where(eq(storageUploadSessions.id, session.id)).for('update');
      if (!current || current.status !== 'active') {
        lostRace = true;
        throw sessionClosed();
      }
      await tx.update(storageUploadSessions).set({ status: 'final', updatedAt: new Date() }).where(eq(storageUploadSessions.id, session.id));
    };
    const object =
      'bytes' in source ? await storeUpload(deps, { ...input, bytes: source.bytes }, closeSession) : await storeMasterFile(deps, { ...input, file: source.file }, closeSession);
    await reclaimOrLog(deps, session.id);
    return object;
  } catch (error) {
    if (lostRace) {
      // Another request finalized this session first: its object is the answer.
      const object = await findObject(deps.db, session.bucket, session.path);
      if (object) return object;
    }
    if (error instanceof StorageHttpError && error.statusCode < 500 && !lostRace) {
      // The bytes were refused (not an image, too many pixels): the session is over.
      await deps.db
        .update(storageUploadSessions)
        .set({ status: 'failed', updatedAt: new Date() })
        .where(and(eq(storageUploadSessions.id, session.id), eq(storageUploadSessions.status, 'active')));
      await reclaimOrLog(deps, session.id);
    }
    throw error;
  } finally {
    if ('scratch' in source && source.scratch) await fs.promises.rm(source.scratch, { force: true });
  }
}

/** Ends an unfinished session and drops its bytes; a finished one stays as it is. */
export async function cancelSession(deps: StorageDeps, session: UploadSession): Promise<UploadSession> {
  const [updated] = await deps.db
    .update(storageUploadSessions)
    .set({ status: 'canceled', updatedAt: new Date() })
    .where(and(eq(storageUploadSessions.id, session.id), eq(storageUploadSessions.status, 'active')))
    .returning();
  if (updated) await reclaimOrLog(deps, session.id);
  return updated ?? session;
}
