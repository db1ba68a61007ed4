import { fromStorageResource, STORAGE_MESSAGES, StorageError, type SettableMetadata, type StorageObjectMetadata, type StorageObjectResource } from '@storefront/domain/storage.ts';
import { encodeObjectPath, objectUrlPath } from '@storefront/domain/storage-location.ts';
import type { Reference } from './storage.ts';
import { parseJson, sendOnce, type StorageResponse } from './transport.ts';

/**
 * The upload wire protocol: one multipart request for small files; for larger ones a
 * resumable session (start, query status, upload chunks, the last one finalizing).
 * Each function sends one request; the callers add retries.
 */
export type UploadData = Blob | Uint8Array | ArrayBuffer;

export function toBlob(data: UploadData): Blob {
  if (data instanceof Blob) return data;
  // A Uint8Array over a SharedArrayBuffer is typed apart from Blob's parts; the bytes are the same.
  return new Blob([data] as ConstructorParameters<typeof Blob>[0]);
}

export function contentTypeOf(blob: Blob, metadata: SettableMetadata | undefined): string {
  return metadata?.contentType || blob.type || 'application/octet-stream';
}

function metadataJson(ref: Reference, contentType: string, metadata: SettableMetadata | undefined): string {
  return JSON.stringify({
    name: ref.fullPath,
    fullPath: ref.fullPath,
    contentType,
    ...(metadata?.cacheControl ? { cacheControl: metadata.cacheControl } : {}),
    ...(metadata?.contentDisposition ? { contentDisposition: metadata.contentDisposition } : {}),
    ...(metadata?.contentEncoding ? { contentEncoding: metadata.contentEncoding } : {}),
    ...(metadata?.contentLanguage ? { contentLanguage: metadata.contentLanguage } : {}),
    ...(metadata?.customMetadata ? { customMetadata: metadata.customMetadata } : {}),
    ...(metadata?.md5Hash ? { md5Hash: metadata.md5Hash } : {}),
  });
}

const uploadUrl = (ref: Reference, type: 'multipart' | 'resumable') => `/v0/b/${encodeURIComponent(ref.bucket)}/o?name=${encodeObjectPath(ref.fullPath)}&uploadType=${type}`;

function boundary(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `storefront-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export async function sendMultipart(ref: Reference, blob: Blob, metadata: SettableMetadata | undefined, signal: AbortSignal): Promise<StorageObjectMetadata> {
  const separator = boundary();
  const contentType = contentTypeOf(blob, metadata);
  const body = new Blob([
    `--${separator}\r\nContent-Type: application/json; charset=utf-8\r\n\r\n${metadataJson(ref, contentType, metadata)}\r\n`,
    `--${separator}\r\nContent-Type: ${contentType}\r\n\r\n`,
    blob,
    `\r\n--${separator}--`,
  ]);
  const response = await sendOnce(
    ref.storage,
    {
      method: 'POST',
      url: uploadUrl(ref, 'multipart'),
      headers: { 'content-type': `multipart/related; boundary=${separator}`, 'x-goog-upload-protocol': 'multipart' },
      body,
      location: ref.location,
    },
    signal,
  );
  return fromStorageResource(parseJson<StorageObjectResource>(response, ref.location));
}

/** Starts a resumable session; resolves with its upload URL. */
export async function startResumable(ref: Reference, blob: Blob, metadata: SettableMetadata | undefined, signal: AbortSignal): Promise<string> {
  const contentType = contentTypeOf(blob, metadata);
  const response = await sendOnce(
    ref.storage,
    {
      method: 'POST',
      url: uploadUrl(ref, 'resumable'),
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'x-goog-upload-protocol': 'resumable',
        'x-goog-upload-command': 'start',
        'x-goog-upload-header-content-length': String(blob.size),
        'x-goog-upload-header-content-type': contentType,
      },
      body: metadataJson(ref, contentType, metadata),
      location: ref.location,
    },
    signal,
  );
  const url = response.headers.get('x-goog-upload-url');
  if (response.headers.get('x-goog-upload-status') !== 'active' || !url) {
    throw new StorageError('internal-error', STORAGE_MESSAGES.internalError('the server did not open an upload session.'), response.status);
  }
  // The server names the session by an absolute URL (from its PUBLIC_URL); this client
  // keeps sending to the base URL it was given (which may be a proxy in front of it).
  const session = new URL(url, 'http://session.invalid');
  return `${session.pathname}${session.search}`;
}

export interface ResumableStatus {
  /** Bytes the server holds. */
  current: number;
  final: boolean;
  metadata: StorageObjectMetadata | null;
}

function statusOf(response: StorageResponse, ref: Reference, total: number): ResumableStatus {
  const status = response.headers.get('x-goog-upload-status');
  const received = Number(response.headers.get('x-goog-upload-size-received') ?? Number.NaN);
  if (status === 'final') {
    const body = response.text ? parseJson<Partial<StorageObjectResource>>(response, ref.location) : {};
    return { current: total, final: true, metadata: body.kind === 'storage#object' ? fromStorageResource(body as StorageObjectResource) : null };
  }
  if (status !== 'active') {
    throw new StorageError('unknown', `The upload session of '${ref.fullPath}' is ${status ?? 'gone'}: start the upload again.`, response.status, response.text || null);
  }
  if (!Number.isSafeInteger(received) || received < 0 || received > total) {
    throw new StorageError('server-file-wrong-size', STORAGE_MESSAGES.serverFileWrongSize, response.status);
  }
  return { current: received, final: false, metadata: null };
}

export async function queryResumable(ref: Reference, url: string, total: number, signal: AbortSignal): Promise<ResumableStatus> {
  const response = await sendOnce(
    ref.storage,
    { method: 'POST', url, headers: { 'x-goog-upload-protocol': 'resumable', 'x-goog-upload-command': 'query' }, location: ref.location },
    signal,
  );
  return statusOf(response, ref, total);
}

/** Sends `blob[offset, offset + size)`; the last chunk also finalizes the upload. */
export async function sendChunk(ref: Reference, url: string, blob: Blob, offset: number, size: number, signal: AbortSignal): Promise<ResumableStatus> {
  const finalize = offset + size >= blob.size;
  let chunk: Blob | null;
  try {
    chunk = blob.slice(offset, offset + size, 'application/octet-stream');
  } catch {
    chunk = null;
  }
  if (!chunk || chunk.size !== size) throw new StorageError('cannot-slice-blob', STORAGE_MESSAGES.cannotSliceBlob);
  const response = await sendOnce(
    ref.storage,
    {
      method: 'POST',
      url,
      headers: {
        'content-type': 'application/octet-stream',
        'x-goog-upload-protocol': 'resumable',
        'x-goog-upload-command': finalize ? 'upload, finalize' : 'upload',
        'x-goog-upload-offset': String(offset),
      },
      body: chunk,
      location: ref.location,
      // 409: the server holds a different offset (say, a chunk given up on arrived after all); go on from there.
      acceptStatuses: [409],
    },
    signal,
  );
  const status = statusOf(response, ref, blob.size);
  if (response.status === 409) return status;
  if (finalize && !status.final) throw new StorageError('server-file-wrong-size', STORAGE_MESSAGES.serverFileWrongSize, response.status);
  return status;
}

/** Best effort, no retries: tells the server to drop a canceled session's bytes. */
export async function cancelResumable(ref: Reference, url: string): Promise<void> {
  const controller = new AbortController();
  await sendOnce(
    ref.storage,
    { method: 'POST', url, headers: { 'x-goog-upload-protocol': 'resumable', 'x-goog-upload-command': 'cancel' }, location: ref.location },
    controller.signal,
  ).catch(() => undefined);
}

export function metadataUrl(ref: Reference): string {
  return objectUrlPath(ref.location);
}
