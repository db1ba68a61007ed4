import { roundHalfUp } from './shipping-tax.ts';

/**
 * The sales overview's figures as an accountant reads them (issue 39 items 1-3, decisions 045
 * and 053 as amended in session 12). Pure: the server reads the rows, these rules make the
 * figures, and the tests compute the same from the orders they wrote.
 */

/** The name the default tax rule's jurisdiction (stored as '') has in the overview and its CSV. */
export const DEFAULT_JURISDICTION = 'Sales tax';

/** A jurisdiction as the overview names it. */
export function jurisdictionLabel(jurisdiction: string | null | undefined): string {
  return jurisdiction ? jurisdiction : DEFAULT_JURISDICTION;
}

/** The figures of an order, from what it kept: its totals, its included VAT and its gift card lines. */
export interface OrderAmounts {
  subtotalCents: number;
  discountCents: number;
  shippingCents: number;
  /** Tax added on top (goods and shipping). */
  taxCents: number;
  /** The tax added on the shipping (null: an order made before decision 060, 9.25%). */
  shippingTaxCents: number | null;
  /** VAT inside the prices (VAT-inclusive zones), of the goods and the shipping together. */
  taxIncludedCents: number;
  /** The gift cards the order sold (their lines' amounts). */
  giftCardCents: number;
  walletCents: number;
  cardCents: number;
}

export interface OrderParts {
  /** Goods without gift cards, at their list price, net of the VAT inside them. */
  goodsCents: number;
  discountCents: number;
  /** Shipping net of the VAT inside it. */
  shippingCents: number;
  /** Tax added plus VAT included, goods and shipping. */
  taxCents: number;
  taxIncludedCents: number;
  /** Of `taxCents`, what is on the shipping (added or inside it). */
  shippingTaxCents: number;
  /** Of `taxIncludedCents`, the VAT inside the shipping. */
  shippingIncludedCents: number;
  giftCardCents: number;
  cardFeeCents: number;
  paidCents: number;
}

/**
 * An order's parts. Included VAT is kept for the order as one amount (decision 051); the part
 * inside the shipping is its share in proportion to the amounts it was computed on (goods after
 * discount without gift cards, and the shipping), rounded half up; the rest is inside the goods.
 * goods - discount + shipping + tax + gift cards + card fee = paid, to the cent.
 */
export function orderParts(order: OrderAmounts): OrderParts {
  const goodsPaid = order.subtotalCents - order.discountCents - order.giftCardCents;
  const base = goodsPaid + order.shippingCents;
  const includedOnShipping = order.taxIncludedCents > 0 && base > 0 ? roundHalfUp(order.taxIncludedCents * order.shippingCents, base) : 0;
  const addedOnShipping = order.shippingTaxCents ?? Math.min(order.taxCents, roundHalfUp(order.shippingCents * 925, 10_000));
  const paidCents = order.walletCents + order.cardCents;
  return {
    goodsCents: order.subtotalCents - order.giftCardCents - (order.taxIncludedCents - includedOnShipping),
    discountCents: order.discountCents,
    shippingCents: order.shippingCents - includedOnShipping,
    taxCents: order.taxCents + order.taxIncludedCents,
    taxIncludedCents: order.taxIncludedCents,
    shippingTaxCents: addedOnShipping + includedOnShipping,
    shippingIncludedCents: includedOnShipping,
    giftCardCents: order.giftCardCents,
    cardFeeCents: paidCents - (order.subtotalCents - order.discountCents + order.shippingCents + order.taxCents),
    paidCents,
  };
}

/**
 * A refund as it was given: what it gave back in all, the shipping it gave back (with its tax),
 * the gift cards it voided, and the units' share of the tax basis its lines kept (decision 060:
 * what the goods paid after discount and the tax added on them; the list price and 9.25% on
 * orders made before it), gift card lines left out.
 */
export interface RefundAmounts {
  amountCents: number;
  shippingCents: number;
  giftCardCents: number;
  linesPaidCents: number;
  linesTaxCents: number;
}

export interface RefundParts {
  /** Goods given back, net of VAT: the overview's returns. */
  goodsCents: number;
  shippingCents: number;
  taxCents: number;
  cardFeeCents: number;
  giftCardCents: number;
}

/** `total` shared over `weights` in proportion, largest remainder first: the shares sum to it exactly (all to the first when the weights are 0). */
export function shareOf(total: number, weights: number[]): number[] {
  const sum = weights.reduce((acc, weight) => acc + weight, 0);
  if (sum <= 0) return weights.map((_, index) => (index === 0 ? total : 0));
  const shares = weights.map((weight) => Math.floor((weight * total) / sum));
  let left = total - shares.reduce((acc, part) => acc + part, 0);
  const order = weights.map((weight, index) => ({ index, remainder: (weight * total) % sum })).sort((a, b) => b.remainder - a.remainder || a.index - b.index);
  for (const { index } of order) {
    if (left <= 0) break;
    shares[index] = shares[index]! + 1;
    left -= 1;
  }
  return shares;
}

/**
 * What a refund gave back, part by part, in this order:
 * 1. the shipping it gave back: shipping and the tax on it, in the order's proportion;
 * 2. the gift cards it voided;
 * 3. its lines: their goods and the tax added on them as the lines' tax basis says, the VAT
 *    inside the goods (VAT-inclusive zones) in the order's proportion of included VAT to goods;
 * 4. anything beyond (a refund by amount names no lines; a full refund gives back the card fee):
 *    shared over what the order paid and the lines above did not cover (goods, their tax, the
 *    shipping and its tax unless step 1 gave it back, the card fee), in proportion.
 * The parts sum to the amount, to the cent.
 */
export function refundParts(order: OrderParts, refund: RefundAmounts): RefundParts {
  let left = refund.amountCents;
  const shippingBack = Math.min(refund.shippingCents, left);
  left -= shippingBack;
  const [shippingNet, shippingTax] = shareOf(shippingBack, [order.shippingCents, order.shippingTaxCents]);
  const giftCards = Math.min(refund.giftCardCents, left);
  left -= giftCards;
  const includedInGoods = order.taxIncludedCents - order.shippingIncludedCents;
  const goodsPaid = order.goodsCents - order.discountCents + includedInGoods;
  const linesBack = Math.min(refund.linesPaidCents + refund.linesTaxCents, left);
  const linesPaid = Math.min(refund.linesPaidCents, linesBack);
  const linesVat = goodsPaid > 0 ? Math.min(linesPaid, Math.floor((linesPaid * includedInGoods) / goodsPaid)) : 0;
  left -= linesBack;
  const goodsTaxAdded = order.taxCents - order.taxIncludedCents - (order.shippingTaxCents - order.shippingIncludedCents);
  const [restGoods, restTax, restShipping, restFee] = shareOf(
    left,
    [
      order.goodsCents - order.discountCents - (linesPaid - linesVat),
      goodsTaxAdded + includedInGoods - (linesBack - linesPaid + linesVat) + (shippingBack > 0 ? 0 : order.shippingTaxCents),
      shippingBack > 0 ? 0 : order.shippingCents,
      order.cardFeeCents,
    ].map((weight) => Math.max(0, weight)),
  );
  return {
    goodsCents: linesPaid - linesVat + restGoods!,
    shippingCents: shippingNet! + restShipping!,
    taxCents: shippingTax! + (linesBack - linesPaid) + linesVat + restTax!,
    cardFeeCents: restFee!,
    giftCardCents: giftCards,
  };
}

/** One wallet ledger entry as the gift-card credit rule reads it (decision 053, amended in session 12). */
export interface CreditEntry {
  userId: string;
  /** `gift` (a redeemed card), `grant` (any other credit given), `spend` (a debit or a capture), `refund` (a refund's wallet part), or `other` (holds, releases). */
  kind: 'gift' | 'grant' | 'spend' | 'refund' | 'other';
  cents: number;
  /** The order a spend paid for or a refund gave back from (null when not known). */
  orderId: string | null;
  /** Whether the entry is in the period the overview covers (for `spentCents`). */
  inPeriod: boolean;
}

/**
 * Gift-card credit left in wallets after `entries` (in ledger order). The rule: a wallet payment
 * spends gift-card credit first, then any other credit; a refund's wallet part comes back as
 * gift-card credit up to what the order it refunds spent of it (and not yet got back), the rest
 * as other credit. Holds and releases change nothing until a capture spends.
 */
export function giftCreditLeft(entries: readonly CreditEntry[]): { leftCents: number; spentCents: number } {
  const wallets = new Map<string, { gift: number; other: number }>();
  const spentByOrder = new Map<string, number>();
  let spentCents = 0;
  for (const entry of entries) {
    const wallet = wallets.get(entry.userId) ?? { gift: 0, other: 0 };
    wallets.set(entry.userId, wallet);
    if (entry.kind === 'gift') wallet.gift += entry.cents;
    else if (entry.kind === 'grant') wallet.other += entry.cents;
    else if (entry.kind === 'spend') {
      const fromGift = Math.min(wallet.gift, entry.cents);
      wallet.gift -= fromGift;
      wallet.other = Math.max(0, wallet.other - (entry.cents - fromGift));
      if (entry.inPeriod) spentCents += fromGift;
      if (entry.orderId) spentByOrder.set(entry.orderId, (spentByOrder.get(entry.orderId) ?? 0) + fromGift);
    } else if (entry.kind === 'refund') {
      const owed = entry.orderId ? (spentByOrder.get(entry.orderId) ?? 0) : 0;
      const toGift = Math.min(owed, entry.cents);
      if (entry.orderId) spentByOrder.set(entry.orderId, owed - toGift);
      wallet.gift += toGift;
      wallet.other += entry.cents - toGift;
      if (entry.inPeriod) spentCents -= toGift;
    }
  }
  let leftCents = 0;
  for (const wallet of wallets.values()) leftCents += wallet.gift;
  return { leftCents, spentCents };
}
