/**
 * Storage: the error catalogue of the storage client (spec section 8), its limits
 * (spec section 9) and the object rules both the server and the sdk apply.
 */

/** Our one bucket. Object URLs name it, as the spec's storage client expects. */
export const STORAGE_BUCKET = 'storefront';

/** Uploads of this many bytes or fewer go as one multipart request (spec section 4). */
export const RESUMABLE_UPLOAD_CHUNK_SIZE = 262_144;
/** The chunk size doubles after each successful chunk while it is below this. */
export const MAX_RESUMABLE_CHUNK_DOUBLING_SIZE = 33_554_432;
export const MAX_OPERATION_RETRY_TIME_MS = 120_000;
export const MAX_UPLOAD_RETRY_TIME_MS = 600_000;
/** Backoff waits double from 2 s up to this many seconds (plus up to 1 s of jitter). */
export const MAX_BACKOFF_FACTOR = 64;

/** Decompression bombs: an image may decode to at most this many pixels. */
export const MAX_IMAGE_PIXELS = 40_000_000;

export const STORAGE_ERROR_CODES = [
  'unknown',
  'object-not-found',
  'bucket-not-found',
  'project-not-found',
  'quota-exceeded',
  'unauthenticated',
  'unauthorized',
  'unauthorized-app',
  'retry-limit-exceeded',
  'invalid-checksum',
  'canceled',
  'invalid-event-name',
  'invalid-url',
  'invalid-default-bucket',
  'no-default-bucket',
  'cannot-slice-blob',
  'server-file-wrong-size',
  'no-download-url',
  'invalid-argument',
  'invalid-argument-count',
  'app-deleted',
  'invalid-root-operation',
  'invalid-format',
  'internal-error',
  'unsupported-environment',
] as const;

export type StorageErrorCode = (typeof STORAGE_ERROR_CODES)[number];

export function isStorageErrorCode(value: unknown): value is StorageErrorCode {
  return typeof value === 'string' && (STORAGE_ERROR_CODES as readonly string[]).includes(value);
}

/** The spec's storage messages; `...` in the spec is the object, bucket or detail named here. */
export const STORAGE_MESSAGES = {
  unknown: 'An unknown error occurred, please check the error payload for server response.',
  objectNotFound: (path: string) => `Object '${path}' does not exist.`,
  bucketNotFound: (bucket: string) => `Bucket '${bucket}' does not exist.`,
  projectNotFound: (project: string) => `Project '${project}' does not exist.`,
  quotaExceeded: (bucket: string) => `Quota for bucket '${bucket}' exceeded, please view quota in the storage settings.`,
  unauthenticated: 'User is not authenticated, please authenticate and try again.',
  unauthorizedApp: 'This app does not have permission to access storage on this project.',
  unauthorized: (path: string) => `User does not have permission to access '${path}'.`,
  retryLimitExceeded: 'Max retry time for operation exceeded, please try again.',
  invalidChecksum: (path: string, expected: string, actual: string) =>
    `Uploaded/downloaded object '${path}' has checksum '${actual}' which does not match '${expected}'. Please retry the upload/download.`,
  canceled: 'User canceled the upload/download.',
  invalidUrl: (url: string) => `Invalid URL '${url}'.`,
  invalidDefaultBucket: (bucket: string) => `Invalid default bucket '${bucket}'.`,
  noDefaultBucket: 'No default bucket found: set the bucket when creating the storage client.',
  cannotSliceBlob: 'Cannot slice blob for upload. Please retry the upload.',
  serverFileWrongSize: 'Server recorded incorrect upload file size, please retry the upload.',
  noDownloadUrl: 'The given file does not have any download URLs.',
  appDeleted: 'The storage client was deleted.',
  invalidRootOperation: (operation: string) =>
    `The operation '${operation}' cannot be performed on a root reference, create a non-root reference using child, such as .child('file.png').`,
  invalidFormat: (format: string, detail: string) => `String does not match format '${format}': ${detail}`,
  internalError: (detail: string) => `Internal error: ${detail}`,
  unsupportedEnvironment: (detail: string) => `This environment cannot run the storage client: ${detail}`,
} as const;

// In a module of its own: a page that only tells errors apart (the web's error-message.ts)
// loads the class without the catalogue of codes and messages above.
export { StorageError } from './storage-error.ts';

/** 5xx, 408 and 429 answers are retried with backoff (spec section 8). */
export function isRetryableStatus(status: number): boolean {
  return (status >= 500 && status < 600) || status === 408 || status === 429;
}

/** The code a failed answer stands for when the server did not name one. */
export function storageCodeForStatus(status: number): StorageErrorCode {
  switch (status) {
    case 401:
      return 'unauthenticated';
    case 402:
      return 'quota-exceeded';
    case 403:
      return 'unauthorized';
    case 404:
      return 'object-not-found';
    default:
      return 'unknown';
  }
}

/** The wording for a code when the server sent no message of its own. */
export function defaultStorageMessage(code: StorageErrorCode, context: { path: string; bucket: string }): string {
  switch (code) {
    case 'object-not-found':
      return STORAGE_MESSAGES.objectNotFound(context.path);
    case 'bucket-not-found':
      return STORAGE_MESSAGES.bucketNotFound(context.bucket);
    case 'quota-exceeded':
      return STORAGE_MESSAGES.quotaExceeded(context.bucket);
    case 'unauthenticated':
      return STORAGE_MESSAGES.unauthenticated;
    case 'unauthorized':
      return STORAGE_MESSAGES.unauthorized(context.path);
    default:
      return STORAGE_MESSAGES.unknown;
  }
}

/** Texts of the server's upload checks (images only, by their bytes; size and pixel limits). */
export const UPLOAD_MESSAGES = {
  notAnImage: 'Only JPEG, PNG, WebP, GIF and AVIF images can be uploaded.',
  svg: 'SVG images cannot be uploaded (they can carry scripts): use PNG, JPEG, WebP, GIF or AVIF.',
  unreadable: 'The image could not be read: the file is damaged or incomplete.',
  tooManyPixels: (pixels: number) => `The image is too large: at most ${MAX_IMAGE_PIXELS / 1_000_000} megapixels (this one has ${(pixels / 1_000_000).toFixed(1)}).`,
  tooLarge: (maxBytes: number) => `The file is too large: at most ${formatMegabytes(maxBytes)}.`,
  empty: 'The file is empty.',
  wrongOffset: (expected: number) => `The upload offset does not match the ${expected} bytes received so far.`,
  sessionNotFound: 'This upload does not exist or has expired: start it again.',
  sessionClosed: 'This upload is already finished or canceled.',
  notLosslessAudio: 'Only lossless masters can be uploaded here: WAV, AIFF or FLAC.',
} as const;

function formatMegabytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return `${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB`;
}

/** The object metadata every client reads (spec section 3, "Storage object metadata"). */
export interface StorageObjectMetadata {
  bucket: string;
  fullPath: string;
  name: string;
  size: number;
  contentType: string;
  timeCreated: string;
  updated: string;
  md5Hash: string;
  cacheControl: string | null;
  contentDisposition: string | null;
  contentEncoding: string | null;
  contentLanguage: string | null;
  customMetadata: Record<string, string>;
  downloadTokens: string[];
  /** Changes with every upload to the path. */
  generation: string;
}

/** What a client may set when uploading; anything else is the server's to decide. */
export interface SettableMetadata {
  cacheControl?: string | null;
  contentDisposition?: string | null;
  contentEncoding?: string | null;
  contentLanguage?: string | null;
  contentType?: string | null;
  customMetadata?: Record<string, string> | null;
  /** Base64 MD5 of the bytes sent; the server refuses the upload when they differ. */
  md5Hash?: string | null;
}

/**
 * An object's metadata as the storage service sends it: Firebase Storage's resource
 * shape, so the official Firebase SDK reads it unchanged (issue 19): `name` is the full
 * path, custom metadata is under `metadata`, `downloadTokens` is one comma-separated string.
 */
export interface StorageObjectResource {
  kind: 'storage#object';
  id: string;
  bucket: string;
  name: string;
  size: string;
  contentType: string;
  timeCreated: string;
  updated: string;
  md5Hash: string;
  cacheControl?: string;
  contentDisposition?: string;
  contentEncoding?: string;
  contentLanguage?: string;
  metadata?: Record<string, string>;
  downloadTokens: string;
  generation: string;
  metageneration: string;
}

/** The metadata clients read, from the service's resource shape. */
export function fromStorageResource(resource: StorageObjectResource): StorageObjectMetadata {
  const segments = resource.name.split('/');
  return {
    bucket: resource.bucket,
    fullPath: resource.name,
    name: segments[segments.length - 1] ?? resource.name,
    size: Number(resource.size),
    contentType: resource.contentType,
    timeCreated: resource.timeCreated,
    updated: resource.updated,
    md5Hash: resource.md5Hash,
    cacheControl: resource.cacheControl ?? null,
    contentDisposition: resource.contentDisposition ?? null,
    contentEncoding: resource.contentEncoding ?? null,
    contentLanguage: resource.contentLanguage ?? null,
    customMetadata: resource.metadata ?? {},
    downloadTokens: resource.downloadTokens ? resource.downloadTokens.split(',') : [],
    generation: resource.generation,
  };
}
