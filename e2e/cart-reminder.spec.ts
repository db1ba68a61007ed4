// The cart reminder (issue 37 part 7, decision 078) in a real browser: the label turns it on in
// the console's Audience tab; a signed-in fan who said yes to news puts a record in the cart,
// places the order and leaves the payment page unpaid; the reminder mail arrives, and its link,
// opened on another device (an empty cart), rebuilds the cart. The e2e server's hours last
// 2 seconds (CART_REMINDER_HOUR_MS, a test switch ignored in production).
import { CHECKOUT_MESSAGES } from '@storefront/domain/pricing.ts';
import { createVerifiedUser, mailLink } from './support/accounts.ts';
import { callAs, tokenOf } from './support/api.ts';
import { test, expect, DEMO_ADMIN } from './support/fixtures.ts';
import { logIn } from './support/login.ts';

const uniqueName = (what: string) => `E2E ${what} ${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

test('a fan who left a checkout unpaid gets the reminder, and its link rebuilds the cart', async ({ page, browser, request }) => {
  test.setTimeout(120_000);
  const adminToken = await tokenOf(request, DEMO_ADMIN);
  const name = uniqueName('Reminder LP');
  const { id } = await callAs(request, adminToken, 'releaseBizarreProduct', {
    name,
    description: `${name}, made for a browser test.`,
    priceCents: 2100,
    images: ['/content/covers/cover-01.svg'],
  });
  const fan = await createVerifiedUser(request);
  await callAs(request, await tokenOf(request, fan), 'setMyConsent', { consented: true, page: '/account' });

  // The label turns the reminder on: one hour after a checkout is left unpaid.
  const labelContext = await browser.newContext();
  const label = await labelContext.newPage();
  try {
    await logIn(label, DEMO_ADMIN);
    await label.goto('/release/audience');
    await label.getByRole('checkbox', { name: 'Remind fans of an unpaid checkout' }).check();
    await label.getByLabel('after (hours)').fill('1');
    await label.getByRole('button', { name: 'Save reminder' }).click();
    await expect(label.getByRole('status').filter({ hasText: 'Cart reminders are on' })).toHaveText('Cart reminders are on: sent 1 hour after a checkout is left unpaid.');

    // The fan puts two in the cart, places the order and leaves the payment page without paying.
    await logIn(page, fan);
    await page.goto(`/product/${id}`);
    await page.getByRole('button', { name: 'Add to Cart' }).click();
    await page.getByRole('button', { name: 'Add to Cart' }).click();
    await page.getByRole('button', { name: 'Cart, 2 items' }).click();
    await page.getByRole('dialog', { name: 'Cart' }).getByRole('button', { name: 'Checkout' }).click();
    await page.getByRole('dialog', { name: CHECKOUT_MESSAGES.walletPrompt }).getByRole('button', { name: 'No' }).click();
    await expect(page).toHaveURL(/\/checkout$/);
    await page.getByLabel('Address line 1').fill('1 Record Row');
    await page.getByLabel('City').fill('London');
    await page.getByLabel('Postal code').fill('N1 9GU');
    await page.getByLabel('Country').selectOption('GB');
    await page.getByRole('button', { name: 'Place order' }).click();
    await expect(page).toHaveURL(/\/pay\/[^/]+$/);
    await page.goto('/shop');

    // The reminder's mail, and its link opened on another device: the cart is rebuilt there.
    const link = await mailLink(request, fan.email, 'You left something in your cart', '/cart/restore');
    const elsewhere = await browser.newContext();
    try {
      const phone = await elsewhere.newPage();
      await phone.goto(link);
      await expect(phone.getByRole('heading', { name: 'Your cart', level: 1 })).toBeVisible();
      await expect(phone.getByRole('status').filter({ hasText: 'Your cart is back' })).toHaveText('Your cart is back: 2 items.');
      await expect(phone.getByRole('listitem').filter({ hasText: `2 × ${name}` })).toBeVisible();
      await expect(phone.getByRole('button', { name: 'Cart, 2 items' })).toBeVisible();
      await phone.getByRole('link', { name: 'Go to checkout' }).click();
      await expect(phone).toHaveURL(/\/(checkout|login)$/);
    } finally {
      await elsewhere.close();
    }
  } finally {
    // The e2e shop's other tests see the reminder off.
    await callAs(request, adminToken, 'saveAudienceSettings', { cartReminderHours: null });
    await labelContext.close();
  }
});
