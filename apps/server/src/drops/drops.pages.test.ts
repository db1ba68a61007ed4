import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthClient } from '@storefront/sdk/auth.ts';
import { createFunctionsClient } from '@storefront/sdk/callable.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { makeTempDir } from '../../test/database.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import { getProduct, releaseProduct } from '../catalog/catalog.service.ts';

// A drop's page and its fairness page as a crawler or a link preview reads them (issue 35, decision 069).
const INDEX_HTML =
  '<!doctype html><html lang="en"><head><meta charset="UTF-8" /><meta name="description" content="Generic." />' +
  '<title>Street Flavor Records</title></head><body><div id="root"></div><script type="module" src="/assets/app.js"></script></body></html>';

let shop: TestApp;
let webDist: { dir: string; remove(): void };
let admin: ReturnType<typeof createFunctionsClient>;

beforeAll(async () => {
  webDist = makeTempDir('web-dist-drops');
  fs.writeFileSync(path.join(webDist.dir, 'index.html'), INDEX_HTML);
  shop = await startTestApp({
    config: { webDistDir: webDist.dir },
    seed: async ({ db, config }) => {
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

async function page(url: string) {
  const response = await fetch(`${shop.baseUrl}${url}`);
  return { status: response.status, html: await response.text() };
}

function pageData(html: string): unknown {
  const match = /<script type="application\/json" id="page-data">([\s\S]*?)<\/script>/.exec(html);
  return match ? JSON.parse(match[1]!) : undefined;
}

function metaContent(html: string, key: string): string | undefined {
  return new RegExp(`<meta (?:name|property)="${key.replace(/[.:]/g, '\\$&')}" content="([^"]*)">`).exec(html)?.[1];
}

async function sitemap(): Promise<string[]> {
  const xml = await (await fetch(`${shop.baseUrl}/sitemap.xml`)).text();
  return [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1]!);
}

async function scheduleTeeDrop(slug: string) {
  const id = await releaseProduct(shop.db, {
    name: `Preview Tee ${slug}`,
    description: 'Tee',
    priceCents: 2500,
    images: ['/content/covers/cover-03.svg'],
    variants: [{ options: [], sku: `PT-${slug}`, priceCents: null, stock: 5, perCustomerLimit: null }],
  });
  const variantId = (await getProduct(shop.db, id, { includeInactive: false })).variants[0]!.id;
  const drop = await admin.call('scheduleDrop', {
    name: `Night Drop ${slug}`,
    slug,
    variantIds: [variantId],
    startsAt: new Date(Date.now() + 3_600_000).toISOString(),
    queueOpensAt: new Date(Date.now() + 600_000).toISOString(),
    perCustomerLimit: 1,
    admissionsPerMinute: 60,
    maxAdmitted: 10,
    checkoutWindowSeconds: 300,
    challenge: true,
  });
  return { drop, productId: id };
}

describe('a drop page as a crawler reads it (no JavaScript)', () => {
  it('names the drop, previews its product image and carries getDrop’s answer; the fairness page too; an unknown drop answers 404', async () => {
    const { drop, productId } = await scheduleTeeDrop('night-drop');
    const { status, html } = await page('/drops/night-drop');
    expect(status).toBe(200);
    expect(html).toContain('<title>Night Drop night-drop · Street Flavor Records</title>');
    expect(html).not.toContain('Generic.');
    expect(html).toContain(`<link rel="canonical" href="${shop.baseUrl}/drops/night-drop">`);
    expect(metaContent(html, 'og:title')).toBe('Night Drop night-drop');
    expect(metaContent(html, 'og:image')).toBe(`${shop.baseUrl}/content/covers/cover-03.svg`);
    expect(metaContent(html, 'description')).toContain('Preview Tee night-drop');
    expect(metaContent(html, 'description')).toContain('a fair queue anyone can check');
    const data = pageData(html) as { drop: { id: string; seedHash: string; seed: string | null; items: { productId: string }[] } };
    expect(data.drop).toMatchObject({ id: drop.id, seedHash: drop.seedHash, seed: null });
    expect(data.drop.items.map((item) => item.productId)).toEqual([productId]);

    const fairness = await page('/drops/night-drop/fairness');
    expect(fairness.status).toBe(200);
    expect(fairness.html).toContain('<title>Fairness of Night Drop night-drop · Street Flavor Records</title>');
    expect(fairness.html).toContain(`<link rel="canonical" href="${shop.baseUrl}/drops/night-drop/fairness">`);

    const unknown = await page('/drops/no-such-drop');
    expect(unknown.status).toBe(404);
    expect(metaContent(unknown.html, 'robots')).toBe('noindex');
    expect(pageData(unknown.html)).toBeUndefined();
  });

  it('is in sitemap.xml while scheduled, and leaves it once cancelled; listOpenDrops names it with its product until then', async () => {
    const { drop, productId } = await scheduleTeeDrop('sitemap-drop');
    const url = `${shop.baseUrl}/drops/sitemap-drop`;
    expect(await sitemap()).toContain(url);
    const open = await shop.functions().call('listOpenDrops', null);
    expect(open.drops.find((candidate) => candidate.id === drop.id)).toMatchObject({ slug: 'sitemap-drop', status: 'scheduled', productIds: [productId] });

    await admin.call('cancelDrop', { dropId: drop.id, note: 'Sorry.' });
    expect(await sitemap()).not.toContain(url);
    expect((await shop.functions().call('listOpenDrops', null)).drops.map((candidate) => candidate.id)).not.toContain(drop.id);
    // The page stays, and says so.
    const cancelled = await page('/drops/sitemap-drop');
    expect(cancelled.status).toBe(200);
    expect(metaContent(cancelled.html, 'description')).toContain('This drop was cancelled.');
  });
});
