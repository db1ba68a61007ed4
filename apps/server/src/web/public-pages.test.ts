import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FunctionInput } from '@storefront/domain/contracts/index.ts';
import { createAuthClient } from '@storefront/sdk/auth.ts';
import { createFunctionsClient } from '@storefront/sdk/callable.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { makeTempDir } from '../../test/database.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import { TEST_MODE_BANNER } from '../http/test-mode.ts';
import { contentSeeder, runSeeds } from '../seed/seed.ts';

// The shape of apps/web/index.html: a generic title and description the server replaces.
const INDEX_HTML =
  '<!doctype html><html lang="en"><head><meta charset="UTF-8" /><meta name="description" content="Generic." />' +
  '<title>Street Flavor Records</title></head><body><div id="root"></div><script type="module" src="/assets/app.js"></script></body></html>';

let shop: TestApp;
let webDist: { dir: string; remove(): void };
let admin: ReturnType<typeof createFunctionsClient>;

const tee = { name: 'Tour Tee', description: 'Black cotton tee from the 2026 tour.', priceCents: 2500, images: ['/content/covers/cover-01.svg', '/content/covers/cover-02.svg'] };

beforeAll(async () => {
  webDist = makeTempDir('web-dist-pages');
  fs.writeFileSync(path.join(webDist.dir, 'index.html'), INDEX_HTML);
  shop = await startTestApp({
    config: { webDistDir: webDist.dir },
    seed: async ({ db, config }) => {
      await runSeeds(db, { config, log: () => undefined }, [contentSeeder]);
      const form = { email: 'admin@example.org', username: 'Admin', name: 'Admin', password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true };
      await createAccount(db, config, form, { emailVerified: true, role: 'admin', allowReservedUsername: true });
    },
  });
  const functions = createFunctionsClient({ baseUrl: shop.baseUrl });
  const { token } = await createAuthClient({ baseUrl: shop.baseUrl, functions }).signIn('admin@example.org', 'pass words');
  admin = createFunctionsClient({ baseUrl: shop.baseUrl, getAuthToken: () => token! });
});

afterAll(async () => {
  await shop?.close();
  webDist?.remove();
});

async function page(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${shop.baseUrl}${url}`, { headers });
  return { status: response.status, headers: response.headers, html: await response.text() };
}

/** Every JSON-LD block of a page, parsed (a block that is not JSON fails the test). */
function structuredData(html: string): Record<string, unknown>[] {
  return [...html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)].map((match) => JSON.parse(match[1]!) as Record<string, unknown>);
}

/** The data embedded for the web app (decision 058), parsed; undefined when the page has none. */
function pageData(html: string): unknown {
  const match = /<script type="application\/json" id="page-data">([\s\S]*?)<\/script>/.exec(html);
  return match ? JSON.parse(match[1]!) : undefined;
}

function metaContent(html: string, key: string): string | undefined {
  const match = new RegExp(`<meta (?:name|property)="${key.replace(/[.:]/g, '\\$&')}" content="([^"]*)">`).exec(html);
  return match?.[1];
}

/** The shop's categories as listCategories answers them. */
async function categories() {
  return (await admin.call('listCategories', null)).categories;
}

async function release(input: FunctionInput<'releaseBizarreProduct'>): Promise<string> {
  return (await admin.call('releaseBizarreProduct', input)).id;
}

describe('a product page as a crawler reads it (no JavaScript)', () => {
  it('holds the name, price, image URL, Open Graph and Twitter tags and a valid JSON-LD Product', async () => {
    const id = await release(tee);
    // A Host header of someone else's never makes the page's addresses.
    const { status, html, headers } = await page(`/product/${id}`, { 'x-forwarded-host': 'evil.example' });
    expect(status).toBe(200);
    expect(headers.get('content-type')).toMatch(/^text\/html/);
    const url = `${shop.baseUrl}/product/${id}`;
    const image = `${shop.baseUrl}/content/covers/cover-01.svg`;
    expect(html).toContain('<title>Tour Tee · Street Flavor Records</title>');
    expect(html).not.toContain('Generic.');
    expect(html).toContain(`<link rel="canonical" href="${url}">`);
    expect(metaContent(html, 'description')).toBe(tee.description);
    expect(metaContent(html, 'og:type')).toBe('product');
    expect(metaContent(html, 'og:title')).toBe('Tour Tee');
    expect(metaContent(html, 'og:url')).toBe(url);
    expect(metaContent(html, 'og:image')).toBe(image);
    expect(metaContent(html, 'product:price:amount')).toBe('25.00');
    expect(metaContent(html, 'product:price:currency')).toBe('USD');
    expect(metaContent(html, 'product:availability')).toBe('in stock');
    expect(metaContent(html, 'twitter:card')).toBe('summary_large_image');
    expect(metaContent(html, 'twitter:image')).toBe(image);
    // The web app still loads on top, with the product as GET /api/products/:id answers it.
    expect(html).toContain('<script type="module" src="/assets/app.js"></script>');
    expect(pageData(html)).toEqual(await (await fetch(`${shop.baseUrl}/api/products/${id}`)).json());

    const [product, ...others] = structuredData(html);
    expect(others).toEqual([]);
    expect(product).toMatchObject({
      '@context': 'https://schema.org',
      '@type': 'Product',
      name: 'Tour Tee',
      description: tee.description,
      image: [image, `${shop.baseUrl}/content/covers/cover-02.svg`],
      url,
      offers: { '@type': 'Offer', price: '25.00', priceCurrency: 'USD', availability: 'https://schema.org/InStock', url },
    });
  });

  it('carries an Offer per variant, each with its price and availability, when the product has options', async () => {
    const id = await release({
      ...tee,
      name: 'Hoodie',
      options: [{ name: 'Size', values: ['S', 'M'] }],
      variants: [
        { options: ['S'], sku: 'HOOD-S', priceCents: null, stock: 0 },
        { options: ['M'], sku: 'HOOD-M', priceCents: 3000, stock: 4 },
      ],
    });
    const { html } = await page(`/product/${id}`);
    const [product] = structuredData(html);
    expect(product?.offers).toMatchObject({
      '@type': 'AggregateOffer',
      priceCurrency: 'USD',
      lowPrice: '25.00',
      highPrice: '30.00',
      offerCount: 2,
      availability: 'https://schema.org/InStock',
      offers: [
        { '@type': 'Offer', name: 'Hoodie – S', sku: 'HOOD-S', price: '25.00', priceCurrency: 'USD', availability: 'https://schema.org/OutOfStock' },
        { '@type': 'Offer', name: 'Hoodie – M', sku: 'HOOD-M', price: '30.00', priceCurrency: 'USD', availability: 'https://schema.org/InStock' },
      ],
    });
  });

  it('says out of stock when every variant is sold out', async () => {
    const id = await release({ ...tee, name: 'Sold Out Cap', options: [], variants: [{ options: [], sku: 'CAP', priceCents: null, stock: 0 }] });
    const { html } = await page(`/product/${id}`);
    expect(metaContent(html, 'product:availability')).toBe('out of stock');
    expect(structuredData(html)[0]?.offers).toMatchObject({ '@type': 'Offer', availability: 'https://schema.org/OutOfStock' });
  });

  it('a withdrawn product answers 404 with none of its name, price, image or structured data', async () => {
    const id = await release({ ...tee, name: 'Withdrawn Poster', images: ['/content/covers/cover-03.svg'] });
    expect((await page(`/product/${id}`)).status).toBe(200);
    await admin.call('setProductActive', { id, isActive: false });
    const { status, html } = await page(`/product/${id}`);
    expect(status).toBe(404);
    expect(html).not.toContain('Withdrawn Poster');
    expect(html).not.toContain('cover-03');
    expect(metaContent(html, 'og:image')).toBeUndefined();
    expect(metaContent(html, 'robots')).toBe('noindex');
    expect(structuredData(html)).toEqual([]);
    expect(pageData(html)).toBeUndefined();
    // The web app still runs there (an admin sees the withdrawn product in it).
    expect(html).toContain('<div id="root"></div>');

    expect((await page('/product/no-such-product')).status).toBe(404);
  });

  it('writes a name holding </script> as data, never as markup', async () => {
    const name = 'Bad </script><script>alert(1)</script> & <b>Tee</b>';
    const id = await release({ ...tee, name, description: 'A "quoted" </SCRIPT> description' });
    const { html, headers } = await page(`/product/${id}`);
    expect(html).not.toContain('<script>alert(1)');
    expect(html).not.toContain('<b>Tee</b>');
    expect(html.match(/<script/g)).toHaveLength(3); // the JSON-LD block, the page's data and the app's module
    const [product] = structuredData(html);
    expect(product?.name).toBe(name);
    expect(pageData(html)).toMatchObject({ product: { id, name } });
    expect(product?.description).toBe('A "quoted" </SCRIPT> description');
    expect(html).toContain(`<title>Bad &#60;/script&#62;&#60;script&#62;alert(1)&#60;/script&#62; &#38; &#60;b&#62;Tee&#60;/b&#62; · Street Flavor Records</title>`);
    // The CSP stays as strict as on every page: the JSON-LD block is data, not script.
    expect(headers.get('content-security-policy')).toMatch(/script-src 'self'(;|$)/);
  });

  it('is kept per catalogue snapshot: an ETag answers 304, compressed bytes decode to the same page, an edit shows at once', async () => {
    const id = await release({ ...tee, name: 'Cached Tee' });
    const first = await fetch(`${shop.baseUrl}/product/${id}`);
    const html = await first.text();
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^W\/".+"$/);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    expect((await fetch(`${shop.baseUrl}/product/${id}`, { headers: { 'if-none-match': etag } })).status).toBe(304);

    const compressed = await shop.app.inject({ url: `/product/${id}`, headers: { 'accept-encoding': 'br' } });
    expect(compressed.headers['content-encoding']).toBe('br');
    expect(zlib.brotliDecompressSync(compressed.rawPayload).toString()).toBe(html);
    // Again, from the kept bytes (sent at once); gzip made and kept the same way.
    for (const encoding of ['br', 'gzip', 'gzip'] as const) {
      const again = await shop.app.inject({ url: `/product/${id}`, headers: { 'accept-encoding': encoding } });
      expect(again.headers['content-encoding']).toBe(encoding);
      expect((encoding === 'br' ? zlib.brotliDecompressSync(again.rawPayload) : zlib.gunzipSync(again.rawPayload)).toString()).toBe(html);
    }

    await admin.call('editBizarreProduct', { ...tee, id, name: 'Cached Tee', priceCents: 3100 });
    const edited = await fetch(`${shop.baseUrl}/product/${id}`, { headers: { 'if-none-match': etag } });
    expect(edited.status).toBe(200);
    expect(metaContent(await edited.text(), 'product:price:amount')).toBe('31.00');
  });
});

describe('the other public pages', () => {
  it('/home and /shop have a preview image for shared links, a PNG the web build serves (issue 40 item 12)', async () => {
    for (const url of ['/', '/home', '/shop', '/shop?category=merch']) {
      const { html } = await page(url);
      expect(metaContent(html, 'og:image'), url).toBe(`${shop.baseUrl}/og-image.png`);
      expect(metaContent(html, 'og:image:alt'), url).toMatch(/^(Home|Shop)$/);
    }
    const png = fs.readFileSync(path.resolve(import.meta.dirname, '../../../web/public/og-image.png'));
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    // 1200x630, the size link previews ask for (IHDR's width and height).
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1200, 630]);
  });

  it('the home page (/ and /home) carries the label as an Organization, canonical /home', async () => {
    for (const url of ['/', '/home']) {
      const { status, html } = await page(url);
      expect(status).toBe(200);
      expect(html).toContain('<title>Home · Street Flavor Records</title>');
      expect(html).toContain(`<link rel="canonical" href="${shop.baseUrl}/home">`);
      expect(metaContent(html, 'og:type')).toBe('website');
      expect(structuredData(html)).toEqual([
        {
          '@context': 'https://schema.org',
          '@type': 'Organization',
          '@id': `${shop.baseUrl}/#organization`,
          name: 'Street Flavor Records',
          url: `${shop.baseUrl}/home`,
          logo: `${shop.baseUrl}/favicon.svg`,
          email: shop.config.CONTACT_EMAIL,
        },
      ]);
    }
  });

  it('the pages the label writes carry their text as GET /api/pages/:slug answers it', async () => {
    const json = async (url: string) => (await fetch(`${shop.baseUrl}${url}`)).json();
    for (const url of ['/', '/home']) expect(pageData((await page(url)).html)).toEqual({ content: { slug: 'home', page: await json('/api/pages/home') } });
    for (const slug of ['about', 'privacy-policy']) expect(pageData((await page(`/${slug}`)).html)).toEqual({ content: { slug, page: await json(`/api/pages/${slug}`) } });
    expect(pageData((await page('/contact')).html)).toBeUndefined();
  });

  it.each([
    ['/about', 'About'],
    ['/history', 'History'],
    ['/contact', 'Contact'],
    ['/privacy-policy', 'Privacy Policy'],
  ])('%s has its title, description, canonical URL and previews', async (url, title) => {
    const { status, html } = await page(url);
    expect(status).toBe(200);
    expect(html).toContain(`<title>${title} · Street Flavor Records</title>`);
    expect(html).toContain(`<link rel="canonical" href="${shop.baseUrl}${url}">`);
    expect(metaContent(html, 'description')).toBeTruthy();
    expect(metaContent(html, 'og:title')).toBe(title);
    expect(metaContent(html, 'twitter:card')).toBe('summary');
  });

  it('the shop keeps its category in the canonical URL; a search is not for the index', async () => {
    const shopPage = await page('/shop?category=merch');
    expect(shopPage.html).toContain(`<link rel="canonical" href="${shop.baseUrl}/shop?category=merch">`);
    expect(metaContent(shopPage.html, 'robots')).toBeUndefined();
    const search = await page('/shop?q=tee');
    expect(search.html).toContain(`<link rel="canonical" href="${shop.baseUrl}/shop">`);
    expect(metaContent(search.html, 'robots')).toBe('noindex');
    // A search's first page, read as GET /api/products?q= reads it (decision 062).
    expect(pageData(search.html)).toEqual({
      shop: { category: '', q: 'tee', page: await (await fetch(`${shop.baseUrl}/api/products?q=tee`)).json(), categories: await categories() },
    });
  });

  it('the shop and a category carry their first page as the JSON read answers it', async () => {
    await release({ ...tee, name: 'Shop Page Tee' });
    const json = async (url: string) => (await fetch(`${shop.baseUrl}${url}`)).json();
    // With the category links, as listCategories answers (decision 062).
    const links = await categories();
    expect(links.length).toBeGreaterThan(0);
    expect(pageData((await page('/shop')).html)).toEqual({ shop: { category: '', page: await json('/api/products'), categories: links } });
    expect(pageData((await page('/shop?category=merch')).html)).toEqual({ shop: { category: 'merch', page: await json('/api/products?category=merch'), categories: links } });
    expect(pageData((await page('/shop?category=no-such')).html)).toEqual({ shop: { category: 'no-such', page: { products: [], next: null }, categories: links } });
  });

  it('private pages keep the plain page (with the TEST MODE banner while payments are fake)', async () => {
    for (const url of ['/release', '/checkout', '/account', '/login']) {
      const { status, html } = await page(url);
      expect(status).toBe(200);
      expect(html).toBe(INDEX_HTML.replace('<body>', `<body>${TEST_MODE_BANNER}`));
    }
    expect((await page('/product/x')).html).toContain(TEST_MODE_BANNER);
  });
});

describe('sitemap.xml and robots.txt', () => {
  const productLocs = (xml: string) => [...xml.matchAll(/<loc>([^<]*\/product\/[^<]*)<\/loc>/g)].map((match) => match[1]).sort();

  it('the sitemap lists exactly the active products, and follows a release and a withdrawal at once', async () => {
    const active = async () =>
      ((await (await fetch(`${shop.baseUrl}/api/products?limit=60`)).json()) as { products: { id: string }[] }).products.map((p) => `${shop.baseUrl}/product/${p.id}`).sort();
    const before = await page('/sitemap.xml');
    expect(before.status).toBe(200);
    expect(before.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(before.html).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<urlset xmlns="http:\/\/www.sitemaps.org\/schemas\/sitemap\/0.9">/);
    expect(productLocs(before.html)).toEqual(await active());
    for (const url of ['/home', '/shop', '/about', '/history', '/contact', '/privacy-policy']) expect(before.html).toContain(`<loc>${shop.baseUrl}${url}</loc>`);
    expect(before.html).not.toContain('/release');

    const id = await release({ ...tee, name: 'Sitemap Single' });
    const released = productLocs((await page('/sitemap.xml')).html);
    expect(released).toContain(`${shop.baseUrl}/product/${id}`);
    expect(released).toEqual(await active());
    expect((await page('/sitemap.xml')).html).toMatch(new RegExp(`<loc>${shop.baseUrl}/product/${id}</loc><lastmod>\\d{4}-\\d\\d-\\d\\dT`));

    await admin.call('setProductActive', { id, isActive: false });
    const withdrawn = productLocs((await page('/sitemap.xml')).html);
    expect(withdrawn).not.toContain(`${shop.baseUrl}/product/${id}`);
    expect(withdrawn).toEqual(await active());
  });

  it('robots.txt keeps crawlers out of the console, checkout and account pages and names the sitemap', async () => {
    const { status, html, headers } = await page('/robots.txt');
    expect(status).toBe(200);
    expect(headers.get('content-type')).toMatch(/^text\/plain/);
    const lines = html.split('\n');
    expect(lines[0]).toBe('User-agent: *');
    for (const path of ['/release', '/checkout', '/account', '/my-orders', '/wallet', '/order-confirmation']) expect(lines).toContain(`Disallow: ${path}`);
    expect(lines).not.toContain('Disallow: /shop');
    expect(lines).not.toContain('Disallow: /product/');
    expect(lines).toContain(`Sitemap: ${shop.baseUrl}/sitemap.xml`);
  });
});
