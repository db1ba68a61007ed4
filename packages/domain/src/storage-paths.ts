/**
 * The shop's folders and the paths it gives objects (spec section 7): where product and
 * content images and digital masters live, and how an upload is named. Apart from
 * storage-location.ts, so a page that only shows images does not load them.
 */

/** Where product images live; with CONTENT_IMAGES_FOLDER, the only folders the server accepts writes in. */
export const PRODUCT_IMAGES_FOLDER = 'products';
/** Where the content pages' images live (Home covers, issue 18): public to read, admins write. */
export const CONTENT_IMAGES_FOLDER = 'content';

/** Joins a child path the way references do: empty segments vanish ('a//b/' is 'a/b'). */
export function childPath(path: string, child: string): string {
  const canonical = child
    .split('/')
    .filter((segment) => segment.length > 0)
    .join('/');
  if (path.length === 0) return canonical;
  return canonical.length === 0 ? path : `${path}/${canonical}`;
}

/** The parent's path, '' for a top-level object, null for the root. */
export function parentPath(path: string): string | null {
  if (path.length === 0) return null;
  const index = path.lastIndexOf('/');
  return index === -1 ? '' : path.slice(0, index);
}

/** The last segment: the object's name. */
export function lastSegment(path: string): string {
  const index = path.lastIndexOf('/', path.length - 2);
  return index === -1 ? path : path.slice(index + 1);
}

/** True for paths inside the product images folder, where admins may write. */
export function isProductImagePath(path: string): boolean {
  return path.startsWith(`${PRODUCT_IMAGES_FOLDER}/`) && path.length > PRODUCT_IMAGES_FOLDER.length + 1;
}

/** True for paths inside the content images folder. */
export function isContentImagePath(path: string): boolean {
  return path.startsWith(`${CONTENT_IMAGES_FOLDER}/`) && path.length > CONTENT_IMAGES_FOLDER.length + 1;
}

/** The folder of digital releases' lossless masters (issue 28): admins write and read them, nobody else. */
export const MASTERS_FOLDER = 'masters';

export function isMasterPath(path: string): boolean {
  return path.startsWith(`${MASTERS_FOLDER}/`) && path.length > MASTERS_FOLDER.length + 1;
}

/** The folders of public images, which admins write: products' and content pages'. */
export function isPublicImagePath(path: string): boolean {
  return isProductImagePath(path) || isContentImagePath(path);
}

/** A file name made safe for object paths and URLs: letters, digits, '.', '_' and '-'. */
export function safeFileName(fileName: string): string {
  const base = fileName.normalize('NFC').split(/[/\\]/).pop() ?? '';
  const cleaned = base
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[.-]+/, '')
    .slice(-100);
  return cleaned.length > 0 && cleaned !== '.' ? cleaned : 'image';
}

/** Product images are named by timestamp, index and file name (spec section 7). */
export function productImagePath(timestampMs: number, index: number, fileName: string): string {
  return `${PRODUCT_IMAGES_FOLDER}/${Math.trunc(timestampMs)}_${Math.trunc(index)}_${safeFileName(fileName)}`;
}

/** Content images are named like product images: timestamp and file name. */
export function contentImagePath(timestampMs: number, fileName: string): string {
  return `${CONTENT_IMAGES_FOLDER}/${Math.trunc(timestampMs)}_${safeFileName(fileName)}`;
}
