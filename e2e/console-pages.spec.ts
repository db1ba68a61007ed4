// The label's console, issue 29, in a real browser at 1366 px and on a 375 px phone: each tab and
// an opened order have their own address (bookmarkable, Back and Forward work, a signed-out visit
// comes back to it), and the sales overview as an accountant reads it (variants, a fully refunded
// order, a chosen period, CSV); axe finds nothing serious on the tabs.
import type { APIRequestContext, Page } from '@playwright/test';
import { formatUsd } from '@storefront/domain/catalog.ts';
import { quotedTotals } from '@storefront/domain/pricing.ts';
import { SALES_MESSAGES } from '@storefront/domain/sales.ts';
import { callAs, releaseProductAs, tokenOf } from './support/api.ts';
import { seriousAxeProblems } from './support/axe.ts';
import { test, expect, DEMO_ADMIN, DEMO_SHIPPING, DEMO_SHOPPER } from './support/fixtures.ts';
import { logIn, rememberingLogIn } from './support/login.ts';

const logInOnce = rememberingLogIn();
const TABS = [
  ['Release Product', '/release'],
  ['View Orders', '/release/orders'],
  ['Products', '/release/products'],
  ['Bundles', '/release/bundles'],
  ['Categories', '/release/categories'],
  ['Music', '/release/music'],
  ['Drops', '/release/drops'],
  ['Content', '/release/content'],
  ['Discount codes', '/release/discounts'],
  ['Sales', '/release/sales'],
  ['Shipping & tax', '/release/shipping'],
  ['Admins', '/release/admins'],
  ['Activity', '/release/activity'],
] as const;
const VIEWPORTS = [
  { name: '1366 px', width: 1366, height: 900 },
  { name: '375 px phone', width: 375, height: 740 },
] as const;

async function placeOrder(request: APIRequestContext, shopper: string, items: { id: string; variantId: string; qty: number }[]): Promise<string> {
  const quote = await callAs(request, shopper, 'quoteCheckout', { items, useWallet: true });
  const checkoutId = `pages${Date.now()}${Math.random().toString(36).slice(2, 8)}`;
  await callAs(request, shopper, 'completeWalletOnlyOrderStreetFlavor', {
    items,
    contact: { name: 'Demo Shopper', email: DEMO_SHOPPER.email, phone: '' },
    shipping: DEMO_SHIPPING,
    quote: quotedTotals(quote),
    checkoutId,
  });
  const admin = await tokenOf(request, DEMO_ADMIN);
  const { items: found } = await callAs(request, admin, 'listOrders', { status: 'all', q: DEMO_SHOPPER.email });
  return found[0]!.id;
}

const selectedTab = (page: Page) => page.getByRole('tab', { selected: true });

for (const viewport of VIEWPORTS) {
  test.describe(viewport.name, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });

    test('each console tab has its own address: bookmarkable, Back and Forward, axe finds nothing serious', async ({ page, request }) => {
      // Nine tabs, each checked by axe (the first test of the file also warms the server).
      test.setTimeout(120_000);
      // A product with a long name, as a label has: the pickers that list products (Bundles,
      // Discount codes) must still fit a phone (CI: the Bundles tab was 513 px wide).
      await releaseProductAs(request, await tokenOf(request, DEMO_ADMIN), {
        name: `E2E Limited Edition Double Vinyl Gatefold With Signed Lyric Sheet ${viewport.width}`,
        description: 'A long name for the console pickers.',
        priceCents: 4200,
      });
      await logInOnce(page, DEMO_ADMIN);
      await page.goto('/release');
      await expect(selectedTab(page)).toHaveText('Release Product');
      for (const [name, address] of TABS.slice(1)) {
        await page.getByRole('tab', { name }).click();
        await expect(page).toHaveURL(new RegExp(`${address}$`));
        await expect(selectedTab(page)).toHaveText(name);
        await expect(page.getByRole('tabpanel')).toBeVisible();
        expect(await seriousAxeProblems(page), `${name} at ${viewport.name}`).toEqual([]);
        if (viewport.width === 375) expect(await page.evaluate(() => document.documentElement.scrollWidth), name).toBeLessThanOrEqual(375);
      }
      // Back walks the tabs in reverse, Forward again.
      await page.goBack();
      await expect(page).toHaveURL(/\/release\/admins$/);
      await expect(selectedTab(page)).toHaveText('Admins');
      await page.goBack();
      await expect(selectedTab(page)).toHaveText('Shipping & tax');
      await page.goForward();
      await expect(selectedTab(page)).toHaveText('Admins');
      // A bookmark (a fresh load of the address) opens its tab; a tab's link opens in a new page.
      await page.goto('/release/activity');
      await expect(selectedTab(page)).toHaveText('Activity');
      await expect(page.getByRole('tab', { name: 'Sales' })).toHaveAttribute('href', '/release/sales');
      // An address that is no tab shows Release Product.
      await page.goto('/release/nope');
      await expect(page).toHaveURL(/\/release$/);
      await expect(selectedTab(page)).toHaveText('Release Product');
    });

    test('an order opened on the desk has its own address; Back closes it', async ({ page, request }) => {
      const admin = await tokenOf(request, DEMO_ADMIN);
      const shopper = await tokenOf(request, DEMO_SHOPPER);
      const { id } = await callAs(request, admin, 'releaseBizarreProduct', {
        name: `E2E Pages LP ${Date.now().toString(36)}`,
        description: 'Vinyl',
        priceCents: 900,
        images: ['/content/covers/cover-03.svg'],
      });
      const orderId = await placeOrder(request, shopper, [{ id, variantId: id, qty: 1 }]);
      await logInOnce(page, DEMO_ADMIN);
      await page.goto('/release/orders');
      await page.getByRole('button', { name: `Details of order ${orderId}` }).click();
      await expect(page).toHaveURL(new RegExp(`/release/orders/${orderId}$`));
      await expect(page.getByRole('dialog', { name: `Order ${orderId}` })).toBeVisible();
      expect(await seriousAxeProblems(page)).toEqual([]);
      await page.goBack();
      await expect(page.getByRole('dialog')).toHaveCount(0);
      await expect(page).toHaveURL(/\/release\/orders$/);
      // The order's address opened directly (a bookmark, a link in a mail): closing stays on the desk.
      await page.goto(`/release/orders/${orderId}`);
      await expect(page.getByRole('dialog', { name: `Order ${orderId}` })).toBeVisible();
      await expect(selectedTab(page)).toHaveText('View Orders');
      await page.keyboard.press('Escape');
      await expect(page.getByRole('dialog')).toHaveCount(0);
      await expect(page).toHaveURL(/\/release\/orders$/);
    });
  });
}

test('a signed-out visit to a console tab comes back to it after logging in', async ({ page }) => {
  await logIn(page, DEMO_ADMIN, { from: '/release/sales' });
  await expect(selectedTab(page)).toHaveText('Sales');
});

for (const viewport of VIEWPORTS) {
  test(`sales at ${viewport.name}: variants, a fully refunded order, a chosen period and the CSV, as the server counts them`, async ({ page, request }) => {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    const admin = await tokenOf(request, DEMO_ADMIN);
    const shopper = await tokenOf(request, DEMO_SHOPPER);
    const name = `E2E Tour Tee ${Date.now().toString(36)}`;
    const { id } = await callAs(request, admin, 'releaseBizarreProduct', {
      name,
      description: 'Tee',
      priceCents: 500,
      images: ['/content/covers/cover-01.svg'],
      options: [{ name: 'Size', values: ['S', 'M'] }],
      variants: [
        { options: ['S'], sku: '', priceCents: null, stock: null },
        { options: ['M'], sku: '', priceCents: null, stock: null },
      ],
    });
    const { products } = await callAs(request, admin, 'listAllProducts', null);
    const variants = products.find((product) => product.id === id)!.variants;
    const [small, medium] = [variants.find((variant) => variant.options[0] === 'S')!, variants.find((variant) => variant.options[0] === 'M')!];
    await placeOrder(request, shopper, [
      { id, variantId: medium.id, qty: 2 },
      { id, variantId: small.id, qty: 1 },
    ]);
    const returned = await placeOrder(request, shopper, [{ id, variantId: small.id, qty: 1 }]);
    await callAs(request, admin, 'refundOrder', { orderId: returned, idempotencyKey: `pages-${returned}` });
    const overview = await callAs(request, admin, 'getSalesOverview', { days: 30 });

    await logInOnce(page, DEMO_ADMIN);
    await page.goto('/release/sales');
    await expect(page.getByTestId('net-sales')).toHaveText(formatUsd(overview.totals.netSalesCents));
    await expect(page.getByTestId('total-refundsCents')).toHaveText(formatUsd(overview.totals.refundsCents));
    await expect(page.getByTestId('total-grossSalesCents')).toHaveText(formatUsd(overview.totals.grossSalesCents));
    // Issue 39: the figures as an accountant reads them, each with what it means; the refunded order's goods are returns.
    await expect(page.getByTestId('total-returnsCents')).toHaveText(formatUsd(overview.totals.returnsCents));
    expect(overview.totals.returnsCents).toBeGreaterThanOrEqual(500);
    expect(overview.totals.netSalesCents).toBe(overview.totals.grossSalesCents - overview.totals.discountsCents - overview.totals.returnsCents);
    const totals = page.getByRole('table', { name: 'Totals' });
    const figure = (label: string) => totals.getByRole('row').filter({ has: page.getByRole('rowheader', { name: label, exact: true }) });
    await expect(figure('Net sales')).toContainText('Gross sales - discounts - returns');
    await expect(figure('Tax collected')).toContainText('VAT included in prices');
    await expect(figure('Total collected').getByRole('cell').first()).toHaveText(formatUsd(overview.totals.totalCollectedCents));
    await expect(page.getByRole('table', { name: 'Gift cards (a liability, not sales)' })).toContainText('Gift-card liability');
    await expect(page.getByTestId('gift-liabilityCents')).toHaveText(formatUsd(overview.giftCards!.liabilityCents));
    await expect(page.getByRole('table', { name: 'Tax by jurisdiction' }).getByRole('rowheader', { name: 'Sales tax', exact: true })).toBeVisible();
    // By variant: M x2, and S x2 of which one was refunded, not "M x3".
    const variantTable = page.getByRole('table', { name: 'By variant (goods only)' });
    const row = (variant: string) =>
      variantTable
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name }) })
        .filter({ hasText: new RegExp(`^${name}${variant}`) });
    await expect(row('M')).toHaveText(`${name}M2${formatUsd(1000)}0${formatUsd(0)}${formatUsd(1000)}`);
    await expect(row('S')).toHaveText(`${name}S2${formatUsd(1000)}1${formatUsd(500)}${formatUsd(500)}`);
    const productRow = page
      .getByRole('table', { name: 'By product (goods only)' })
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name }) });
    await expect(productRow).toHaveText(`${name}4${formatUsd(2000)}1${formatUsd(500)}${formatUsd(1500)}`);
    expect(await seriousAxeProblems(page)).toEqual([]);
    if (viewport.width === 375) expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);

    // A period: chosen dates, refused when the first day is after the last.
    await page.getByLabel('Period').selectOption({ label: 'Last 7 days' });
    await expect(page.getByRole('table', { name: 'By day' }).getByRole('row')).toHaveCount(8);
    const to = overview.to;
    await page.getByRole('textbox', { name: 'From' }).fill(to);
    await page.getByRole('textbox', { name: 'To' }).fill(to);
    await expect(page.getByLabel('Period')).toHaveValue('custom');
    await expect(page.getByRole('table', { name: 'By day' }).getByRole('row')).toHaveCount(2);
    await expect(row('M')).toBeVisible();
    await page.getByRole('textbox', { name: 'From' }).fill('2099-01-01');
    await expect(page.getByRole('alert')).toHaveText(SALES_MESSAGES.period);

    await page.getByLabel('Period').selectOption({ label: 'Last 30 days' });
    await expect(page.getByRole('alert')).toHaveCount(0);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toBe(`sales-${overview.from}-to-${overview.to}.csv`);
    const csv = Buffer.concat(await (await download.createReadStream()).toArray()).toString('utf8');
    expect(csv).toContain(`${id},${medium.id},${name},M,2,10.00,0,0.00,2,10.00\r\n`);
    expect(csv).toContain(`${id},${small.id},${name},S,2,10.00,1,5.00,1,5.00\r\n`);
    expect(csv).toContain(`total,${overview.totals.orders},`);
    expect(csv).toContain('\r\ncolumn,figure,definition\r\n');
    expect(csv).toContain('\r\nnet_sales_usd,Net sales,"Gross sales - discounts - returns');
  });
}
