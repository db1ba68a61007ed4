import { fromStorageResource, STORAGE_MESSAGES, StorageError, type SettableMetadata, type StorageObjectResource } from '@storefront/domain/storage.ts';
import {
  isFinalUploadState,
  nextChunkMultiplier,
  nextChunkSize,
  stateAfterAction,
  stateWhenSettled,
  uploadPercent,
  usesMultipartUpload,
  type UploadAction,
  type UploadState,
} from '@storefront/domain/storage-upload.ts';
import type { FullMetadata } from './operations.ts';
import type { Reference } from './storage.ts';
import { parseJson, request, RetryableFailure, withRetry } from './transport.ts';
import { cancelResumable, metadataUrl, queryResumable, sendChunk, sendMultipart, startResumable, toBlob, type ResumableStatus, type UploadData } from './upload-protocol.ts';

/**
 * An upload with progress, pause, resume and cancel (spec sections 4 and 9). Files of
 * 262144 bytes or less go as one multipart request; larger ones are resumable, in chunks
 * of 256 KiB that double after each successful chunk (while below 32 MiB) and start
 * over at 256 KiB after a failed one, which is then resumed from the offset the server
 * reports. Every request is retried (5xx, 408, 429, lost connections) with backoff.
 */
export interface UploadTaskSnapshot {
  bytesTransferred: number;
  totalBytes: number;
  /** Whole percent, 0 to 100. */
  percent: number;
  state: UploadState;
  metadata: FullMetadata | null;
  task: UploadTask;
  ref: Reference;
}

export interface UploadObserver {
  next?: (snapshot: UploadTaskSnapshot) => void;
  error?: (error: StorageError) => void;
  complete?: () => void;
}

const STATE_CHANGED = 'state_changed';

/** The reason given to aborted requests when the task pauses or cancels. */
class TaskInterrupted extends Error {
  constructor() {
    super('The upload task was paused or canceled.');
    this.name = 'TaskInterrupted';
  }
}

function asStorageError(error: unknown): StorageError {
  if (error instanceof StorageError) return error;
  if (error instanceof RetryableFailure) return new StorageError('unknown', STORAGE_MESSAGES.unknown, error.status);
  return new StorageError('unknown', error instanceof Error ? error.message : STORAGE_MESSAGES.unknown);
}

export class UploadTask implements PromiseLike<UploadTaskSnapshot> {
  readonly ref: Reference;
  private readonly blob: Blob;
  private readonly metadataToSet: SettableMetadata | undefined;
  private readonly startedAt: number;
  private currentState: UploadState = 'running';
  private transferred = 0;
  private uploadUrl: string | undefined;
  private needsStatus = false;
  private multiplier = 1;
  private result: FullMetadata | null = null;
  private failure: StorageError | null = null;
  private controller: AbortController | null = null;
  private looping = false;
  private readonly observers = new Set<UploadObserver>();
  private readonly promise: Promise<UploadTaskSnapshot>;
  private resolvePromise!: (snapshot: UploadTaskSnapshot) => void;
  private rejectPromise!: (error: StorageError) => void;

  constructor(ref: Reference, data: UploadData, metadata?: SettableMetadata) {
    this.ref = ref;
    this.blob = toBlob(data);
    this.metadataToSet = metadata;
    this.startedAt = ref.storage.clock.now();
    this.promise = new Promise<UploadTaskSnapshot>((resolve, reject) => {
      this.resolvePromise = resolve;
      this.rejectPromise = reject;
    });
    // Observers may be all a caller uses: a failure must not also be an unhandled rejection.
    this.promise.catch(() => undefined);
    // Start on the next turn, so the caller can subscribe (or pause) first.
    queueMicrotask(() => void this.run());
  }

  get snapshot(): UploadTaskSnapshot {
    return {
      bytesTransferred: this.transferred,
      totalBytes: this.blob.size,
      percent: uploadPercent(this.transferred, this.blob.size),
      state: this.currentState,
      metadata: this.result,
      task: this,
      ref: this.ref,
    };
  }

  /** Subscribes to progress and state changes; returns the unsubscribe function. */
  on(
    event: typeof STATE_CHANGED,
    nextOrObserver?: UploadObserver | ((snapshot: UploadTaskSnapshot) => void) | null,
    error?: ((error: StorageError) => void) | null,
    complete?: (() => void) | null,
  ): () => void {
    if (event !== STATE_CHANGED) throw new StorageError('invalid-argument', `Expected one of the event types: [${STATE_CHANGED}].`);
    const observer: UploadObserver =
      typeof nextOrObserver === 'function' || nextOrObserver === null || nextOrObserver === undefined
        ? { ...(nextOrObserver ? { next: nextOrObserver } : {}), ...(error ? { error } : {}), ...(complete ? { complete } : {}) }
        : nextOrObserver;
    this.observers.add(observer);
    // A new observer hears the current state at once (asynchronously), final states included.
    queueMicrotask(() => {
      if (this.observers.has(observer)) this.notifyOne(observer);
    });
    return () => this.observers.delete(observer);
  }

  /** Only from running. */
  pause(): boolean {
    return this.act('pause');
  }

  /** From paused or pausing. */
  resume(): boolean {
    return this.act('resume');
  }

  /** From running or pausing. */
  cancel(): boolean {
    return this.act('cancel');
  }

  then<A = UploadTaskSnapshot, B = never>(
    onFulfilled?: ((snapshot: UploadTaskSnapshot) => A | PromiseLike<A>) | null,
    onRejected?: ((error: StorageError) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.promise.then(onFulfilled, onRejected);
  }

  catch<B = never>(onRejected?: ((error: StorageError) => B | PromiseLike<B>) | null): Promise<UploadTaskSnapshot | B> {
    return this.promise.catch(onRejected);
  }

  private act(action: UploadAction): boolean {
    const next = stateAfterAction(this.currentState, action);
    if (!next) return false;
    const previous = this.currentState;
    this.currentState = next;
    // Stop the request (or the backoff wait) in flight; the run loop then settles the state.
    if (next === 'pausing' || next === 'canceling') this.controller?.abort(new TaskInterrupted());
    this.notify();
    if (next === 'running' && previous === 'paused') void this.run();
    else if (!this.looping) this.settle();
    return true;
  }

  private async run(): Promise<void> {
    if (this.looping) return;
    this.looping = true;
    try {
      while (this.currentState === 'running') {
        const controller = new AbortController();
        this.controller = controller;
        try {
          if (await this.step(controller.signal)) return this.succeed();
          this.notify();
        } catch (error) {
          if (!controller.signal.aborted) return this.fail(asStorageError(error));
          // Interrupted by pause or cancel: resume later from what the server holds, in small chunks.
          this.needsStatus = this.uploadUrl !== undefined;
          this.multiplier = nextChunkMultiplier(this.multiplier, false);
        } finally {
          this.controller = null;
        }
      }
      this.settle();
    } finally {
      this.looping = false;
    }
  }

  /** One unit of work; true when the upload is complete. */
  private async step(signal: AbortSignal): Promise<boolean> {
    const retry = { signal, uploadStartMs: this.startedAt };
    const storage = this.ref.storage;
    if (usesMultipartUpload(this.blob.size)) {
      const stored = await withRetry(storage, (s) => sendMultipart(this.ref, this.blob, this.metadataToSet, s), retry);
      this.transferred = this.blob.size;
      this.result = { ...stored, ref: this.ref };
      return true;
    }
    if (this.uploadUrl === undefined) {
      this.uploadUrl = await withRetry(storage, (s) => startResumable(this.ref, this.blob, this.metadataToSet, s), retry);
      return false;
    }
    const url = this.uploadUrl;
    const status = await withRetry(
      storage,
      async (s): Promise<ResumableStatus> => {
        if (this.needsStatus) {
          const current = await queryResumable(this.ref, url, this.blob.size, s);
          this.transferred = current.current;
          this.needsStatus = false;
          if (current.final) return current;
          this.notify();
        }
        const size = nextChunkSize(this.multiplier, this.transferred, this.blob.size);
        try {
          const answer = await sendChunk(this.ref, url, this.blob, this.transferred, size, s);
          this.multiplier = nextChunkMultiplier(this.multiplier, true);
          this.transferred = answer.final ? this.blob.size : answer.current;
          return answer;
        } catch (error) {
          // The server may hold part of it, or none: ask before sending more, in small chunks.
          if (error instanceof RetryableFailure) {
            this.needsStatus = true;
            this.multiplier = nextChunkMultiplier(this.multiplier, false);
          }
          throw error;
        }
      },
      retry,
    );
    if (!status.final) return false;
    this.transferred = this.blob.size;
    const metadata =
      status.metadata ??
      fromStorageResource(
        parseJson<StorageObjectResource>(await request(storage, { method: 'GET', url: metadataUrl(this.ref), location: this.ref.location }, retry), this.ref.location),
      );
    this.result = { ...(metadata as NonNullable<ResumableStatus['metadata']>), ref: this.ref };
    return true;
  }

  private succeed() {
    this.currentState = 'success';
    this.notify();
    this.resolvePromise(this.snapshot);
  }

  private fail(error: StorageError) {
    this.failure = error;
    this.currentState = 'error';
    this.notify();
    this.rejectPromise(error);
  }

  /** pausing -> paused, canceling -> canceled, once nothing is in flight. */
  private settle() {
    const settled = stateWhenSettled(this.currentState);
    if (settled === this.currentState) return;
    if (settled === 'canceled') {
      this.failure = new StorageError('canceled', STORAGE_MESSAGES.canceled);
      this.currentState = 'canceled';
      if (this.uploadUrl) void cancelResumable(this.ref, this.uploadUrl);
      this.notify();
      this.rejectPromise(this.failure);
      return;
    }
    this.currentState = settled;
    this.notify();
  }

  private notify() {
    for (const observer of this.observers) this.notifyOne(observer);
  }

  private notifyOne(observer: UploadObserver) {
    const snapshot = this.snapshot;
    if (snapshot.state === 'success') {
      observer.next?.(snapshot);
      observer.complete?.();
    } else if (snapshot.state === 'error' || snapshot.state === 'canceled') {
      if (this.failure) observer.error?.(this.failure);
    } else {
      observer.next?.(snapshot);
    }
    if (isFinalUploadState(snapshot.state)) this.observers.delete(observer);
  }
}

/** Starts an upload of `data` to `ref` (not the root: invalid-root-operation). */
export function uploadBytesResumable(ref: Reference, data: UploadData, metadata?: SettableMetadata): UploadTask {
  ref.throwIfRoot('uploadBytesResumable');
  return new UploadTask(ref, data, metadata);
}
