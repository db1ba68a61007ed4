import sharp, { type Metadata } from 'sharp';
import { MAX_IMAGE_PIXELS, UPLOAD_MESSAGES } from '@storefront/domain/storage.ts';
import { variantWidths } from '@storefront/domain/storage-images.ts';
import { StorageHttpError } from './storage.errors.ts';

/**
 * Images only, judged by their bytes: the magic number picks the format, sharp must
 * agree, the pixel count is checked from the header before anything is decoded, and the
 * image is re-encoded (turned upright, metadata dropped) before it is stored.
 */
export type ImageFormat = 'jpeg' | 'png' | 'webp' | 'gif' | 'avif';

export const IMAGE_CONTENT_TYPES: Record<ImageFormat, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
  avif: 'image/avif',
};

const ascii = (bytes: Uint8Array, start: number, end: number) => Buffer.from(bytes.subarray(start, end)).toString('latin1');

function isAvif(bytes: Uint8Array): boolean {
  if (bytes.length < 16 || ascii(bytes, 4, 8) !== 'ftyp') return false;
  const boxSize = Math.min(bytes.length, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).readUInt32BE(0));
  const brands = [ascii(bytes, 8, 12)];
  for (let offset = 16; offset + 4 <= boxSize; offset += 4) brands.push(ascii(bytes, offset, offset + 4));
  return brands.some((brand) => brand === 'avif' || brand === 'avis');
}

function looksLikeSvg(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.subarray(0, 4096))
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart()
    .toLowerCase();
  return head.startsWith('<') && head.includes('<svg');
}

/** The format the bytes are, from their magic number; 'svg' and undefined are refused. */
export function sniffImageFormat(bytes: Uint8Array): ImageFormat | 'svg' | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.length >= 8 && ascii(bytes, 0, 8) === '\x89PNG\r\n\x1a\n') return 'png';
  if (bytes.length >= 6 && (ascii(bytes, 0, 6) === 'GIF87a' || ascii(bytes, 0, 6) === 'GIF89a')) return 'gif';
  if (bytes.length >= 12 && ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') return 'webp';
  if (isAvif(bytes)) return 'avif';
  if (looksLikeSvg(bytes)) return 'svg';
  return undefined;
}

export interface ProcessedImage {
  format: ImageFormat;
  contentType: string;
  data: Buffer;
  width: number;
  height: number;
}

export interface ImageVariant {
  width: number;
  height: number;
  data: Buffer;
}

const refuse = (message: string) => new StorageHttpError('invalid-argument', message, 400);
/** Not an accepted image type: refused as a storage rule refuses (403), so the Firebase SDK reports it as storage/unauthorized with our message. */
const refuseType = (message: string) => new StorageHttpError('invalid-argument', message, 403);
const TIMEOUT = { seconds: 60 };

function sharpFormatMatches(format: ImageFormat, metadata: Metadata): boolean {
  if (format === 'avif') return metadata.format === 'heif' && metadata.compression === 'av1';
  return metadata.format === format;
}

/** Checks the bytes are an accepted image of at most `maxPixels`, and re-encodes them. */
export async function processImage(bytes: Buffer, maxPixels = MAX_IMAGE_PIXELS): Promise<ProcessedImage> {
  if (bytes.length === 0) throw refuse(UPLOAD_MESSAGES.empty);
  const format = sniffImageFormat(bytes);
  if (format === 'svg') throw refuseType(UPLOAD_MESSAGES.svg);
  if (!format) throw refuseType(UPLOAD_MESSAGES.notAnImage);

  const animated = format === 'gif' || format === 'webp';
  let metadata: Metadata;
  try {
    metadata = await sharp(bytes, { animated, limitInputPixels: false }).metadata();
  } catch {
    throw refuse(UPLOAD_MESSAGES.unreadable);
  }
  if (!sharpFormatMatches(format, metadata)) throw refuse(UPLOAD_MESSAGES.notAnImage);
  // With `animated`, height is every frame stacked: the pixels a decode really costs.
  const pixels = (metadata.width ?? 0) * (metadata.height ?? 0);
  if (pixels > maxPixels) throw refuse(UPLOAD_MESSAGES.tooManyPixels(pixels));
  if (pixels === 0) throw refuse(UPLOAD_MESSAGES.unreadable);

  const frames = metadata.pages ?? 1;
  let pipeline = sharp(bytes, { animated, limitInputPixels: maxPixels }).timeout(TIMEOUT);
  // EXIF orientation only exists on still images; sharp drops all metadata on output.
  if (frames === 1) pipeline = pipeline.autoOrient();
  switch (format) {
    case 'jpeg':
      pipeline = pipeline.jpeg({ quality: 88, mozjpeg: true });
      break;
    case 'png':
      pipeline = pipeline.png({ compressionLevel: 8 });
      break;
    case 'webp':
      pipeline = pipeline.webp({ quality: 88 });
      break;
    case 'gif':
      pipeline = pipeline.gif();
      break;
    case 'avif':
      pipeline = pipeline.avif({ quality: 60 });
      break;
  }
  try {
    const { data, info } = await pipeline.toBuffer({ resolveWithObject: true });
    const height = frames > 1 ? (info.pageHeight ?? info.height / frames) : info.height;
    return { format, contentType: IMAGE_CONTENT_TYPES[format], data, width: info.width, height };
  } catch {
    throw refuse(UPLOAD_MESSAGES.unreadable);
  }
}

/** WebP variants at the shop's widths, never wider than the image itself. */
export async function makeVariants(image: ProcessedImage, maxPixels = MAX_IMAGE_PIXELS): Promise<ImageVariant[]> {
  const animated = image.format === 'gif' || image.format === 'webp';
  return Promise.all(
    variantWidths(image.width).map(async (width) => {
      const { data, info } = await sharp(image.data, { animated, limitInputPixels: maxPixels })
        .timeout(TIMEOUT)
        .resize({ width, withoutEnlargement: true })
        .webp({ quality: 80 })
        .toBuffer({ resolveWithObject: true });
      return { width: info.width, height: info.pageHeight ?? info.height, data };
    }),
  );
}
