// Saved shipping addresses (issue 17): the addresses of a shopper's orders are offered at
// checkout, the last one used filled in by default, and another one a choice away.
import { CART_STORAGE_KEY, WALLET_PREFERENCE_KEY } from '@storefront/domain/cart.ts';
import { createVerifiedUser } from './support/accounts.ts';
import { runCli } from './support/cli.ts';
import { callAs, tokenOf } from './support/api.ts';
import { test, expect, DEMO_ADMIN } from './support/fixtures.ts';

const COVER = '/content/covers/cover-01.svg';

test('checkout fills in the last address used and offers the earlier one', async ({ page, request }) => {
  const user = await createVerifiedUser(request);
  await runCli(['grant-credits', user.email, '500']);
  const admin = await tokenOf(request, DEMO_ADMIN);
  const name = `E2E Address ${Date.now().toString(36)}`;
  const { id: productId } = await callAs(request, admin, 'releaseBizarreProduct', { name, description: 'For the saved address test.', priceCents: 1200, images: [COVER] });
  const asUser = await tokenOf(request, user);
  const items = [{ id: productId, qty: 1 }];
  const order = async (shipping: { name: string; line1: string; line2: string; city: string; state: string; postal_code: string; country: string }, n: number) => {
    const quote = await callAs(request, asUser, 'quoteCheckout', { items, useWallet: true });
    await callAs(request, asUser, 'completeWalletOnlyOrderStreetFlavor', {
      items,
      quote,
      checkoutId: `e2e-address-${Date.now()}-${n}`,
      contact: { name: user.name, email: user.email, phone: '' },
      shipping,
    });
  };
  await order({ name: 'Ann Old', line1: '1 Old Road', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' }, 1);
  await order({ name: 'Ann New', line1: '9 Record Row', line2: 'Flat 2', city: 'London', state: '', postal_code: 'N1 9GU', country: 'GB' }, 2);

  await page.goto('/login');
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Login', exact: true }).click();
  await expect(page).toHaveURL(/\/shop$/);
  const cart = { id: 'cart', qty: 1, url: '/checkout', lines: [{ lineId: productId, title: name, image: COVER, priceCents: 1200, qty: 1 }] };
  await page.evaluate(
    ([cartKey, cartValue, preferenceKey]) => {
      localStorage.setItem(cartKey, cartValue);
      localStorage.setItem(preferenceKey, 'wallet');
    },
    [CART_STORAGE_KEY, JSON.stringify(cart), WALLET_PREFERENCE_KEY] as const,
  );
  await page.goto('/checkout');

  // The last used address is filled in.
  await expect(page.getByLabel('Address line 1')).toHaveValue('9 Record Row');
  await expect(page.getByLabel('Recipient name')).toHaveValue('Ann New');
  await expect(page.getByLabel('City')).toHaveValue('London');
  await expect(page.getByLabel('Country')).toHaveValue('GB');
  const savedSelect = page.getByLabel('Saved addresses');
  await expect(savedSelect.locator('option')).toHaveText(['Ann New, 9 Record Row, Flat 2, London N1 9GU, GB', 'Ann Old, 1 Old Road, Springfield IL 62701, US', 'A new address']);

  // The earlier one, chosen, fills the form; "A new address" empties it.
  await savedSelect.selectOption({ label: 'Ann Old, 1 Old Road, Springfield IL 62701, US' });
  await expect(page.getByLabel('Address line 1')).toHaveValue('1 Old Road');
  await expect(page.getByLabel('City')).toHaveValue('Springfield');
  await savedSelect.selectOption({ label: 'A new address' });
  await expect(page.getByLabel('Address line 1')).toHaveValue('');
});
