import { useSyncExternalStore } from 'react';
import { addToCart, CART_STORAGE_KEY, changeVariant, EMPTY_CART, parseSavedCart, removeLine, setQty, type CartLine, type CartState } from '@storefront/domain/cart.ts';

/**
 * The cart, shared by the catalog (Add to Cart) and the cart and checkout features.
 * Saved in localStorage after every change and read at start; other tabs follow along.
 */
let state: CartState = typeof localStorage === 'undefined' ? EMPTY_CART : parseSavedCart(safeRead());
const listeners = new Set<() => void>();

function safeRead(): string | null {
  try {
    return localStorage.getItem(CART_STORAGE_KEY);
  } catch {
    return null;
  }
}

function commit(next: CartState) {
  state = next;
  try {
    localStorage.setItem(CART_STORAGE_KEY, JSON.stringify(next));
  } catch {
    // Storage full or blocked: the cart still works for this visit.
  }
  for (const listener of listeners) listener();
}

if (typeof window !== 'undefined') {
  window.addEventListener('storage', (event) => {
    if (event.key !== CART_STORAGE_KEY) return;
    state = parseSavedCart(event.newValue);
    for (const listener of listeners) listener();
  });
}

export const cartStore = {
  get: () => state,
  add: (item: Omit<CartLine, 'qty'>, qty = 1) => commit(addToCart(state, item, qty)),
  setQty: (lineId: string, qty: unknown) => commit(setQty(state, lineId, qty)),
  remove: (lineId: string) => commit(removeLine(state, lineId)),
  /** Another variant of the line's product on the line (issue 29 item 4); `max`: what is left of it. */
  changeVariant: (lineId: string, item: Omit<CartLine, 'qty'>, max: number | null) => commit(changeVariant(state, lineId, item, max)),
  /** A cart one of the domain's cart functions made from `get()` (a named price changed: ui/cart-widget/named-price.tsx). */
  put: (next: CartState) => commit(next),
  clear: () => commit(EMPTY_CART),
  subscribe(listener: () => void) {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

export function useCart(): CartState {
  return useSyncExternalStore(cartStore.subscribe, cartStore.get, () => EMPTY_CART);
}
