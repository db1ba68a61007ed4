import { STORAGE_MESSAGES, StorageError } from './storage.ts';
import { BUCKET_PATTERN, type StorageLocation } from './storage-location.ts';
import { childPath } from './storage-paths.ts';

/** The URLs a storage reference may be made from (spec section 5); the sdk's references read them. */

const GS_URL = new RegExp(`^gs://${BUCKET_PATTERN}(?:/(.*))?$`);
const HTTP_URL = new RegExp(`^https?://[^/?#]+/v0/b/${BUCKET_PATTERN}/o(?:/([^?#]*))?(?:[?#].*)?$`);

/** A reference URL: `gs://bucket/path` or `http(s)://host/v0/b/bucket/o/path`; else invalid-url. */
export function parseStorageUrl(url: string): StorageLocation {
  const invalid = () => new StorageError('invalid-url', STORAGE_MESSAGES.invalidUrl(url));
  const gs = GS_URL.exec(url);
  if (gs) return { bucket: gs[1]!, path: childPath('', gs[2] ?? '') };
  const http = HTTP_URL.exec(url);
  if (!http) throw invalid();
  try {
    return { bucket: http[1]!, path: childPath('', decodeURIComponent(http[2] ?? '')) };
  } catch {
    throw invalid();
  }
}
