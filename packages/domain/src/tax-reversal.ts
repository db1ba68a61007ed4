import { roundHalfUp } from './shipping-tax.ts';

/**
 * Which part of an order's recorded tax transaction (Stripe Tax) each refund reverses (issue 26,
 * decision 060). Pure: the server computes it again on every retry from the order's succeeded
 * refunds in the order they were made, so a retry sends the same reversal (with the same
 * idempotency key) and the reversals never add up to more than the transaction.
 *
 * - A first refund that gives back every unit: the whole transaction (mode full).
 * - Refunded lines and/or the shipping: those units' share of each line and the shipping
 *   (mode partial with line items and shipping cost). A later refund of everything left
 *   (the desk's full refund after partial ones) reverses the lines left and the shipping, if
 *   no refund took it yet.
 * - An amount (no lines): that amount off the transaction's total, never past what is left of
 *   it (mode partial with a flat amount); a refund of everything left after an amount refund
 *   reverses what is left of the total the same way. Nothing left: no reversal.
 */

export interface ReversalOrder {
  /** Per line (by position): units bought, what the line paid and the tax added on it. */
  lines: { lineId: number; qty: number; paidCents: number; taxCents: number }[];
  shippingCents: number;
  shippingTaxCents: number;
}

export interface ReversalRefund {
  id: string;
  lines: { lineId: number; quantity: number }[];
  /** The shipping (and its tax) this refund gave back: > 0 when it refunded the shipping. */
  shippingCents: number;
  /** What the refund gave back in all (wallet and card). */
  amountCents: number;
}

export type TaxReversal =
  { mode: 'full' } | { mode: 'partial'; lines: { lineId: number; before: number; quantity: number; qty: number }[]; shipping: boolean } | { mode: 'partial'; flatCents: number };

/** Units `before`+1 .. `before`+`quantity` of `qty`'s share of `total`: the shares of all units sum to it exactly. */
export function unitsShare(total: number, before: number, quantity: number, qty: number): number {
  if (qty <= 0) return 0;
  return roundHalfUp(total * (before + quantity), qty) - roundHalfUp(total * before, qty);
}

/** The reversal of every succeeded refund, in order; null where a refund reverses nothing. */
export function taxReversals(order: ReversalOrder, refunds: ReversalRefund[]): Map<string, TaxReversal | null> {
  const total = order.lines.reduce((sum, line) => sum + line.paidCents + line.taxCents, 0) + order.shippingCents + order.shippingTaxCents;
  const reversedUnits = new Map<number, number>();
  let shippingReversed = false;
  let reversedCents = 0;
  let flatUsed = false;
  const result = new Map<string, TaxReversal | null>();
  const unitsLeft = (lineId: number) => {
    const line = order.lines.find((candidate) => candidate.lineId === lineId);
    return line ? line.qty - (reversedUnits.get(lineId) ?? 0) : 0;
  };
  const restOfOrder = (refund: ReversalRefund) =>
    refund.lines.length > 0 &&
    order.lines.every((line) => refund.lines.filter((part) => part.lineId === line.lineId).reduce((sum, part) => sum + part.quantity, 0) >= unitsLeft(line.lineId));

  for (const refund of refunds) {
    const left = total - reversedCents;
    if (left <= 0) {
      result.set(refund.id, null);
      continue;
    }
    if (reversedCents === 0 && restOfOrder(refund)) {
      result.set(refund.id, { mode: 'full' });
      reversedCents = total;
      continue;
    }
    if (refund.lines.length === 0 && refund.shippingCents === 0) {
      const flatCents = Math.min(refund.amountCents, left);
      flatUsed = true;
      reversedCents += flatCents;
      result.set(refund.id, flatCents > 0 ? { mode: 'partial', flatCents } : null);
      continue;
    }
    if (flatUsed && restOfOrder(refund)) {
      // Lines cannot be reversed past a flat amount already taken off them: what is left of the total.
      reversedCents = total;
      result.set(refund.id, { mode: 'partial', flatCents: left });
      continue;
    }
    const rest = restOfOrder(refund);
    const lines: { lineId: number; before: number; quantity: number; qty: number }[] = [];
    const wanted = new Map<number, number>();
    for (const part of refund.lines) wanted.set(part.lineId, (wanted.get(part.lineId) ?? 0) + part.quantity);
    for (const [lineId, asked] of [...wanted].sort((a, b) => a[0] - b[0])) {
      const line = order.lines.find((candidate) => candidate.lineId === lineId);
      const quantity = Math.min(asked, unitsLeft(lineId));
      if (!line || quantity <= 0) continue;
      const before = reversedUnits.get(lineId) ?? 0;
      lines.push({ lineId, before, quantity, qty: line.qty });
      reversedUnits.set(lineId, before + quantity);
      reversedCents += unitsShare(line.paidCents, before, quantity, line.qty) + unitsShare(line.taxCents, before, quantity, line.qty);
    }
    // The shipping: refunded on its own, or with everything left.
    const shipping = !shippingReversed && order.shippingCents > 0 && (refund.shippingCents > 0 || rest);
    if (shipping) {
      shippingReversed = true;
      reversedCents += order.shippingCents + order.shippingTaxCents;
    }
    result.set(refund.id, lines.length > 0 || shipping ? { mode: 'partial', lines, shipping } : null);
  }
  return result;
}
