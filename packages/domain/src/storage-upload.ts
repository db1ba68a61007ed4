import { MAX_BACKOFF_FACTOR, MAX_OPERATION_RETRY_TIME_MS, MAX_RESUMABLE_CHUNK_DOUBLING_SIZE, MAX_UPLOAD_RETRY_TIME_MS, RESUMABLE_UPLOAD_CHUNK_SIZE } from './storage.ts';

/**
 * The pure rules of an upload task (spec sections 4 and 9): its states and transitions,
 * when it goes multipart or resumable, the chunk schedule, and the retry backoff.
 */
export const UPLOAD_STATES = ['running', 'pausing', 'paused', 'canceling', 'canceled', 'success', 'error'] as const;
export type UploadState = (typeof UPLOAD_STATES)[number];
export type UploadAction = 'pause' | 'resume' | 'cancel';

/**
 * The state an action moves a task to, or undefined when the action is not allowed
 * there (the task's method then returns false): pause only from running; resume from
 * paused or pausing; cancel from running or pausing.
 */
export function stateAfterAction(state: UploadState, action: UploadAction): UploadState | undefined {
  switch (action) {
    case 'pause':
      return state === 'running' ? 'pausing' : undefined;
    case 'resume':
      return state === 'paused' || state === 'pausing' ? 'running' : undefined;
    case 'cancel':
      return state === 'running' || state === 'pausing' ? 'canceling' : undefined;
  }
}

/** Where a task lands once the request in flight has stopped: pausing -> paused, canceling -> canceled. */
export function stateWhenSettled(state: UploadState): UploadState {
  if (state === 'pausing') return 'paused';
  if (state === 'canceling') return 'canceled';
  return state;
}

/** No way out of these. */
export function isFinalUploadState(state: UploadState): boolean {
  return state === 'success' || state === 'canceled' || state === 'error';
}

/** Small uploads go as one multipart request; larger ones are resumable. */
export function usesMultipartUpload(totalBytes: number): boolean {
  return totalBytes <= RESUMABLE_UPLOAD_CHUNK_SIZE;
}

/** After a chunk: the multiplier doubles on success while the chunk is below 32 MiB, and resets on failure. */
export function nextChunkMultiplier(multiplier: number, succeeded: boolean): number {
  if (!succeeded) return 1;
  return multiplier * RESUMABLE_UPLOAD_CHUNK_SIZE < MAX_RESUMABLE_CHUNK_DOUBLING_SIZE ? multiplier * 2 : multiplier;
}

/** Bytes of the next chunk: the multiplier's size, or what is left. */
export function nextChunkSize(multiplier: number, offset: number, totalBytes: number): number {
  return Math.max(0, Math.min(multiplier * RESUMABLE_UPLOAD_CHUNK_SIZE, totalBytes - offset));
}

/** The chunk sizes of an upload in which every chunk succeeds. */
export function chunkSchedule(totalBytes: number): number[] {
  const sizes: number[] = [];
  let multiplier = 1;
  for (let offset = 0; offset < totalBytes;) {
    const size = nextChunkSize(multiplier, offset, totalBytes);
    sizes.push(size);
    offset += size;
    multiplier = nextChunkMultiplier(multiplier, true);
  }
  return sizes;
}

/**
 * The wait before retry number `retry` (1 for the first retry): 2, 4, 8 ... seconds, the
 * factor stopping at 64, plus `jitter` (0 <= jitter < 1) of a second.
 */
export function backoffDelayMs(retry: number, jitter: number): number {
  const factor = Math.min(2 ** Math.max(1, retry), MAX_BACKOFF_FACTOR);
  return Math.round((factor + jitter) * 1000);
}

export interface RetryWindow {
  /** When the operation started retrying, and when the whole upload started. */
  operationStartMs: number;
  uploadStartMs?: number;
  maxOperationMs?: number;
  maxUploadMs?: number;
}

/** The time after which no retry may start: 120 s per operation, 600 s per upload. */
export function retryDeadlineMs(window: RetryWindow): number {
  const operation = window.operationStartMs + (window.maxOperationMs ?? MAX_OPERATION_RETRY_TIME_MS);
  if (window.uploadStartMs === undefined) return operation;
  return Math.min(operation, window.uploadStartMs + (window.maxUploadMs ?? MAX_UPLOAD_RETRY_TIME_MS));
}

/** Progress in whole percent; 100 only once every byte is sent. */
export function uploadPercent(bytesTransferred: number, totalBytes: number): number {
  if (totalBytes <= 0) return 100;
  return Math.min(100, Math.floor((bytesTransferred * 100) / totalBytes));
}
