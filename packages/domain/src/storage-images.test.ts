import { describe, expect, it } from 'vitest';
import { DEFAULT_IMAGE_SIZES, imageVariantUrl, responsiveImage, variantWidths } from './storage-images.ts';
import { downloadUrl } from './storage-location.ts';

const location = { bucket: 'storefront', path: 'products/1_0_tee.png' };
const url = downloadUrl('http://127.0.0.1:3000', location, 'tok');
const variant = (w: number) => imageVariantUrl(location, 'tok', w as 320 | 640 | 1280);

describe('variant widths: never upscaled', () => {
  it.each([
    [4000, [320, 640, 1280]],
    [1280, [320, 640, 1280]],
    [1000, [320, 640, 1000]],
    [500, [320, 500]],
    [320, [320]],
    [100, [100]],
  ])('original %i px wide -> %j', (width, widths) => expect(variantWidths(width)).toEqual(widths));
});

describe('responsiveImage', () => {
  it('lists the real widths and picks the 640 variant as src', () => {
    expect(responsiveImage(url, { width: 3000, height: 2000 })).toEqual({
      src: variant(640),
      srcset: `${variant(320)} 320w, ${variant(640)} 640w, ${variant(1280)} 1280w`,
      sizes: DEFAULT_IMAGE_SIZES,
      width: 640,
      height: 427,
    });
  });

  it('stops at the original width for a small image', () => {
    expect(responsiveImage(url, { width: 500, height: 250 })).toMatchObject({
      src: variant(640),
      srcset: `${variant(320)} 320w, ${variant(640)} 500w`,
      width: 500,
      height: 250,
    });
    expect(responsiveImage(url, { width: 200, height: 400 })).toMatchObject({ src: variant(320), srcset: `${variant(320)} 200w`, width: 200, height: 400 });
  });

  it('lists every width when the dimensions are unknown', () => {
    expect(responsiveImage(url)).toMatchObject({ src: variant(640), width: null, height: null });
    expect(responsiveImage(url).srcset.split(', ')).toHaveLength(3);
  });

  it('passes other URLs through', () => {
    expect(responsiveImage('/content/covers/a.jpg')).toEqual({ src: '/content/covers/a.jpg', srcset: '', sizes: DEFAULT_IMAGE_SIZES, width: null, height: null });
  });

  it('builds URLs that carry the token, so new content means a new URL', () => {
    expect(variant(640)).toBe('/img/storefront/products%2F1_0_tee.png?w=640&token=tok');
  });
});
