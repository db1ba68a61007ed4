// Changing a cart line's size in place (issue 29 item 4), in a real browser at 1366 px and on a
// 375 px phone: the product's variants are offered, a sold-out one disabled, the quantity moves
// along (never above what is left, joined with a line already on that size); the checkout's
// quote prices the changed line; axe finds nothing serious in the open cart.
import type { APIRequestContext, Page } from '@playwright/test';
import { callAs, tokenOf } from './support/api.ts';
import { seriousAxeProblems } from './support/axe.ts';
import { test, expect, DEMO_ADMIN, DEMO_SHOPPER } from './support/fixtures.ts';
import { rememberingLogIn } from './support/login.ts';

const logIn = rememberingLogIn();
const cartButton = (page: Page) => page.getByRole('button', { name: /^Cart, \d+ items?$/ });

/** A tee in S (sold out), M (2 left) and L (unlimited, $27). */
async function releaseTee(request: APIRequestContext) {
  const name = `E2E Size Tee ${Date.now().toString(36)}${Math.random().toString(36).slice(2, 5)}`;
  const token = await tokenOf(request, DEMO_ADMIN);
  const stock: Record<string, number | null> = { S: 0, M: 2, L: null };
  const { id } = await callAs(request, token, 'releaseBizarreProduct', {
    name,
    description: 'For the cart test.',
    priceCents: 2500,
    images: ['/content/covers/cover-01.svg'],
    options: [{ name: 'Size', values: ['S', 'M', 'L'] }],
    variants: ['S', 'M', 'L'].map((size) => ({ options: [size], sku: '', priceCents: size === 'L' ? 2700 : null, stock: stock[size] ?? null })),
  });
  return { id, name };
}

for (const viewport of [
  { name: '1366 px', width: 1366, height: 900 },
  { name: '375 px phone', width: 375, height: 740 },
]) {
  test(`cart at ${viewport.name}: a line's size changes in place, stock-checked`, async ({ page, request }) => {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    const tee = await releaseTee(request);
    await logIn(page, DEMO_SHOPPER);
    await page.goto(`/product/${tee.id}`);
    const size = (value: string) => page.getByRole('group', { name: 'Size' }).getByRole('radio', { name: new RegExp(`^${value}( \\(sold out\\))?$`) });
    await size('M').check();
    await page.getByRole('button', { name: 'Add to Cart' }).click();
    await page.getByRole('button', { name: 'Add to Cart' }).click();
    await expect(cartButton(page)).toHaveAccessibleName('Cart, 2 items');

    await cartButton(page).click();
    const panel = page.getByRole('dialog', { name: 'Cart' });
    const choice = panel.getByRole('combobox', { name: `Variant of ${tee.name} - M` });
    await expect(choice).toHaveValue(/./);
    await expect(choice.getByRole('option', { name: 'S (sold out)' })).toBeDisabled();
    expect(await seriousAxeProblems(page)).toEqual([]);

    // M x2 becomes L x2, at L's price.
    await choice.selectOption({ label: 'L' });
    await expect(panel.getByText(`${tee.name} - L`, { exact: true })).toBeVisible();
    await expect(panel.getByRole('group', { name: `Quantity of ${tee.name} - L` })).toContainText('2');
    await expect(panel).toContainText('$27.00');
    await expect(panel).toContainText('$54.00');
    await page.keyboard.press('Escape');

    // One M again, then the L line back to M: joined, but never above the 2 left.
    await page.getByRole('button', { name: 'Add to Cart' }).click();
    await expect(cartButton(page)).toHaveAccessibleName('Cart, 3 items');
    await cartButton(page).click();
    await panel.getByRole('combobox', { name: `Variant of ${tee.name} - L` }).selectOption({ label: 'M' });
    await expect(panel.getByRole('listitem').filter({ hasText: tee.name })).toHaveCount(1);
    await expect(panel.getByRole('group', { name: `Quantity of ${tee.name} - M` })).toContainText('2');
    await expect(cartButton(page)).toHaveAccessibleName('Cart, 2 items');
    if (viewport.width === 375) expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await page.keyboard.press('Escape');

    // The server prices (and stock-checks) the changed line at checkout.
    const shopper = await tokenOf(request, DEMO_SHOPPER);
    const cart = await page.evaluate(() => JSON.parse(localStorage.getItem('sf_cart_v1') ?? '{}') as { lines: { productId?: string; variantId?: string; qty: number }[] });
    const line = cart.lines.find((entry) => entry.productId === tee.id)!;
    const quote = await callAs(request, shopper, 'quoteCheckout', { items: [{ id: tee.id, variantId: line.variantId!, qty: line.qty }], useWallet: false });
    expect(quote.subtotalCents).toBe(5000);
    await page.evaluate(() => localStorage.removeItem('sf_cart_v1'));
  });
}
