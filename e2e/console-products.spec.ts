// The console's products (issue 29 item 5) in a real browser at 1366 px and on a 375 px phone:
// rows reordered by a real mouse drag (pointer down, moves, up), a press on a button is no drag,
// and Delete is offered only where it can succeed (disabled with the reason on an ordered product).
import type { Page } from '@playwright/test';
import { CONSOLE_MESSAGES } from '@storefront/domain/console.ts';
import { quotedTotals } from '@storefront/domain/pricing.ts';
import { callAs, callFromPage, tokenOf } from './support/api.ts';
import { seriousAxeProblems } from './support/axe.ts';
import { test, expect, DEMO_ADMIN, DEMO_SHIPPING, DEMO_SHOPPER } from './support/fixtures.ts';
import { rememberingLogIn } from './support/login.ts';

const logIn = rememberingLogIn();
const rows = (page: Page) => page.getByTestId('console-product');
const rowNames = async (page: Page) => (await rows(page).locator('.console-product__name a').allTextContents()).map((text) => text.trim());
const row = (page: Page, name: string) => rows(page).filter({ has: page.getByRole('link', { name, exact: true }) });

/** A real mouse drag: press on the row's price (no button or link there), move in steps onto the target row, release. */
async function drag(page: Page, from: string, onto: string) {
  // Both rows on screen (the rows are tall on a phone; a drag does not scroll the page).
  await row(page, onto).scrollIntoViewIfNeeded();
  await row(page, from).locator('.console-product__price').scrollIntoViewIfNeeded();
  const start = (await row(page, from).locator('.console-product__price').boundingBox())!;
  const end = (await row(page, onto).boundingBox())!;
  await page.mouse.move(start.x + start.width / 2, start.y + start.height / 2);
  await page.mouse.down();
  await page.mouse.move(start.x + start.width / 2, start.y + start.height / 2 + 10, { steps: 3 });
  await page.mouse.move(end.x + end.width / 2, end.y + end.height / 2, { steps: 8 });
  await page.mouse.up();
}

for (const viewport of [
  { name: '1366 px', width: 1366, height: 900 },
  { name: '375 px phone', width: 375, height: 740 },
]) {
  test(`products at ${viewport.name}: reordered by a real mouse drag; Delete only where it can succeed`, async ({ page, request }) => {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    await logIn(page, DEMO_ADMIN);
    await page.goto('/release/products');
    const tag = `${viewport.width}${Date.now().toString(36)}`;
    const [a, b, c] = ['A', 'B', 'C'].map((letter) => `E2E Drag ${letter} ${tag}`) as [string, string, string];
    // Each new release comes first: the list starts C, B, A.
    const ids: Record<string, string> = {};
    for (const name of [a, b, c])
      ids[name] = (await callFromPage(page, 'releaseBizarreProduct', { name, description: 'A drag test product.', priceCents: 900, images: ['/content/covers/cover-02.svg'] })).id;
    await expect.poll(async () => (await rowNames(page)).slice(0, 3)).toEqual([c, b, a]);

    // C dragged onto A's row takes its place: B, A, C.
    await drag(page, c, a);
    await expect.poll(async () => (await rowNames(page)).slice(0, 3)).toEqual([b, a, c]);
    // Up: C onto B: C, B, A.
    await drag(page, c, b);
    await expect.poll(async () => (await rowNames(page)).slice(0, 3)).toEqual([c, b, a]);
    // The server's order is the one shown (a reload reads it back).
    await page.reload();
    await expect.poll(async () => (await rowNames(page)).slice(0, 3)).toEqual([c, b, a]);

    // A press that starts on a button is a click, never a drag.
    const withdraw = row(page, c).getByRole('button', { name: `Withdraw ${c}` });
    const box = (await withdraw.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2, box.y + 200, { steps: 5 });
    await page.mouse.up();
    await expect.poll(async () => (await rowNames(page)).slice(0, 3)).toEqual([c, b, a]);

    // B is ordered: its Delete is disabled and says why; A's can succeed.
    const shopper = await tokenOf(request, DEMO_SHOPPER);
    const items = [{ id: ids[b]!, qty: 1 }];
    const quote = await callAs(request, shopper, 'quoteCheckout', { items, useWallet: true });
    await callAs(request, shopper, 'completeWalletOnlyOrderStreetFlavor', {
      items,
      contact: { name: 'Demo Shopper', email: DEMO_SHOPPER.email, phone: '' },
      shipping: DEMO_SHIPPING,
      quote: quotedTotals(quote),
      checkoutId: `drag${tag}`,
    });
    await page.reload();
    await expect(row(page, b).getByRole('button', { name: `Delete ${b}` })).toBeDisabled();
    await expect(row(page, b)).toContainText(CONSOLE_MESSAGES.productOrdered);
    await expect(row(page, a).getByRole('button', { name: `Delete ${a}` })).toBeEnabled();
    expect(await seriousAxeProblems(page)).toEqual([]);
    if (viewport.width === 375) expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await row(page, a)
      .getByRole('button', { name: `Delete ${a}` })
      .click();
    await page.getByRole('dialog', { name: 'Delete this product?' }).getByRole('button', { name: 'Yes, delete' }).click();
    await expect(row(page, a)).toHaveCount(0);
  });
}
