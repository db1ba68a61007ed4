import { MAX_OPERATION_RETRY_TIME_MS, MAX_UPLOAD_RETRY_TIME_MS, STORAGE_BUCKET, STORAGE_MESSAGES, StorageError } from '@storefront/domain/storage.ts';
import { looksLikeUrl, type StorageLocation } from '@storefront/domain/storage-location.ts';
import { childPath, lastSegment, parentPath } from '@storefront/domain/storage-paths.ts';
import { parseStorageUrl } from '@storefront/domain/storage-reference-url.ts';

/**
 * The storage client: a Storage (where the server is, how to authenticate, the clock)
 * and References to objects in it, mirroring the spec's storage client. Operations on
 * references live in operations.ts and upload-task.ts.
 */

/** Time, made injectable so tests need not wait out real backoffs. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`; rejects when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

export interface StorageOptions {
  /** Origin of the server, e.g. `http://127.0.0.1:3000`; empty for same-origin calls in a browser. */
  baseUrl?: string;
  /** A bucket name or `gs://bucket`; our server's one bucket by default. */
  bucket?: string;
  /** Returns the bearer token to send, or null to rely on the session cookie. */
  getAuthToken?: () => string | null | undefined | Promise<string | null | undefined>;
  fetch?: typeof fetch;
  clock?: Clock;
  /** The backoff's jitter source, 0 <= x < 1. */
  random?: () => number;
  maxOperationRetryTime?: number;
  maxUploadRetryTime?: number;
}

export interface Storage {
  readonly baseUrl: string;
  /** '' when no bucket was given: references then fail with no-default-bucket. */
  readonly bucket: string;
  readonly getAuthToken: () => string | null | undefined | Promise<string | null | undefined>;
  readonly fetch: typeof fetch;
  readonly clock: Clock;
  readonly random: () => number;
  readonly maxOperationRetryTime: number;
  readonly maxUploadRetryTime: number;
}

function defaultBucket(bucket: string | undefined): string {
  if (bucket === undefined) return STORAGE_BUCKET;
  if (bucket === '') return '';
  if (!looksLikeUrl(bucket)) {
    if (!/^[A-Za-z0-9.\-_]+$/.test(bucket)) throw new StorageError('invalid-default-bucket', STORAGE_MESSAGES.invalidDefaultBucket(bucket));
    return bucket;
  }
  let location: StorageLocation;
  try {
    location = parseStorageUrl(bucket);
  } catch {
    throw new StorageError('invalid-default-bucket', STORAGE_MESSAGES.invalidDefaultBucket(bucket));
  }
  if (location.path !== '') throw new StorageError('invalid-default-bucket', STORAGE_MESSAGES.invalidDefaultBucket(bucket));
  return location.bucket;
}

export function createStorage(options: StorageOptions = {}): Storage {
  const fetchImpl = options.fetch ?? globalThis.fetch?.bind(globalThis);
  if (!fetchImpl) throw new StorageError('unsupported-environment', STORAGE_MESSAGES.unsupportedEnvironment('fetch is not available.'));
  return {
    baseUrl: (options.baseUrl ?? '').replace(/\/$/, ''),
    bucket: defaultBucket(options.bucket),
    getAuthToken: options.getAuthToken ?? (() => null),
    fetch: fetchImpl,
    clock: options.clock ?? systemClock,
    random: options.random ?? Math.random,
    maxOperationRetryTime: options.maxOperationRetryTime ?? MAX_OPERATION_RETRY_TIME_MS,
    maxUploadRetryTime: options.maxUploadRetryTime ?? MAX_UPLOAD_RETRY_TIME_MS,
  };
}

/** A pointer to an object (or a folder, or the root) in a bucket. */
export class Reference {
  readonly storage: Storage;
  readonly bucket: string;
  readonly fullPath: string;

  constructor(storage: Storage, location: StorageLocation) {
    this.storage = storage;
    this.bucket = location.bucket;
    this.fullPath = location.path;
  }

  get location(): StorageLocation {
    return { bucket: this.bucket, path: this.fullPath };
  }

  get name(): string {
    return lastSegment(this.fullPath);
  }

  /** null at the root. */
  get parent(): Reference | null {
    const path = parentPath(this.fullPath);
    return path === null ? null : new Reference(this.storage, { bucket: this.bucket, path });
  }

  get root(): Reference {
    return new Reference(this.storage, { bucket: this.bucket, path: '' });
  }

  child(path: string): Reference {
    return new Reference(this.storage, { bucket: this.bucket, path: childPath(this.fullPath, path) });
  }

  /** `gs://bucket/path`. */
  toString(): string {
    return `gs://${this.bucket}/${this.fullPath}`;
  }

  /** Downloads and uploads need an object, not the root (invalid-root-operation). */
  throwIfRoot(operation: string): void {
    if (this.fullPath === '') throw new StorageError('invalid-root-operation', STORAGE_MESSAGES.invalidRootOperation(operation));
  }
}

/**
 * A reference from a path (relative to the bucket's root) or a URL (`gs://bucket/path`
 * or `http(s)://host/v0/b/bucket/o/path`; anything else is invalid-url). Given a
 * reference, the path is a child of it.
 */
export function ref(parent: Storage | Reference, pathOrUrl?: string): Reference {
  if (parent instanceof Reference) return pathOrUrl === undefined ? parent : parent.child(pathOrUrl);
  if (pathOrUrl !== undefined && looksLikeUrl(pathOrUrl)) return new Reference(parent, parseStorageUrl(pathOrUrl));
  if (!parent.bucket) throw new StorageError('no-default-bucket', STORAGE_MESSAGES.noDefaultBucket);
  return new Reference(parent, { bucket: parent.bucket, path: childPath('', pathOrUrl ?? '') });
}
