import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { UPLOAD_MESSAGES } from '@storefront/domain/storage.ts';
import { StorageHttpError } from './storage.errors.ts';
import { makeVariants, processImage, sniffImageFormat } from './storage.images.ts';
import { bombPng, sidewaysJpeg, solidImage, SVG_WITH_SCRIPT } from './testing/images.ts';

async function refusal(bytes: Buffer): Promise<StorageHttpError> {
  const error = await processImage(bytes).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(StorageHttpError);
  return error as StorageHttpError;
}

describe('image checks by content', () => {
  it.each(['png', 'jpeg', 'webp', 'gif', 'avif'] as const)('recognises %s by its bytes and keeps its format', async (format) => {
    const bytes = await solidImage(40, 30, format);
    expect(sniffImageFormat(bytes)).toBe(format);
    const image = await processImage(bytes);
    expect(image).toMatchObject({ format, contentType: `image/${format}`, width: 40, height: 30 });
    expect((await sharp(image.data).metadata()).format).toBe(format === 'avif' ? 'heif' : format);
  });

  // Not an accepted type: 403, as a storage rule refuses (the Firebase SDK's storage/unauthorized, decision 029).
  it.each([
    ['text named like an image', Buffer.from('hello, I am not a picture'), UPLOAD_MESSAGES.notAnImage, 403],
    ['an SVG with a script', SVG_WITH_SCRIPT, UPLOAD_MESSAGES.svg, 403],
    ['an SVG without a declaration', Buffer.from('  <svg xmlns="http://www.w3.org/2000/svg"></svg>'), UPLOAD_MESSAGES.svg, 403],
    ['HTML', Buffer.from('<!doctype html><html><script>alert(1)</script></html>'), UPLOAD_MESSAGES.notAnImage, 403],
    ['a PDF', Buffer.from('%PDF-1.7\n1 0 obj'), UPLOAD_MESSAGES.notAnImage, 403],
    ['a PNG signature with garbage after it', Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'), Buffer.alloc(64, 7)]), UPLOAD_MESSAGES.unreadable, 400],
    ['nothing', Buffer.alloc(0), UPLOAD_MESSAGES.empty, 400],
  ])('refuses %s', async (_name, bytes, message, statusCode) => {
    const error = await refusal(bytes);
    expect(error).toMatchObject({ code: 'invalid-argument', statusCode, message });
  });

  it('refuses a truncated image', async () => {
    const png = await solidImage(400, 400, 'png');
    const error = await refusal(png.subarray(0, Math.floor(png.length / 2)));
    expect(error.message).toBe(UPLOAD_MESSAGES.unreadable);
  });

  it('refuses a decompression bomb from its header, before decoding it', async () => {
    const bomb = bombPng();
    expect(bomb.length).toBeLessThan(100_000);
    const started = Date.now();
    const error = await refusal(bomb);
    expect(error.message).toBe(UPLOAD_MESSAGES.tooManyPixels(400_000_000));
    expect(error.message).toContain('at most 40 megapixels');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('turns a sideways photo upright and drops its metadata', async () => {
    const image = await processImage(await sidewaysJpeg(300, 200));
    expect([image.width, image.height]).toEqual([200, 300]);
    const stored = await sharp(image.data).metadata();
    expect(stored.orientation).toBeUndefined();
    expect(stored.exif).toBeUndefined();
    expect(image.data.includes(Buffer.from('secret camera owner'))).toBe(false);
  });
});

describe('variants', () => {
  it('makes WebP at 320, 640 and 1280 px wide', async () => {
    const variants = await makeVariants(await processImage(await solidImage(2000, 1000, 'jpeg')));
    expect(variants.map((v) => [v.width, v.height])).toEqual([
      [320, 160],
      [640, 320],
      [1280, 640],
    ]);
    for (const variant of variants) expect((await sharp(variant.data).metadata()).format).toBe('webp');
  });

  it('never upscales', async () => {
    const variants = await makeVariants(await processImage(await solidImage(500, 500, 'png')));
    expect(variants.map((v) => v.width)).toEqual([320, 500]);
  });
});
