import type { CartState } from './cart.ts';
import { CHECKOUT_MESSAGES, namedUnitCents } from './pricing.ts';

/**
 * A new named price on a "name your price" line (issue 28, decision 064), checked by the
 * domain's pricing rule against the line's minimum: the cart with the line at that amount, or
 * the message saying why not (the cart unchanged). The server prices the amount again.
 * Apart from cart.ts, which every page loads: this (and the pricing messages) loads with a named price only.
 */
export function setNamedAmount(cart: CartState, lineId: string, amountCents: number): { cart: CartState } | { refused: string } {
  const line = cart.lines.find((candidate) => candidate.lineId === lineId);
  if (!line || line.amountCents === undefined) return { refused: CHECKOUT_MESSAGES.fixedPrice(line?.title ?? lineId) };
  const priced = namedUnitCents({ amountCents }, { name: line.title, priceCents: line.minimumCents ?? 0, nameYourPrice: true });
  if ('refused' in priced) return priced;
  return { cart: { ...cart, lines: cart.lines.map((candidate) => (candidate === line ? { ...line, amountCents: priced.unitCents, priceCents: priced.unitCents } : candidate)) } };
}
