// Issue 39's rough edges a fan meets, in a real browser: the signed-in fan pages pass axe
// (nothing serious or critical) at 375 and 1280 px, the DAT links first of all (item 16).
import { seriousAxeProblems } from './support/axe.ts';
import { test, expect, DEMO_SHOPPER } from './support/fixtures.ts';
import { rememberingLogIn } from './support/login.ts';

const logIn = rememberingLogIn();

const VIEWPORTS = [
  { name: '1280 px', width: 1280, height: 900 },
  { name: '375 px phone', width: 375, height: 740 },
] as const;

/** The signed-in fan's pages, each with the heading that says it has loaded. */
const FAN_PAGES = [
  ['/wallet', 'Wallet'],
  ['/my-orders', 'My Orders'],
  ['/account', 'My account'],
  ['/library', 'My music'],
  ['/redeem', 'Redeem a code'],
  ['/cashout', 'Cash Out'],
] as const;

for (const viewport of VIEWPORTS) {
  test(`the signed-in fan pages have nothing serious for axe at ${viewport.name}, the wallet's DAT links named as they read`, async ({ page }) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    await logIn(page, DEMO_SHOPPER);
    for (const [address, heading] of FAN_PAGES) {
      await page.goto(address);
      await expect(page.getByRole('heading', { level: 1 }), address).toHaveText(heading);
      await page.waitForLoadState('networkidle');
      expect(await seriousAxeProblems(page), `${address} at ${viewport.name}`).toEqual([]);
    }
    // The four DAT links: each link's name contains its visible text, in order.
    await page.goto('/wallet');
    const links = page.getByRole('list', { name: 'Your DATs' }).getByRole('link');
    await expect(links).toHaveCount(4);
    for (const link of await links.all()) {
      const name = (await link.getAttribute('aria-label'))!;
      const visible = (await link.innerText()).replace(/\s+/g, ' ').trim();
      const words = (text: string) =>
        text
          .toLowerCase()
          .replace(/[^\p{L}\p{N}\s]/gu, '')
          .split(/\s+/)
          .join(' ');
      expect(words(name)).toContain(words(visible));
    }
    await page.goto(`/wallet/dat/${(await links.first().getAttribute('href'))!.split('/').pop()!}`);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    expect(await seriousAxeProblems(page), `a DAT at ${viewport.name}`).toEqual([]);
  });
}
