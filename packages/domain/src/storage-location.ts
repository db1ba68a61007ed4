/**
 * Where objects are: the path check and the URLs of objects and their downloads. Shared by
 * the sdk (references) and the server (which checks every path it is given). It imports
 * nothing, so the shop's product images (storage-images.ts) load no more than this; the
 * folders and the names uploads are given are in storage-paths.ts, and the reference URLs,
 * which throw the storage client's errors, are read in storage-reference-url.ts.
 */

export interface StorageLocation {
  bucket: string;
  /** '' for the bucket's root. */
  path: string;
}

const MAX_PATH_BYTES = 1024;
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

export type PathCheck = { ok: true; path: string } | { ok: false; problem: string };

/**
 * The server's check of an object path: NFC-normalised, relative, no empty, '.' or '..'
 * segments, no backslashes, NUL or other control characters, at most 1024 UTF-8 bytes.
 * Paths never reach the file system (objects are stored under random keys); these rules
 * keep names unambiguous for every client and for a future object-store driver.
 */
export function checkObjectPath(raw: string): PathCheck {
  const path = raw.normalize('NFC');
  const problem = (detail: string): PathCheck => ({ ok: false, problem: `Invalid object path: ${detail}` });
  if (path.length === 0) return problem('it is empty.');
  if (new TextEncoder().encode(path).length > MAX_PATH_BYTES) return problem(`it is longer than ${MAX_PATH_BYTES} bytes.`);
  if (CONTROL_CHARACTERS.test(path)) return problem('it must not contain NUL or other control characters.');
  if (path.includes('\\')) return problem('it must not contain backslashes.');
  if (path.startsWith('/')) return problem('it must be relative (no leading /).');
  const segments = path.split('/');
  if (segments.some((segment) => segment.length === 0)) return problem('it must not contain empty segments (// or a trailing /).');
  if (segments.some((segment) => segment === '.' || segment === '..')) return problem('it must not contain . or .. segments.');
  return { ok: true, path };
}

/** A bucket name in a URL, as a capturing group. */
export const BUCKET_PATTERN = '([A-Za-z0-9.\\-_]+)';

/** True when the string is a URL (has a scheme) rather than a path. */
export function looksLikeUrl(value: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value);
}

/** encodeURIComponent, plus the characters it leaves that URL checks and srcset dislike. */
export function encodeObjectPath(path: string): string {
  return encodeURIComponent(path).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** `/v0/b/<bucket>/o/<path>`: metadata, downloads and deletes of one object. */
export function objectUrlPath(location: StorageLocation): string {
  return `/v0/b/${encodeURIComponent(location.bucket)}/o/${encodeObjectPath(location.path)}`;
}

/** The download URL of an object for one of its tokens. `origin` is '' for a same-origin URL. */
export function downloadUrl(origin: string, location: StorageLocation, token: string): string {
  return `${origin.replace(/\/$/, '')}${objectUrlPath(location)}?alt=media&token=${encodeURIComponent(token)}`;
}

export interface ParsedDownloadUrl extends StorageLocation {
  token: string;
}

const DOWNLOAD_URL = new RegExp(`^(?:https?://[^/?#]+)?/v0/b/${BUCKET_PATTERN}/o/([^?#]+)\\?([^#]*)$`);

/** Reads a download URL (absolute or same-origin); undefined when it is not one of ours. */
export function parseDownloadUrl(url: string): ParsedDownloadUrl | undefined {
  const match = DOWNLOAD_URL.exec(url);
  if (!match) return undefined;
  const query = new URLSearchParams(match[3]);
  const token = query.get('token');
  if (query.get('alt') !== 'media' || !token) return undefined;
  try {
    const path = decodeURIComponent(match[2]!);
    return checkObjectPath(path).ok ? { bucket: match[1]!, path, token } : undefined;
  } catch {
    return undefined;
  }
}
