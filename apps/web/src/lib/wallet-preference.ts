import { parseWalletPreference, WALLET_PREFERENCE_KEY, type WalletPreference } from '@storefront/domain/cart.ts';

/**
 * The shopper's answer to 'Checkout with my wallet?' (spec sections 4 and 9), kept in
 * localStorage: the cart's Checkout dialog writes it, the checkout page's toggle starts
 * from it and remembers every change.
 */
export function readWalletPreference(): WalletPreference | null {
  try {
    return parseWalletPreference(localStorage.getItem(WALLET_PREFERENCE_KEY));
  } catch {
    return null;
  }
}

export function writeWalletPreference(preference: WalletPreference): void {
  try {
    localStorage.setItem(WALLET_PREFERENCE_KEY, preference);
  } catch {
    // Storage blocked: the choice still applies to this checkout.
  }
}
