import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { and, eq, lt } from 'drizzle-orm';
import { UPLOAD_MESSAGES } from '@storefront/domain/storage.ts';
import type { Db } from '../db/client.ts';
import { storageUploadSessions } from '../db/schema/index.ts';
import { runTransaction } from '../db/transaction.ts';
import { bodyToFile } from './storage.body.ts';
import { storageErrors, StorageHttpError } from './storage.errors.ts';
import type { UploadMetadata } from './storage.metadata.ts';
import { findObject, storeImage, type StorageDeps, type StorageObjectRow } from './storage.service.ts';

/**
 * Resumable uploads (spec section 4: start, query status, upload chunks, finalize). The
 * received bytes sit in a staging file under DATA_DIR/storage/uploads; the session row's
 * `received` is the offset a client continues from after a dropped connection. A chunk
 * counts only once it has fully arrived: a half-sent chunk changes nothing.
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
const tooLarge = (deps: StorageDeps) => () => storageErrors.tooLarge(UPLOAD_MESSAGES.tooLarge(deps.config.UPLOAD_MAX_BYTES));

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
  if (input.totalSize > deps.config.UPLOAD_MAX_BYTES) throw tooLarge(deps)();
  await removeExpiredSessions(deps);
  const id = randomBytes(24).toString('base64url');
  await fs.promises.mkdir(stagingDir(deps), { recursive: true });
  await fs.promises.writeFile(stagingFile(deps, id), Buffer.alloc(0), { flag: 'wx' });
  const now = new Date();
  const [session] = await deps.db
    .insert(storageUploadSessions)
    .values({
      id,
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

async function removeExpiredSessions(deps: StorageDeps) {
  const expired = await deps.db
    .delete(storageUploadSessions)
    .where(lt(storageUploadSessions.expiresAt, new Date()))
    .returning({ id: storageUploadSessions.id });
  await Promise.all(expired.map((session) => fs.promises.rm(stagingFile(deps, session.id), { force: true })));
}

/** Copies `part` into the staging file at `offset` and cuts anything after it. */
async function writeAt(staging: string, part: string, offset: number, length: number) {
  const target = await fs.promises.open(staging, 'r+');
  const source = await fs.promises.open(part, 'r');
  try {
    const buffer = Buffer.alloc(Math.min(length, 1024 * 1024) || 1);
    for (let copied = 0; copied < length; ) {
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
  const part = `${staging}.${randomBytes(6).toString('hex')}.part`;
  const length = await bodyToFile(chunk.body, part, remaining, () =>
    storageErrors.invalid(`The chunk goes past the declared size of ${session.totalSize} bytes.`),
  );
  let received: number;
  try {
    received = await runTransaction(
      deps.db,
      async (tx) => {
        const [current] = await tx.select().from(storageUploadSessions).where(eq(storageUploadSessions.id, session.id)).for('update');
        if (!current || current.status !== 'active') throw sessionClosed();
        if (current.received !== chunk.offset) throw new OffsetMismatchError(current.received);
        await writeAt(staging, part, chunk.offset, length);
        const next = chunk.offset + length;
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
  const staging = stagingFile(deps, session.id);
  const bytes = (await fs.promises.readFile(staging)).subarray(0, session.totalSize);
  let lostRace = false;
  try {
    const object = await storeImage(deps, { bucket: session.bucket, path: session.path, bytes, metadata: session.metadata as UploadMetadata, createdBy: session.createdBy }, async (tx) => {
      const [current] = await tx.select().from(storageUploadSessions).where(eq(storageUploadSessions.id, session.id)).for('update');
      if (!current || current.status !== 'active') {
        lostRace = true;
        throw sessionClosed();
      }
      await tx.update(storageUploadSessions).set({ status: 'final', updatedAt: new Date() }).where(eq(storageUploadSessions.id, session.id));
    });
    await fs.promises.rm(staging, { force: true });
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
      await fs.promises.rm(staging, { force: true });
    }
    throw error;
  }
}

/** Ends an unfinished session and drops its bytes; a finished one stays as it is. */
export async function cancelSession(deps: StorageDeps, session: UploadSession): Promise<UploadSession> {
  const [updated] = await deps.db
    .update(storageUploadSessions)
    .set({ status: 'canceled', updatedAt: new Date() })
    .where(and(eq(storageUploadSessions.id, session.id), eq(storageUploadSessions.status, 'active')))
    .returning();
  if (updated) await fs.promises.rm(stagingFile(deps, session.id), { force: true });
  return updated ?? session;
}
