import { contentImagePath, MASTERS_FOLDER, productImagePath, safeFileName } from '@storefront/domain/storage-paths.ts';
import { StorageError } from '@storefront/domain/storage-error.ts';
import { getDownloadURL } from '@storefront/sdk/storage/operations.ts';
import { createStorage, ref, type Storage } from '@storefront/sdk/storage/storage.ts';
import { uploadBytesResumable, type UploadTask } from '@storefront/sdk/storage/upload-task.ts';

/**
 * Product image uploads (spec sections 4, 5 and 7): only image files, stored under
 * `products/` named by timestamp, index and file name, with progress in percent; the
 * download URL is what a product keeps.
 */

let storage: Storage | undefined;

// Same origin, authenticated by the session cookie; made on first use, not at import.
function productStorage(): Storage {
  storage ??= createStorage();
  return storage;
}

/** Spec section 5, Images: only image files. The server checks the bytes again. */
export function isImageFile(file: File): boolean {
  return file.type.startsWith('image/');
}

export interface ProductImageUpload {
  task: UploadTask;
  /** The download URL once the upload succeeds; rejects with a StorageError. */
  url: Promise<string>;
}

export interface UploadOptions {
  /** One timestamp for every file of a save, so a product's images sort together. */
  timestampMs: number;
  /** The image's position in the product. */
  index: number;
  onProgress: (percent: number) => void;
}

export function uploadProductImage(file: File, { timestampMs, index, onProgress }: UploadOptions): ProductImageUpload {
  const target = ref(productStorage(), productImagePath(timestampMs, index, file.name));
  const task = uploadBytesResumable(target, file, { contentType: file.type });
  // Failures arrive through `url`; this observer only follows progress.
  task.on('state_changed', (snapshot) => onProgress(snapshot.percent));
  const url = task.then(({ ref: uploaded }) => getDownloadURL(uploaded));
  return { task, url };
}

/** A content page's image (a Home cover, issue 18): under `content/`, same checks and variants. */
export function uploadContentImage(file: File, onProgress: (percent: number) => void): ProductImageUpload {
  const target = ref(productStorage(), contentImagePath(Date.now(), file.name));
  const task = uploadBytesResumable(target, file, { contentType: file.type });
  task.on('state_changed', (snapshot) => onProgress(snapshot.percent));
  const url = task.then(({ ref: uploaded }) => getDownloadURL(uploaded));
  return { task, url };
}

/** A digital release's artwork (issue 28): an image under `products/` (the release's products show it), same checks and variants. */
export function uploadReleaseArtwork(file: File, onProgress: (percent: number) => void): ProductImageUpload {
  return uploadProductImage(file, { timestampMs: Date.now(), index: 0, onProgress });
}

/**
 * A track's lossless master (issue 28): WAV, AIFF or FLAC under `masters/`, through the same
 * resumable upload (pause, resume, retries); the server checks the bytes. Resolves with its path.
 */
export function uploadMaster(file: File, releaseId: number, trackId: number, onProgress: (percent: number) => void): { task: UploadTask; path: Promise<string> } {
  const target = ref(productStorage(), `${MASTERS_FOLDER}/${releaseId}/${trackId}-${Date.now()}-${safeFileName(file.name)}`);
  const task = uploadBytesResumable(target, file, { contentType: file.type || 'application/octet-stream' });
  task.on('state_changed', (snapshot) => onProgress(snapshot.percent));
  return { task, path: task.then(({ ref: uploaded }) => uploaded.fullPath) };
}

/** What to tell an admin about a failed upload: the storage client's own message. */
export function uploadErrorMessage(error: unknown, fallback: string): string {
  if (error instanceof StorageError && error.message) return error.message;
  return fallback;
}
