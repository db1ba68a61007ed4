/**
 * The cart kept in the browser (spec sections 3, 4, 5 and 9): lines keyed by product id,
 * quantities coerced to non-negative whole numbers, zero-quantity lines dropped, saved
 * under `sf_cart_v1`. A corrupt saved value yields an empty cart, never an error.
 */
export const CART_STORAGE_KEY = 'sf_cart_v1';
export const WALLET_PREFERENCE_KEY = 'sf_checkout_wallet_pref';
export type WalletPreference = 'wallet' | 'stripe';

export interface CartLine {
  /** The variant's id (issue 15): the product's id for its default variant, as in carts saved before. */
  lineId: string;
  /** The product, when the line is a variant other than the default one. */
  productId?: string;
  variantId?: string;
  title: string;
  image: string;
  priceCents: number;
  qty: number;
  /** The price the buyer named for a "name your price" item (issue 28); the server takes it if it is at least the minimum. */
  amountCents?: number;
  /** The label's minimum for that amount (the item's price when it was added), for the cart's own check; the server re-prices anyway. */
  minimumCents?: number;
  /** A download (issue 39): one copy, so its quantity is always 1 and the cart offers no -/+. */
  digital?: true;
}

export interface CartState {
  id: string;
  /** Total quantity over all lines. */
  qty: number;
  url: string;
  lines: CartLine[];
}

export const EMPTY_CART: CartState = { id: 'cart', qty: 0, url: '/checkout', lines: [] };

/** Any input to a non-negative whole quantity (spec section 5). */
export function coerceQty(value: unknown): number {
  const n = typeof value === 'string' ? Number(value.trim() || 'NaN') : typeof value === 'number' ? value : Number.NaN;
  if (!Number.isFinite(n) || n <= 0) return 0;
  return Math.min(Math.floor(n), 99);
}

function withTotals(lines: CartLine[]): CartState {
  const kept = lines.filter((line) => line.qty > 0);
  return { ...EMPTY_CART, lines: kept, qty: kept.reduce((sum, line) => sum + line.qty, 0) };
}

export function addToCart(cart: CartState, item: Omit<CartLine, 'qty'>, qty = 1): CartState {
  const existing = cart.lines.find((line) => line.lineId === item.lineId);
  if (existing) {
    return withTotals(cart.lines.map((line) => (line.lineId === item.lineId ? { ...line, ...item, qty: item.digital ? 1 : coerceQty(line.qty + qty) } : line)));
  }
  return withTotals([...cart.lines, { ...item, qty: item.digital ? 1 : coerceQty(qty) }]);
}

export function setQty(cart: CartState, lineId: string, qty: unknown): CartState {
  return withTotals(cart.lines.map((line) => (line.lineId === lineId ? { ...line, qty: line.digital ? 1 : coerceQty(qty) } : line)));
}

/**
 * Puts another variant of the same product on a line (issue 29 item 4), in the line's place: its
 * quantity moves with it, joined with a line already on that variant, and never above `max` (what
 * is left of the new variant; null: unlimited). The checkout checks the stock again.
 */
export function changeVariant(cart: CartState, lineId: string, item: Omit<CartLine, 'qty'>, max: number | null): CartState {
  const line = cart.lines.find((candidate) => candidate.lineId === lineId);
  if (!line || item.lineId === lineId) return cart;
  const joined = cart.lines.find((candidate) => candidate.lineId === item.lineId);
  const wanted = line.qty + (joined?.qty ?? 0);
  const qty = coerceQty(max === null ? wanted : Math.min(wanted, max));
  return withTotals(cart.lines.filter((candidate) => candidate !== joined).map((candidate) => (candidate === line ? { ...item, qty } : candidate)));
}

export function removeLine(cart: CartState, lineId: string): CartState {
  return withTotals(cart.lines.filter((line) => line.lineId !== lineId));
}

export function cartTotalCents(cart: CartState): number {
  return cart.lines.reduce((sum, line) => sum + (Number.isFinite(line.priceCents) ? line.priceCents : 0) * line.qty, 0);
}

/** Reads a saved cart; anything malformed is dropped line by line or as a whole. */
export function parseSavedCart(raw: string | null): CartState {
  if (!raw) return EMPTY_CART;
  try {
    const value: unknown = JSON.parse(raw);
    const lines = typeof value === 'object' && value !== null && Array.isArray((value as { lines?: unknown }).lines) ? (value as { lines: unknown[] }).lines : [];
    const parsed: CartLine[] = [];
    for (const line of lines) {
      if (typeof line !== 'object' || line === null) continue;
      const { lineId, productId, variantId, title, image, priceCents, qty, amountCents, minimumCents, digital } = line as Record<string, unknown>;
      if (typeof lineId !== 'string' || !lineId || parsed.some((p) => p.lineId === lineId)) continue;
      parsed.push({
        lineId,
        // A line saved before variants has neither: it is the product's default variant.
        ...(typeof productId === 'string' && productId && typeof variantId === 'string' && variantId ? { productId, variantId } : {}),
        title: typeof title === 'string' ? title : '',
        image: typeof image === 'string' ? image : '',
        priceCents: typeof priceCents === 'number' && Number.isSafeInteger(priceCents) && priceCents >= 0 ? priceCents : Number.NaN,
        qty: digital === true ? 1 : coerceQty(qty),
        ...(digital === true ? { digital: true as const } : {}),
        ...(typeof amountCents === 'number' && Number.isSafeInteger(amountCents) && amountCents >= 0 ? { amountCents } : {}),
        ...(typeof amountCents === 'number' && typeof minimumCents === 'number' && Number.isSafeInteger(minimumCents) && minimumCents >= 0 ? { minimumCents } : {}),
      });
    }
    return withTotals(parsed);
  } catch {
    return EMPTY_CART;
  }
}

export function parseWalletPreference(raw: string | null): WalletPreference | null {
  return raw === 'wallet' || raw === 'stripe' ? raw : null;
}

/** What the server is sent for the cart's lines: the product, and the variant when it is not the default one. */
export function cartItemsOf(lines: readonly CartLine[]): { id: string; variantId?: string; qty: number; amountCents?: number }[] {
  return lines.map((line) => {
    const named = line.amountCents !== undefined ? { amountCents: line.amountCents } : {};
    return line.productId && line.variantId ? { id: line.productId, variantId: line.variantId, qty: line.qty, ...named } : { id: line.lineId, qty: line.qty, ...named };
  });
}
