import { and, inArray } from 'drizzle-orm';
import { DEFAULT_IMAGE_SIZES, responsiveImage, type ResponsiveImage } from '@storefront/domain/storage-images.ts';
import { parseDownloadUrl } from '@storefront/domain/storage-location.ts';
import type { Db } from '../db/client.ts';
import { storageObjects } from '../db/schema/index.ts';

/**
 * For the catalog: `src`, `srcset`, `sizes`, `width` and `height` of product images
 * from their download URLs, in one query. The variant URLs carry the download token,
 * so they change whenever the content does. URLs that are not current download URLs
 * of our objects (sample art, replaced images) come back as `{ src: url, srcset: '' }`.
 */
export async function describeImages(db: Db, urls: readonly string[]): Promise<ResponsiveImage[]> {
  const parsed = urls.map((url) => parseDownloadUrl(url));
  const wanted = parsed.filter((location) => location !== undefined);
  const rows =
    wanted.length === 0
      ? []
      : await db
          .select({
            bucket: storageObjects.bucket,
            path: storageObjects.path,
            width: storageObjects.width,
            height: storageObjects.height,
            downloadTokens: storageObjects.downloadTokens,
          })
          .from(storageObjects)
          .where(
            and(
              inArray(storageObjects.bucket, [...new Set(wanted.map((location) => location.bucket))]),
              inArray(storageObjects.path, [...new Set(wanted.map((location) => location.path))]),
            ),
          );
  const byKey = new Map(rows.map((row) => [`${row.bucket}/${row.path}`, row]));
  return urls.map((url, index) => {
    const location = parsed[index];
    const row = location && byKey.get(`${location.bucket}/${location.path}`);
    if (!location || !row || !row.downloadTokens.includes(location.token)) {
      return { src: url, srcset: '', sizes: DEFAULT_IMAGE_SIZES, width: null, height: null };
    }
    return responsiveImage(url, { width: row.width, height: row.height });
  });
}

export async function describeImage(db: Db, url: string): Promise<ResponsiveImage> {
  const [image] = await describeImages(db, [url]);
  return image!;
}
