import { fromStorageResource, STORAGE_MESSAGES, StorageError, type SettableMetadata, type StorageObjectMetadata, type StorageObjectResource } from '@storefront/domain/storage.ts';
import { downloadUrl } from '@storefront/domain/storage-location.ts';
import { decodeString, type StringFormat } from '@storefront/domain/storage-strings.ts';
import type { Reference } from './storage.ts';
import { parseJson, request, withRetry } from './transport.ts';
import { metadataUrl, sendMultipart, toBlob, type UploadData } from './upload-protocol.ts';

/** One-shot operations on a reference: metadata, download URL, delete, and single-request uploads. */
export interface FullMetadata extends StorageObjectMetadata {
  ref: Reference;
}

export interface UploadResult {
  metadata: FullMetadata;
  ref: Reference;
}

const withRef = (ref: Reference, metadata: StorageObjectMetadata): FullMetadata => ({ ...metadata, ref });

function neverAborted(): AbortSignal {
  return new AbortController().signal;
}

export async function getMetadata(ref: Reference): Promise<FullMetadata> {
  ref.throwIfRoot('getMetadata');
  const response = await request(ref.storage, { method: 'GET', url: metadataUrl(ref), location: ref.location }, { signal: neverAborted() });
  return withRef(ref, fromStorageResource(parseJson<StorageObjectResource>(response, ref.location)));
}

/** `<base>/v0/b/<bucket>/o/<path>?alt=media&token=<token>`: same-origin (`/v0/...`) when the base URL is ''. */
export async function getDownloadURL(ref: Reference): Promise<string> {
  ref.throwIfRoot('getDownloadURL');
  const metadata = await getMetadata(ref);
  const token = metadata.downloadTokens[0];
  if (!token) throw new StorageError('no-download-url', STORAGE_MESSAGES.noDownloadUrl);
  return downloadUrl(ref.storage.baseUrl, ref.location, token);
}

export async function deleteObject(ref: Reference): Promise<void> {
  ref.throwIfRoot('deleteObject');
  await request(ref.storage, { method: 'DELETE', url: metadataUrl(ref), location: ref.location }, { signal: neverAborted() });
}

/** Uploads in one multipart request, whatever the size (use uploadBytesResumable for progress and resuming). */
export async function uploadBytes(ref: Reference, data: UploadData, metadata?: SettableMetadata): Promise<UploadResult> {
  ref.throwIfRoot('uploadBytes');
  const blob = toBlob(data);
  const stored = await withRetry(ref.storage, (signal) => sendMultipart(ref, blob, metadata, signal), { signal: neverAborted() });
  return { metadata: withRef(ref, stored), ref };
}

/** Uploads a string given as raw text, base64, base64url or a data URL (whose type is used if none is given). */
export async function uploadString(ref: Reference, value: string, format: StringFormat = 'raw', metadata?: SettableMetadata): Promise<UploadResult> {
  ref.throwIfRoot('uploadString');
  const data = decodeString(format, value);
  const withType = metadata?.contentType || !data.contentType ? metadata : { ...metadata, contentType: data.contentType };
  return uploadBytes(ref, data.bytes, withType);
}
