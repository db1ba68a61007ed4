import { describe, expect, it } from 'vitest';
import { releaseProductInput } from './catalog-schemas.ts';
import { StorageError } from './storage.ts';
import { checkObjectPath, downloadUrl, looksLikeUrl, parseDownloadUrl } from './storage-location.ts';
import { childPath, isProductImagePath, lastSegment, parentPath, productImagePath, safeFileName } from './storage-paths.ts';
import { parseStorageUrl } from './storage-reference-url.ts';

describe('reference paths', () => {
  it.each([
    ['', 'a', 'a'],
    ['', 'a//b/', 'a/b'],
    ['a', 'b/c', 'a/b/c'],
    ['a', '/b/', 'a/b'],
    ['a', '', 'a'],
    ['', '///', ''],
  ])('child of %j by %j -> %j', (path, child, expected) => expect(childPath(path, child)).toBe(expected));

  it.each([
    ['', null],
    ['a', ''],
    ['a/b', 'a'],
    ['a/b/c.png', 'a/b'],
  ])('parent of %j -> %j', (path, parent) => expect(parentPath(path)).toBe(parent));

  it.each([
    ['', ''],
    ['a', 'a'],
    ['products/x.png', 'x.png'],
  ])('name of %j -> %j', (path, name) => expect(lastSegment(path)).toBe(name));
});

describe('object path checks (server side)', () => {
  it.each([
    ['products/1_0_cover.png', 'products/1_0_cover.png'],
    ['products/Cafe\u0301.png', 'products/Caf\u00e9.png'], // normalised to NFC
    ['products/with space (1).png', 'products/with space (1).png'],
  ])('%j is accepted as %j', (raw, path) => expect(checkObjectPath(raw)).toEqual({ ok: true, path }));

  it.each([
    ['', 'empty'],
    ['/etc/passwd', 'relative'],
    ['products/../secret', '..'],
    ['../products/x.png', '..'],
    ['products/./x.png', '..'],
    ['products\\..\\x.png', 'backslashes'],
    ['products/x\u0000.png', 'control characters'],
    ['products/x\n.png', 'control characters'],
    ['products//x.png', 'empty segments'],
    ['products/', 'empty segments'],
    [`products/${'x'.repeat(1100)}`, 'longer than 1024 bytes'],
  ])('%j is refused (%s)', (raw, why) => {
    const result = checkObjectPath(raw);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem).toContain(why);
  });

  it.each([
    ['products/a.png', true],
    ['products/x/y.png', true],
    ['products', false],
    ['products/', false],
    ['productsX/a.png', false],
    ['other/a.png', false],
  ])('%j is a product image path: %s', (path, expected) => expect(isProductImagePath(path)).toBe(expected));
});

describe('product image names: timestamp, index and file name', () => {
  it.each([
    ['cover.png', 'products/1700000000000_0_cover.png'],
    ['My Cover (final).JPG', 'products/1700000000000_0_My-Cover-final-.JPG'],
    ['../../etc/passwd', 'products/1700000000000_0_passwd'],
    ['C:\\photos\\tee.webp', 'products/1700000000000_0_tee.webp'],
    ['Café.png', 'products/1700000000000_0_Cafe.png'],
    ['...', 'products/1700000000000_0_image'],
    ['🎵', 'products/1700000000000_0_image'],
  ])('%j -> %j', (name, path) => expect(productImagePath(1_700_000_000_000, 0, name)).toBe(path));

  it('keeps the extension of a very long name', () => {
    const name = safeFileName(`${'a'.repeat(300)}.png`);
    expect(name.length).toBeLessThanOrEqual(100);
    expect(name.endsWith('.png')).toBe(true);
  });
});

describe('reference URLs (spec section 5)', () => {
  it.each([
    ['gs://storefront/products/a.png', { bucket: 'storefront', path: 'products/a.png' }],
    ['gs://storefront', { bucket: 'storefront', path: '' }],
    ['gs://storefront/', { bucket: 'storefront', path: '' }],
    ['http://127.0.0.1:3000/v0/b/storefront/o/products%2Fa.png', { bucket: 'storefront', path: 'products/a.png' }],
    ['https://shop.example/v0/b/storefront/o/products%2Fa%20b.png?alt=media&token=t', { bucket: 'storefront', path: 'products/a b.png' }],
    ['https://shop.example/v0/b/other-bucket/o', { bucket: 'other-bucket', path: '' }],
  ])('%s -> %o', (url, location) => expect(parseStorageUrl(url)).toEqual(location));

  it.each([
    'ftp://storefront/a.png',
    'https://shop.example/products/a.png',
    'https://shop.example/v0/b/storefront/a.png',
    'https://shop.example/v0/b/bad bucket/o/a',
    'https://shop.example/v0/b/storefront/o/%E0%A4%A',
    'gs://',
    'data:text/plain,hi',
  ])('%s -> invalid-url', (url) => {
    const error = (() => {
      try {
        parseStorageUrl(url);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(StorageError);
    expect(error).toMatchObject({ code: 'invalid-url', message: `Invalid URL '${url}'.` });
  });

  it.each([
    ['gs://a/b', true],
    ['https://x/y', true],
    ['products/a.png', false],
    ['/v0/b/x/o/y', false],
  ])('%s looks like a URL: %s', (value, expected) => expect(looksLikeUrl(value)).toBe(expected));
});

describe('download URLs', () => {
  const location = { bucket: 'storefront', path: "products/1_0_it's (1).png" };

  it('encodes the whole path, parentheses and quotes included', () => {
    const url = downloadUrl('', location, 'tok-1');
    expect(url).toBe('/v0/b/storefront/o/products%2F1_0_it%27s%20%281%29.png?alt=media&token=tok-1');
    expect(parseDownloadUrl(url)).toEqual({ ...location, token: 'tok-1' });
  });

  it.each([
    ['http://127.0.0.1:3000/v0/b/storefront/o/products%2Fa.png?alt=media&token=abc', { bucket: 'storefront', path: 'products/a.png', token: 'abc' }],
    ['/v0/b/storefront/o/products%2Fa.png?token=abc&alt=media', { bucket: 'storefront', path: 'products/a.png', token: 'abc' }],
    ['/v0/b/storefront/o/products%2Fa.png?alt=media', undefined],
    ['/v0/b/storefront/o/products%2Fa.png', undefined],
    ['/v0/b/storefront/o/..%2Fa.png?alt=media&token=abc', undefined],
    ['/content/covers/a.jpg', undefined],
  ])('%s -> %o', (url, parsed) => expect(parseDownloadUrl(url)).toEqual(parsed));
});

describe('download URLs of product images fit the catalog', () => {
  it.each(['cover.png', 'My Cover (final) #2.JPG', "it's ünïcode & co.webp", `${'long'.repeat(60)}.png`])('%s', (fileName) => {
    const path = productImagePath(1_700_000_000_000, 3, fileName);
    const url = downloadUrl('', { bucket: 'storefront', path }, '0b6f6c1e-2f4d-4c55-9a49-5d3c1f8e7a10');
    const parsed = releaseProductInput.safeParse({ name: 'Tee', description: 'Black tee', priceCents: 2500, images: [url] });
    expect(parsed.success).toBe(true);
    expect(parseDownloadUrl(url)?.path).toBe(path);
  });
});
