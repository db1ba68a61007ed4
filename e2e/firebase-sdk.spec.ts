// The official Firebase JS SDK in Chromium against the running shop (issue 19, decisions
// 029 and 035): a sister product's page bundled from the SDK's browser build, served on
// another origin listed in CORS_ORIGINS (real CORS preflights, XHR uploads reading the
// exposed X-Goog-Upload-* headers) and on the shop's own origin. It signs in with
// signInWithCustomToken against the shop, calls functions (one refused), uploads with
// progress, reads the download URL and metadata, lists, deletes, and releases a product
// with the download URL; the page reports each step and the test checks them, and that the
// product is in the shop with its picture.
import http from 'node:http';
import path from 'node:path';
import { build } from 'esbuild';
import type { APIRequestContext, Page } from '@playwright/test';
import { RELEASE_MESSAGES } from '@storefront/domain/catalog.ts';
import { UPLOAD_MESSAGES } from '@storefront/domain/storage.ts';
import { tokenOf } from './support/api.ts';
import { test, expect, DEMO_ADMIN, ORIGIN } from './support/fixtures.ts';

/** The sister product's origin, listed in the shop's CORS_ORIGINS (playwright.config.ts and server.mjs). */
const SISTER_ORIGIN = `http://127.0.0.1:${process.env.E2E_SISTER_PORT}`;
/** The same page server by name: another origin, not listed. */
const UNLISTED_ORIGIN = `http://localhost:${process.env.E2E_SISTER_PORT}`;

let bundle = '';
let sisterServer: http.Server | undefined;

test.beforeAll(async () => {
  // Built here from the installed SDK, with its browser entry points.
  const result = await build({
    entryPoints: [path.join(import.meta.dirname, 'support/sister-app/sister-app.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    logLevel: 'silent',
  });
  bundle = result.outputFiles[0]!.text;
  // A real server on loopback, as a sister product's own: Chromium treats pages by their address space.
  sisterServer = http.createServer((request, response) => {
    const isScript = request.url === '/sister-app/app.js';
    if (!isScript && request.url !== '/sister-app/index.html') return response.writeHead(404).end();
    response.writeHead(200, { 'content-type': isScript ? 'text/javascript' : 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(isScript ? bundle : HTML);
  });
  await new Promise<void>((resolve) => sisterServer!.listen(Number(process.env.E2E_SISTER_PORT), '127.0.0.1', resolve));
});

test.afterAll(async () => {
  await new Promise((resolve) => sisterServer?.close(resolve) ?? resolve(undefined));
});

const HTML =
  '<!doctype html><html lang="en"><meta charset="utf-8"><title>Sister app</title><h1>Sister app</h1><ul id="steps"></ul><script type="module" src="/sister-app/app.js"></script></html>';

/** Opens the page on `origin`: the sister product's server, or the shop's own origin (there the test serves it, as the shop would). */
async function openSisterApp(page: Page, origin: string, hash: Record<string, string>) {
  if (origin === ORIGIN) {
    await page.route(`${origin}/sister-app/**`, (route) => {
      const isScript = route.request().url().endsWith('.js');
      return route.fulfill({ status: 200, contentType: isScript ? 'text/javascript' : 'text/html', body: isScript ? bundle : HTML });
    });
  }
  await page.goto(`${origin}/sister-app/index.html#${new URLSearchParams(hash).toString()}`);
  // Every step, then `done` (or `failed` with the reason).
  await expect(page.locator('[data-step="done"], [data-step="failed"]')).toHaveCount(1, { timeout: 45_000 });
  const steps: Record<string, unknown> = {};
  for (const item of await page.locator('[data-step]').all()) steps[(await item.getAttribute('data-step'))!] = JSON.parse((await item.textContent())!);
  return steps;
}

async function expectEveryStep(steps: Record<string, unknown>, page: Page, request: APIRequestContext) {
  expect(steps.failed).toBeUndefined();
  expect(steps.signIn).toMatchObject({ email: DEMO_ADMIN.email });
  expect(steps.callable).toEqual({ entries: true });
  expect(steps.callableError).toEqual({ code: 'functions/invalid-argument', message: `${RELEASE_MESSAGES.releaseImages} [400]` });
  expect(steps.missingFunction).toMatchObject({ code: 'functions/not-found' });

  const upload = steps.upload as { state: string; totalBytes: number; size: number; storedSize: number; progress: number[] };
  expect(upload.state).toBe('success');
  expect(upload.totalBytes).toBe(upload.size);
  expect(upload.size).toBeGreaterThan(2 * 262_144);
  // Progress in several steps (resumable chunks), ending at the whole file.
  expect(new Set(upload.progress).size).toBeGreaterThan(2);
  expect(upload.progress.at(-1)).toBe(upload.size);

  const { url, width } = steps.downloadUrl as { url: string; width: number };
  expect(url).toMatch(new RegExp(`^${ORIGIN.replaceAll('.', '\\.')}/v0/b/storefront/o/products%2Fsister-\\d+%2Fcover\\.png\\?alt=media&token=`));
  expect(width).toBe(400);
  const metadata = steps.metadata as { fullPath: string; name: string; contentType: string; size: number; customMetadata: unknown };
  // The shop re-encodes images (decision 009): the stored size is the object's, as the upload's own answer says.
  expect(metadata).toMatchObject({ name: 'cover.png', contentType: 'image/png', size: upload.storedSize, customMetadata: { source: 'sister-app' } });
  expect(upload.storedSize).toBeGreaterThan(0);
  expect(metadata.fullPath).toMatch(/^products\/sister-\d+\/cover\.png$/);

  const folder = metadata.fullPath.replace('/cover.png', '');
  expect(steps.list).toEqual({ before: [`${folder}/cover.png`, `${folder}/extra.png`], after: [`${folder}/cover.png`] });
  expect(steps.deleted).toMatchObject({ code: 'storage/object-not-found' });
  // A browser gets the shop's sentence for a refused upload (the SDK appends the answer's body).
  const refused = steps.refusedUpload as { code: string; message: string };
  expect(refused.code).toBe('storage/unauthorized');
  expect(refused.message).toContain(UPLOAD_MESSAGES.notAnImage);

  // Issue 24 (decision 041): the download URL fetched after the <img> cached it (Vary:
  // Origin), getBlob/getBytes with the SDK's token, and /api/live with and without credentials.
  expect(steps.fetchAfterImage).toEqual({ status: 200, bytes: upload.storedSize });
  expect(steps.bytes).toMatchObject({ blob: upload.storedSize, bytes: upload.storedSize });
  // Signed in by cookie only on the shop's own origin (the sister page holds a token, no cookie).
  const cookie = { signedIn: new URL(page.url()).origin === ORIGIN };
  expect(steps.live).toMatchObject({ plain: cookie, withCredentials: cookie, withToken: { signedIn: true } });

  // The released product is in the shop, its picture served from the uploaded object.
  const { ok, id } = steps.release as { ok: boolean; id: string };
  expect(ok).toBe(true);
  const product = (await (await request.get(`/api/products/${id}`)).json()) as { product: { images: string[] } } & { images?: string[] };
  expect(JSON.stringify(product)).toContain(url.slice(ORIGIN.length).split('?')[0]);
  await page.goto(`${ORIGIN}/product/${id}`);
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Sister Tee');
  const picture = page.locator('img[src*="sister-"]').first();
  await expect(picture).toBeVisible();
  // Visible comes before loaded: wait for the picture's own pixels (a broken image stays at 0).
  await expect.poll(() => picture.evaluate((image: HTMLImageElement) => (image.complete ? image.naturalWidth : 0)), { timeout: 15_000 }).toBeGreaterThan(0);
}

test.describe('the official Firebase SDK in the browser', () => {
  test.beforeEach(({ consoleErrors }) => {
    // Chromium logs the refusals the page provokes (400 invalid argument, 404 no such function, 403 not an image, 404 deleted).
    consoleErrors.allow(/Failed to load resource: the server responded with a status of 40[034]/);
  });

  test('on another origin listed in CORS_ORIGINS, signed in with a token from the sister product’s backend', async ({ page, request }) => {
    const steps = await openSisterApp(page, SISTER_ORIGIN, { shop: ORIGIN, token: await tokenOf(request, DEMO_ADMIN) });
    expect(steps.signIn).toMatchObject({ origin: SISTER_ORIGIN });
    await expectEveryStep(steps, page, request);
  });

  test('on an origin not listed in CORS_ORIGINS, the browser keeps every answer from the page', async ({ page, request, consoleErrors }) => {
    consoleErrors.allow(/blocked by CORS policy|Failed to load resource: net::ERR_FAILED/);
    const steps = await openSisterApp(page, UNLISTED_ORIGIN, { shop: ORIGIN, token: await tokenOf(request, DEMO_ADMIN) });
    expect(steps.failed).toMatchObject({ code: 'auth/network-request-failed' });
    expect(steps.signIn).toBeUndefined();
  });

  test('on the shop’s own origin, signed in there', async ({ page, request }) => {
    const steps = await openSisterApp(page, ORIGIN, { email: DEMO_ADMIN.email, password: DEMO_ADMIN.password });
    expect(steps.signIn).toMatchObject({ origin: ORIGIN });
    await expectEveryStep(steps, page, request);
  });
});
