import { useSyncExternalStore } from 'react';
import { parseWalletPreference, WALLET_PREFERENCE_KEY, type WalletPreference } from '@storefront/domain/cart.ts';

/**
 * The shopper's answer to 'Checkout with my wallet?' (spec sections 4 and 9), kept in
 * localStorage: the cart's Checkout dialog writes it, the checkout page's toggle follows
 * it (also when the dialog is answered on the checkout page itself) and writes every change.
 */
const listeners = new Set<() => void>();
// Storage blocked: the choice still applies for this visit.
let unstored: WalletPreference | null = null;

export function readWalletPreference(): WalletPreference | null {
  try {
    return parseWalletPreference(localStorage.getItem(WALLET_PREFERENCE_KEY)) ?? unstored;
  } catch {
    return unstored;
  }
}

export function writeWalletPreference(preference: WalletPreference): void {
  unstored = preference;
  try {
    localStorage.setItem(WALLET_PREFERENCE_KEY, preference);
  } catch {
    // Storage blocked: `unstored` keeps it.
  }
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  // Another tab's answer counts too.
  const onStorage = (event: StorageEvent) => {
    if (event.key === WALLET_PREFERENCE_KEY) listener();
  };
  window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', onStorage);
  };
}

/** The remembered answer, kept current. */
export function useWalletPreference(): WalletPreference | null {
  return useSyncExternalStore(subscribe, readWalletPreference, () => null);
}
