import { encodeObjectPath, parseDownloadUrl, type StorageLocation } from './storage-location.ts';

/**
 * Responsive product images: every uploaded image gets WebP variants at these widths
 * (never wider than the original), served at URLs that carry the object's download
 * token, so they change whenever the content does and can be cached for a year.
 */
export const IMAGE_VARIANT_WIDTHS = [320, 640, 1280] as const;
export type ImageVariantWidth = (typeof IMAGE_VARIANT_WIDTHS)[number];

/** The width `src` uses: sharp enough for a shop card or a phone. */
export const DEFAULT_IMAGE_WIDTH: ImageVariantWidth = 640;

/** A `sizes` value for the shop grid and gallery: full width on phones, a column otherwise. */
export const DEFAULT_IMAGE_SIZES = '(max-width: 725px) 100vw, 640px';

export function isImageVariantWidth(value: number): value is ImageVariantWidth {
  return (IMAGE_VARIANT_WIDTHS as readonly number[]).includes(value);
}

/** The width a variant really has: the requested one, or the original's when it is narrower. */
export function variantWidth(requested: ImageVariantWidth, originalWidth: number): number {
  return Math.min(requested, originalWidth);
}

/** The distinct widths of an image's variants, narrowest first. */
export function variantWidths(originalWidth: number): number[] {
  return [...new Set(IMAGE_VARIANT_WIDTHS.map((width) => variantWidth(width, originalWidth)))];
}

/** `/img/<bucket>/<path>?w=<width>&token=<token>`: one variant, cacheable forever. */
export function imageVariantUrl(location: StorageLocation, token: string, width: ImageVariantWidth): string {
  return `/img/${encodeURIComponent(location.bucket)}/${encodeObjectPath(location.path)}?w=${width}&token=${encodeURIComponent(token)}`;
}

export interface ResponsiveImage {
  src: string;
  /** '' when the image has no variants (not one of our uploads). */
  srcset: string;
  sizes: string;
  /** Of `src`, for the img element's width and height (its aspect ratio); null when unknown. */
  width: number | null;
  height: number | null;
}

/**
 * `src`, `srcset` and size of an image from its download URL. Give the original's
 * dimensions when known (the server has them); without them every variant width is
 * listed. A URL that is not one of our download URLs is returned as it is.
 */
export function responsiveImage(url: string, original?: { width: number; height: number }): ResponsiveImage {
  const parsed = parseDownloadUrl(url);
  if (!parsed) return { src: url, srcset: '', sizes: DEFAULT_IMAGE_SIZES, width: original?.width ?? null, height: original?.height ?? null };
  const candidates = IMAGE_VARIANT_WIDTHS.map((requested) => ({
    requested,
    width: original ? variantWidth(requested, original.width) : requested,
  }));
  // One URL per distinct real width: the narrowest request that yields it.
  const distinct = candidates.filter((candidate, index) => candidates.findIndex((c) => c.width === candidate.width) === index);
  const srcset = distinct.map((c) => `${imageVariantUrl(parsed, parsed.token, c.requested)} ${c.width}w`).join(', ');
  const chosen = distinct.find((c) => c.requested >= DEFAULT_IMAGE_WIDTH) ?? distinct[distinct.length - 1]!;
  const width = original ? chosen.width : null;
  const height = original ? Math.max(1, Math.round((original.height * chosen.width) / original.width)) : null;
  return { src: imageVariantUrl(parsed, parsed.token, chosen.requested), srcset, sizes: DEFAULT_IMAGE_SIZES, width, height };
}
