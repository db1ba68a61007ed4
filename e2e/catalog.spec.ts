// Catalog and admin in a real browser (issue 4): an admin releases a product with two
// uploaded images and watches the progress bars, another browser sees it appear in the
// shop without a reload; the admin edits it (reorders the images, changes the price) and
// the other browser's product page follows; a shopper sees no admin controls and the
// server refuses them; the release form's messages in the spec's order.
import { type Browser, type Page } from '@playwright/test';
import { test, expect, DEMO_ADMIN, DEMO_SHOPPER, ORIGIN, type ConsoleGuard } from './support/fixtures.ts';
import { fillLogin, rememberingLogIn } from './support/login.ts';
import sharp from 'sharp';
import { RELEASE_MESSAGES } from '@storefront/domain/catalog.ts';
import { RELEASE_PAGE_TEXTS } from '../apps/web/src/features/admin/messages.ts';

const uniqueName = (what: string) => `E2E ${what} ${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/** A small PNG: one request (multipart upload). */
async function smallPng(): Promise<Buffer> {
  return sharp({ create: { width: 64, height: 64, channels: 3, background: '#e43f5a' } })
    .png()
    .toBuffer();
}

/** Noise does not compress: a PNG of about 1 MB, uploaded in resumable chunks. */
async function largePng(): Promise<Buffer> {
  const width = 600;
  const height = 600;
  const pixels = Buffer.alloc(width * height * 3);
  for (let index = 0; index < pixels.length; index += 1) pixels[index] = Math.floor(Math.random() * 256);
  const png = await sharp(pixels, { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 0 })
    .toBuffer();
  expect(png.length, 'large enough for a resumable upload').toBeGreaterThan(262_144 * 3);
  return png;
}

const logIn = rememberingLogIn();

/** A second browser (its own cookies), watched for console errors like the test's own page. */
async function otherBrowser(browser: Browser, consoleErrors: ConsoleGuard): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  consoleErrors.watch(page);
  return page;
}

const productCard = (page: Page, name: string) => page.getByRole('link').filter({ has: page.getByRole('heading', { name, exact: true }) });
const mainImage = (page: Page, name: string) => page.getByRole('img', { name: new RegExp(`^${name}, image \\d+ of \\d+$`) });
const releaseAlert = (page: Page) => page.getByRole('form', { name: 'Release a product' }).getByRole('alert');
const toast = (page: Page, text: string) => page.locator('.Toastify').getByText(text, { exact: true });

test('an admin releases a product with two images, another browser sees it, the admin edits it and that browser follows', async ({ page, browser, consoleErrors }) => {
  test.setTimeout(120_000);
  const name = uniqueName('Release Tee');
  const [front, back] = await Promise.all([smallPng(), largePng()]);

  // A visitor's shop is open before the release.
  const visitor = await otherBrowser(browser, consoleErrors);
  await visitor.goto('/shop');
  await expect(visitor.getByRole('list', { name: 'Products' }).getByRole('listitem').first()).toBeVisible();
  await expect(productCard(visitor, name)).toHaveCount(0);

  // Signed out, the release page sends the admin to log in, and back after it.
  await page.goto('/release');
  await expect(page).toHaveURL(/\/login$/);
  await fillLogin(page, DEMO_ADMIN);
  await expect(page).toHaveURL(/\/release$/);
  await logIn.remember(page, DEMO_ADMIN.email);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Release');
  await expect(page.getByRole('tab', { name: 'Release Product' })).toHaveAttribute('aria-selected', 'true');
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel('Price (USD)').fill('24.5');
  await page.getByLabel('Description').fill('A tee released by a browser test.');
  await page.getByLabel('Add images').setInputFiles([
    { name: 'front.png', mimeType: 'image/png', buffer: front },
    { name: 'back.png', mimeType: 'image/png', buffer: back },
  ]);
  const previews = page.getByRole('group', { name: 'Images' }).getByRole('listitem');
  await expect(previews).toHaveCount(2);
  for (const [index, img] of [...(await previews.locator('img').all()).entries()]) {
    await expect(img).toHaveAttribute('width', /^\d+$/);
    await expect(img).toHaveAttribute('height', /^\d+$/);
    await expect(img).toHaveAccessibleName(`Image ${index + 1}: ${index === 0 ? 'front.png' : 'back.png'}`);
  }

  // Every progress value each bar shows, to see the large image move through its chunks.
  await page.evaluate(() => {
    const seen: Record<string, number[]> = {};
    (window as unknown as { progressSeen: typeof seen }).progressSeen = seen;
    const record = (element: Element) => {
      const label = element.getAttribute('aria-label') ?? '';
      (seen[label] ??= []).push(Number(element.getAttribute('aria-valuenow')));
    };
    new MutationObserver((mutations) => {
      for (const mutation of mutations) {
        const targets = mutation.type === 'attributes' ? [mutation.target as Element] : [...mutation.addedNodes].filter((node) => node instanceof Element);
        for (const target of targets) {
          if (target.matches('[role="progressbar"]')) record(target);
          target.querySelectorAll('[role="progressbar"]').forEach(record);
        }
      }
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-valuenow'] });
  });

  // The release call waits until the test has seen both uploads finish.
  let letReleaseThrough!: () => void;
  const releaseHeld = new Promise<void>((resolve) => (letReleaseThrough = resolve));
  await page.route('**/fn/releaseBizarreProduct', async (route) => {
    await releaseHeld;
    await route.continue();
  });

  await page.getByRole('button', { name: 'Release Product' }).click();
  const bars = page.getByRole('progressbar');
  await expect(bars).toHaveCount(2);
  await expect(bars.nth(0)).toHaveAttribute('aria-valuenow', '100');
  await expect(bars.nth(1)).toHaveAttribute('aria-valuenow', '100');
  await expect(page.getByRole('button', { name: 'Releasing…' })).toBeDisabled();
  const seen = await page.evaluate(() => (window as unknown as { progressSeen: Record<string, number[]> }).progressSeen);
  const backProgress = Object.entries(seen).find(([label]) => label.endsWith('back.png'))?.[1] ?? [];
  expect(
    backProgress.some((value) => value > 0 && value < 100),
    `chunked progress of back.png: ${backProgress.join(', ')}`,
  ).toBe(true);
  letReleaseThrough();

  const released = page.getByRole('status').filter({ hasText: RELEASE_PAGE_TEXTS.released });
  await expect(released).toContainText(name);
  await expect(releaseAlert(page)).toBeEmpty();
  // The form starts over.
  await expect(page.getByLabel('Name', { exact: true })).toHaveValue('');
  await expect(page.getByLabel('Price (USD)')).toHaveValue('');
  await expect(previews).toHaveCount(0);
  await page.unroute('**/fn/releaseBizarreProduct');

  // Live: the visitor's open shop shows the new product without a reload.
  const card = productCard(visitor, name);
  await expect(card).toBeVisible({ timeout: 15_000 });
  await expect(card).toContainText('$24.50');
  await expect(card.locator('img')).toHaveAttribute('src', /^\/img\//);

  // The visitor opens it with the keyboard: Space on the card.
  await card.focus();
  await visitor.keyboard.press('Space');
  await expect(visitor).toHaveURL(/\/product\/p_/);
  const productPath = new URL(visitor.url()).pathname;
  await expect(visitor.getByRole('heading', { level: 1 })).toHaveText(name);
  await expect(visitor.getByText('$24.50', { exact: true })).toBeVisible();
  await expect(visitor.getByRole('button', { name: 'Edit' })).toHaveCount(0);
  const secondThumb = visitor.getByRole('button', { name: 'Show image 2 of 2' });
  await expect(visitor.getByRole('button', { name: 'Show image 1 of 2' })).toHaveAttribute('aria-pressed', 'true');
  const backSrc = await secondThumb.locator('img').getAttribute('src');
  const frontSrc = await mainImage(visitor, name).getAttribute('src');
  expect(backSrc).toBeTruthy();
  expect(frontSrc).not.toBe(backSrc);

  // The admin opens the product from the release message and edits it.
  await released.getByRole('link', { name: RELEASE_PAGE_TEXTS.viewReleased }).click();
  await expect(page).toHaveURL(productPath);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(name);
  await page.getByRole('button', { name: 'Edit' }).click();
  await expect(page.getByLabel('Name', { exact: true })).toBeFocused();
  await expect(page.getByLabel('Name', { exact: true })).toHaveValue(name);
  await expect(page.getByLabel('Price (USD)')).toHaveValue('24.50');
  const editImages = page.getByRole('group', { name: 'Images' }).getByRole('listitem');
  await expect(editImages).toHaveCount(2);
  await page.getByRole('button', { name: 'Move image 2 left' }).click();
  await expect(editImages.nth(0).locator('img')).toHaveAccessibleName(/^Image 1: .*back\.png$/);
  await page.getByLabel('Price (USD)').fill('19.99');
  await page.getByRole('button', { name: 'Save Changes' }).click();
  await expect(toast(page, RELEASE_MESSAGES.updated)).toBeVisible();
  await expect(page.getByRole('button', { name: 'Edit' })).toBeFocused();
  await expect(page.getByText('$19.99', { exact: true })).toBeVisible();
  await expect(mainImage(page, name)).toHaveAttribute('src', backSrc!);

  // Live: the visitor's open product page shows the new price and first image.
  await expect(visitor.getByText('$19.99', { exact: true })).toBeVisible({ timeout: 15_000 });
  await expect(mainImage(visitor, name)).toHaveAttribute('src', backSrc!);
  await expect(visitor.getByRole('button', { name: 'Show image 2 of 2' }).locator('img')).toHaveAttribute('src', frontSrc!);

  // The visitor's cart gets it with the new price.
  await visitor.getByRole('button', { name: 'Add to Cart' }).click();
  await expect(toast(visitor, RELEASE_MESSAGES.addedToCart)).toBeVisible();
  await visitor.context().close();
});

test('a shopper sees no admin controls, and the server refuses their release with 403', async ({ page, request, playwright }) => {
  const { products } = (await (await request.get('/api/products')).json()) as { products: { id: string; name: string }[] };
  const product = products[0]!;

  // One sign-in: the page's context keeps the session cookie, the test the bearer token.
  const signIn = await page.request.post('/api/auth/sign-in/email', { data: DEMO_SHOPPER, headers: { origin: ORIGIN } });
  expect(signIn.ok(), await signIn.text()).toBe(true);
  const token = signIn.headers()['set-auth-token'];
  expect(token, 'bearer token from sign-in').toBeTruthy();

  await page.goto(`/product/${product.id}`);
  await expect(page.getByRole('button', { name: 'LOGOUT' })).toBeVisible();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(product.name);
  await expect(page.getByRole('button', { name: 'Add to Cart' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Edit' })).toHaveCount(0);

  await page.goto('/release');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Release');
  await expect(page.getByText(RELEASE_PAGE_TEXTS.notAdmin)).toBeVisible();
  await expect(page.getByRole('tab')).toHaveCount(0);
  await expect(page.getByLabel('Name', { exact: true })).toHaveCount(0);

  // Through the API with the bearer token only (a context without the cookie).
  const api = await playwright.request.newContext({ baseURL: ORIGIN });
  const payload = { name: 'Not allowed', description: 'A shopper tries.', priceCents: 100, images: ['/content/covers/cover-01.svg'] };
  const asShopper = { authorization: `Bearer ${token}` };
  const refused = await api.post('/fn/releaseBizarreProduct', { headers: asShopper, data: { data: payload } });
  expect(refused.status()).toBe(403);
  const edit = await api.post('/fn/editBizarreProduct', { headers: asShopper, data: { data: { ...payload, id: product.id } } });
  expect(edit.status()).toBe(403);
  const anonymous = await api.post('/fn/releaseBizarreProduct', { data: { data: payload } });
  expect(anonymous.status()).toBe(401);
  await api.dispose();

  // Nothing was released or changed.
  const after = (await (await request.get('/api/products')).json()) as { products: { id: string; name: string }[] };
  expect(after.products.map((item) => item.name)).not.toContain(payload.name);
  expect(after.products.find((item) => item.id === product.id)?.name).toBe(product.name);
});

test('an unknown product says so, and the release form checks in the spec order', async ({ page, consoleErrors }) => {
  // The page itself answers 404 too, for crawlers (decision 058); the web app still says why.
  consoleErrors.allow(/Failed to load resource: the server responded with a status of 404.*\/(api\/products|product)\/nope\]/);
  await page.goto('/product/nope');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(RELEASE_MESSAGES.notFound);
  await expect(page.getByRole('link', { name: 'Back to Shop' })).toHaveAttribute('href', '/shop');

  await logIn(page, DEMO_ADMIN);
  await page.goto('/release');
  const alert = releaseAlert(page);
  const release = page.getByRole('button', { name: 'Release Product' });
  await page.getByLabel('Name', { exact: true }).fill('   ');
  await release.click();
  await expect(alert).toHaveText(RELEASE_MESSAGES.name);
  await expect(page.getByLabel('Name', { exact: true })).toBeFocused();
  await page.getByLabel('Name', { exact: true }).fill(uniqueName('Checks'));
  await release.click();
  await expect(alert).toHaveText(RELEASE_MESSAGES.description);
  await page.getByLabel('Description').fill('Checked in order.');
  await release.click();
  await expect(alert).toHaveText(RELEASE_MESSAGES.price);
  await page.getByLabel('Price (USD)').fill('0');
  await release.click();
  await expect(alert).toHaveText(RELEASE_MESSAGES.price);
  await page.getByLabel('Price (USD)').fill('abc');
  await release.click();
  await expect(alert).toHaveText(RELEASE_MESSAGES.price);
  await page.getByLabel('Price (USD)').fill('12.50');
  await release.click();
  await expect(alert).toHaveText(RELEASE_MESSAGES.releaseImages);

  // Only image files are kept (the browser's accept filter can be bypassed; the form checks too).
  await page.getByLabel('Add images').setInputFiles([{ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not an image') }]);
  await expect(toast(page, 'Only image files can be added; skipped notes.txt.')).toBeVisible();
  await expect(page.getByRole('group', { name: 'Images' }).getByRole('listitem')).toHaveCount(0);
  await release.click();
  await expect(alert).toHaveText(RELEASE_MESSAGES.releaseImages);

  // The tabs work from the keyboard.
  await page.getByRole('tab', { name: 'Release Product' }).focus();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByRole('tab', { name: 'View Orders' })).toBeFocused();
  await expect(page.getByRole('tab', { name: 'View Orders' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('heading', { name: 'Open orders' })).toBeVisible();
  await expect(release).toBeHidden();
  await page.keyboard.press('ArrowLeft');
  await expect(page.getByRole('tab', { name: 'Release Product' })).toHaveAttribute('aria-selected', 'true');
  // The half-filled form is still there.
  await expect(page.getByLabel('Price (USD)')).toHaveValue('12.50');
});
