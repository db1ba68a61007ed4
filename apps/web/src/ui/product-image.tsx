import { responsiveImage } from '@storefront/domain/storage-images.ts';

/** Product artwork is shown in square frames; the CSS crops or letterboxes to fit. */
const FRAME_SIZE = 640;

interface ProductImageProps {
  url: string;
  alt: string;
  /** The `sizes` attribute: how wide the image is drawn at each viewport width. */
  sizes: string;
  /** For images on the first screen: loaded at once and first. */
  priority?: boolean;
  className?: string;
}

/**
 * A product image with the WebP variants our storage makes (srcset), and width and height
 * always set, so the page never jumps while it loads. Other URLs (sample art, a local
 * preview) are shown as they are.
 */
export function ProductImage({ url, alt, sizes, priority = false, className }: ProductImageProps) {
  const image = responsiveImage(url);
  return (
    <img
      className={className}
      src={image.src}
      srcSet={image.srcset || undefined}
      sizes={image.srcset ? sizes : undefined}
      width={image.width ?? FRAME_SIZE}
      height={image.height ?? FRAME_SIZE}
      alt={alt}
      loading={priority ? 'eager' : 'lazy'}
      decoding="async"
      {...(priority ? { fetchPriority: 'high' as const } : {})}
    />
  );
}
