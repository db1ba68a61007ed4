import { defaultStorageMessage, isRetryableStatus, isStorageErrorCode, storageCodeForStatus, STORAGE_MESSAGES, StorageError } from '@storefront/domain/storage.ts';
import { backoffDelayMs, retryDeadlineMs } from '@storefront/domain/storage-upload.ts';
import type { StorageLocation } from '@storefront/domain/storage-location.ts';
import type { Storage } from './storage.ts';

/**
 * One HTTP exchange with the storage service, and the retry loop around it: answers
 * 5xx, 408 and 429 and lost connections are retried with exponential backoff until the
 * operation's (120 s) or the upload's (600 s) time is up: then retry-limit-exceeded.
 */
export const CLIENT_VERSION_HEADER = 'x-storage-client-version';
export const CLIENT_VERSION = 'storefront-sdk/1';

export interface StorageRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** A path (`/v0/...`, resolved against the base URL) or an absolute URL. */
  url: string;
  headers?: Record<string, string>;
  body?: Blob | string;
  /** For error messages: which object this is about. */
  location: StorageLocation;
  /** Non-2xx statuses the caller reads itself instead of failing. */
  acceptStatuses?: number[];
}

export interface StorageResponse {
  status: number;
  headers: Headers;
  text: string;
}

/** A failure worth another try: a retryable status, or no answer at all (status 0). */
export class RetryableFailure extends Error {
  readonly status: number;

  constructor(status: number, cause?: unknown) {
    super(`retryable failure (status ${status})`, { cause });
    this.name = 'RetryableFailure';
    this.status = status;
  }
}

export function resolveUrl(storage: Storage, url: string): string {
  return url.startsWith('/') ? `${storage.baseUrl}${url}` : url;
}

/** The StorageError a failed answer stands for: the server's named code and message when it sent them. */
export function errorFromResponse(response: StorageResponse, location: StorageLocation): StorageError {
  let code = storageCodeForStatus(response.status);
  let message = defaultStorageMessage(code, location);
  try {
    const body = JSON.parse(response.text) as { error?: { status?: unknown; message?: unknown } };
    if (isStorageErrorCode(body.error?.status)) {
      code = body.error.status;
      message = defaultStorageMessage(code, location);
    }
    if (typeof body.error?.message === 'string' && body.error.message) message = body.error.message;
  } catch {
    // Not our JSON error body (a proxy's page, say): the status decides.
  }
  return new StorageError(code, message, response.status, response.text || null);
}

/**
 * Sends the request once. Resolves with a 2xx answer; throws RetryableFailure for what
 * may be retried, StorageError for what may not; an abort rejects with the signal's reason.
 */
export async function sendOnce(storage: Storage, request: StorageRequest, signal: AbortSignal): Promise<StorageResponse> {
  const headers: Record<string, string> = { [CLIENT_VERSION_HEADER]: CLIENT_VERSION, ...request.headers };
  const token = await storage.getAuthToken();
  if (token) headers.authorization = `Bearer ${token}`;
  let response: StorageResponse;
  try {
    const answer = await storage.fetch(resolveUrl(storage, request.url), {
      method: request.method,
      headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      credentials: 'include',
      signal,
    });
    response = { status: answer.status, headers: answer.headers, text: await answer.text() };
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw new RetryableFailure(0, error);
  }
  if (signal.aborted) throw signal.reason;
  if ((response.status >= 200 && response.status < 300) || request.acceptStatuses?.includes(response.status)) return response;
  if (isRetryableStatus(response.status)) throw new RetryableFailure(response.status);
  throw errorFromResponse(response, request.location);
}

export interface RetryOptions {
  signal: AbortSignal;
  /** When the upload started, for the 600 s upload limit. */
  uploadStartMs?: number;
}

/** Runs `attempt` until it succeeds, fails for good, or the retry time is up. */
export async function withRetry<T>(storage: Storage, attempt: (signal: AbortSignal) => Promise<T>, options: RetryOptions): Promise<T> {
  const operationStartMs = storage.clock.now();
  const deadline = retryDeadlineMs({
    operationStartMs,
    ...(options.uploadStartMs === undefined ? {} : { uploadStartMs: options.uploadStartMs }),
    maxOperationMs: storage.maxOperationRetryTime,
    maxUploadMs: storage.maxUploadRetryTime,
  });
  for (let retry = 1; ; retry += 1) {
    try {
      return await attempt(options.signal);
    } catch (error) {
      if (options.signal.aborted || !(error instanceof RetryableFailure)) throw error;
      const now = storage.clock.now();
      if (now >= deadline) throw new StorageError('retry-limit-exceeded', STORAGE_MESSAGES.retryLimitExceeded, error.status);
      await storage.clock.sleep(Math.min(backoffDelayMs(retry, storage.random()), deadline - now), options.signal);
    }
  }
}

/** A request with retries, for one-shot operations (metadata, delete, uploads). */
export function request(storage: Storage, spec: StorageRequest, options: RetryOptions): Promise<StorageResponse> {
  return withRetry(storage, (signal) => sendOnce(storage, spec, signal), options);
}

export function parseJson<T>(response: StorageResponse, location: StorageLocation): T {
  try {
    return JSON.parse(response.text) as T;
  } catch {
    throw new StorageError('internal-error', STORAGE_MESSAGES.internalError(`the server's answer for '${location.path}' is not JSON.`), response.status);
  }
}
