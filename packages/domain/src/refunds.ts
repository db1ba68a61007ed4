import { taxCents } from './pricing.ts';
import { unitsShare } from './tax-reversal.ts';
import { formatUsd } from './money.ts';

/**
 * Refunds (issue 16, decision 028): what an admin's refund gives back, per part. Pure
 * integer arithmetic; the server applies it under a row lock and a conditional update.
 */
export const REFUND_MESSAGES = {
  nothingLeft: 'This order has nothing left to refund.',
  unknownLine: 'That line is not part of this order.',
  tooMany: 'You cannot refund more of a line than is left to refund.',
  cardFailed: 'The card refund did not go through. Nothing was refunded to the card; please try again.',
  cardPending: 'The card refund is still being processed. It is retried automatically, and the order shows its outcome.',
  cardGaveUp: (attempts: number) =>
    `The card refund could not be confirmed with the payment provider after ${attempts} ${attempts === 1 ? 'attempt' : 'attempts'}, so nothing more is tried automatically. Retry sends it again; the card cannot be refunded twice.`,
  /** The provider accepted the card refund, then failed it (Stripe's `refund.failed`, decision 034). */
  cardFailedAtProvider: (reason: string) =>
    `The payment provider could not return the card refund (${reason}), so nothing was refunded to the card. Retry sends it as a new card refund.`,
  stillRetrying: 'This refund is still being retried automatically. Wait for its outcome.',
  refundNotFound: 'That refund is not part of this order.',
  refundedCannotFulfil: 'This order was refunded and cannot be fulfilled.',
  issued: 'Refund issued.',
  amountAlone: 'Refund an amount, or lines and shipping, not both.',
  amountPositive: 'Enter an amount greater than 0.',
  amountTooLarge: (leftCents: number) => `You cannot refund more than is left to refund (${formatUsd(leftCents, { grouping: false })}).`,
  shippingAlreadyRefunded: 'The shipping of this order was already refunded.',
  noShipping: 'This order has no shipping to refund.',
} as const;

/** Stripe's `failure_reason` of a failed refund, in words for the admin; an unknown code is shown as it is. */
export function refundFailureReason(code: string | null | undefined): string {
  const words: Record<string, string> = {
    lost_or_stolen_card: 'the card was reported lost or stolen',
    expired_or_canceled_card: 'the card has expired or was canceled',
    charge_for_pending_refund_disputed: 'the payment is disputed',
    insufficient_funds: 'the balance could not cover it',
    declined: 'the card issuer declined it',
    merchant_request: 'it was canceled',
    unknown: 'no reason was given',
  };
  if (!code) return words.unknown!;
  return (
    words[code] ??
    code
      .replace(/[^\w -]/g, '')
      .slice(0, 80)
      .replace(/_/g, ' ')
  );
}

export type RefundStatus = 'partially_refunded' | 'refunded';

export interface RefundableLine {
  /** The line's position in the order. */
  lineId: number;
  unitCents: number;
  qty: number;
  refundedQty: number;
  /**
   * The line's tax basis as the order kept it (decision 060): what the whole line paid for its
   * goods after any discount, and the tax added on it at the order's rate (0 where prices include
   * tax). On orders made before it, taxCents is absent and paidCents, when given, is the line's
   * share of a discount code (issue 27); absent: unitCents x qty.
   */
  paidCents?: number;
  taxCents?: number;
  /** false: no tax was charged on the line (a gift card, decision 053); absent: taxed. */
  taxed?: boolean;
}

export interface RefundableOrder {
  /** What each part really paid (the wallet part as the ledger took it). */
  walletPaidCents: number;
  cardPaidCents: number;
  refundedWalletCents: number;
  refundedCardCents: number;
  lines: RefundableLine[];
  /** What a shipping refund gives back: the shipping and the tax on it (decision 050). */
  shippingCents?: number;
  /** A refund that did not fail already gave the shipping back (it goes back once). */
  shippingRefunded?: boolean;
}

/**
 * What the admin asks for (decision 050): nothing (a full refund of what is left), lines and/or
 * the shipping, or an amount. An amount names no lines, so no units count as returned.
 */
export interface RefundRequest {
  lines?: { lineId: number; quantity: number }[];
  shipping?: boolean;
  amountCents?: number;
}

export interface RefundPlan {
  walletCents: number;
  cardCents: number;
  /** The shipping (and its tax) given back by this refund; 0 when it gives none back. */
  shippingCents: number;
  lines: { lineId: number; quantity: number }[];
}

export class RefundRuleError extends Error {}

/** A line's share: its goods plus the tax on them (shipping comes back on its own, or with a full refund). */
export function lineRefundCents(unitCents: number, quantity: number): number {
  const goods = unitCents * quantity;
  return goods + taxCents(goods);
}

/**
 * What refunding `quantity` more units of a line gives back (decision 060): their share of what
 * the line paid and of the tax the order added on it, so a refund follows the order's own rate
 * (none on top where prices included VAT) and its discount. A line without a kept basis (an
 * older order): its share of what it paid (issue 27) and 9.25% on it, unless it was not taxed.
 */
export function lineRefundOf(line: RefundableLine, quantity: number): number {
  if (line.paidCents === undefined || line.taxCents === undefined) return lineShareCents(line, quantity);
  return unitsShare(line.paidCents, line.refundedQty, quantity, line.qty) + unitsShare(line.taxCents, line.refundedQty, quantity, line.qty);
}

/**
 * What `quantity` units of a line without a kept tax basis give back (issue 27): their share of
 * what the line paid for its goods (rounded down: never more than was paid), and the tax on it
 * unless none was charged.
 */
export function lineShareCents(line: Pick<RefundableLine, 'unitCents' | 'qty' | 'paidCents' | 'taxed'>, quantity: number): number {
  const paid = line.paidCents ?? line.unitCents * line.qty;
  const goods = quantity >= line.qty ? paid : Math.floor((paid * quantity) / line.qty);
  return line.taxed === false ? goods : goods + taxCents(goods);
}

/** What each part has left to give back. */
export function refundLeft(order: RefundableOrder): { walletCents: number; cardCents: number } {
  return {
    walletCents: Math.max(0, order.walletPaidCents - order.refundedWalletCents),
    cardCents: Math.max(0, order.cardPaidCents - order.refundedCardCents),
  };
}

/**
 * The split of a partial refund (decision 050): in proportion to what each part has left, the
 * card's share rounded to the nearest cent, the wallet taking the rest; never more than either
 * part has left. A small refund thus takes a little from each part, as the buyer paid, instead of
 * the whole card part first; and since every refund takes the same share of what is left, both
 * parts run out together with the last one.
 */
export function splitRefund(amountCents: number, left: { walletCents: number; cardCents: number }): { walletCents: number; cardCents: number } {
  const total = left.walletCents + left.cardCents;
  const amount = Math.min(amountCents, total);
  if (total === 0 || amount <= 0) return { walletCents: 0, cardCents: 0 };
  // Half a cent up, in integers (as pricing rounds).
  const proportional = Math.floor((2 * amount * left.cardCents + total) / (2 * total));
  const cardCents = Math.min(left.cardCents, Math.max(amount - left.walletCents, proportional));
  return { walletCents: amount - cardCents, cardCents };
}

/**
 * Full (no lines, no shipping, no amount): everything each part has left. By line and/or the
 * shipping: the lines' goods and tax, and the shipping and its tax (once), or by amount: that
 * amount; either way at most what the order has left, split by `splitRefund`.
 */
export function planRefund(order: RefundableOrder, request: RefundRequest = {}): RefundPlan {
  const left = refundLeft(order);
  const remaining = left.walletCents + left.cardCents;
  const { lines, shipping, amountCents } = request;
  if (lines === undefined && !shipping && amountCents === undefined) {
    if (remaining === 0) throw new RefundRuleError(REFUND_MESSAGES.nothingLeft);
    const rest = order.lines.filter((line) => line.qty > line.refundedQty).map((line) => ({ lineId: line.lineId, quantity: line.qty - line.refundedQty }));
    return { ...left, shippingCents: 0, lines: rest };
  }
  if (amountCents !== undefined) {
    if (lines !== undefined || shipping) throw new RefundRuleError(REFUND_MESSAGES.amountAlone);
    if (!Number.isInteger(amountCents) || amountCents <= 0) throw new RefundRuleError(REFUND_MESSAGES.amountPositive);
    if (remaining === 0) throw new RefundRuleError(REFUND_MESSAGES.nothingLeft);
    if (amountCents > remaining) throw new RefundRuleError(REFUND_MESSAGES.amountTooLarge(remaining));
    return { ...splitRefund(amountCents, left), shippingCents: 0, lines: [] };
  }
  const wanted = new Map<number, number>();
  for (const { lineId, quantity } of lines ?? []) wanted.set(lineId, (wanted.get(lineId) ?? 0) + quantity);
  let amount = 0;
  const planned: RefundPlan['lines'] = [];
  for (const [lineId, quantity] of wanted) {
    const line = order.lines.find((candidate) => candidate.lineId === lineId);
    if (!line) throw new RefundRuleError(REFUND_MESSAGES.unknownLine);
    if (quantity > line.qty - line.refundedQty) throw new RefundRuleError(REFUND_MESSAGES.tooMany);
    amount += lineRefundOf(line, quantity);
    planned.push({ lineId, quantity });
  }
  let shippingCents = 0;
  if (shipping) {
    if (order.shippingRefunded) throw new RefundRuleError(REFUND_MESSAGES.shippingAlreadyRefunded);
    if (!order.shippingCents) throw new RefundRuleError(REFUND_MESSAGES.noShipping);
    shippingCents = order.shippingCents;
    amount += shippingCents;
  }
  if (amount === 0 || remaining === 0) throw new RefundRuleError(REFUND_MESSAGES.nothingLeft);
  const split = splitRefund(amount, left);
  // What is left may be less than the lines and shipping: the shipping counts as given back only up to it.
  return { ...split, shippingCents: Math.min(shippingCents, split.walletCents + split.cardCents), lines: planned.sort((a, b) => a.lineId - b.lineId) };
}

/** Why the desk splits a refund as it does, in the admin's words (shown before confirming). */
export function refundSplitReason(order: RefundableOrder, plan: RefundPlan, request: RefundRequest = {}): string {
  const left = refundLeft(order);
  const full = request.lines === undefined && !request.shipping && request.amountCents === undefined;
  if (full) return 'A full refund gives back everything each part has left: the card part to the card, the wallet part to the wallet.';
  if (left.cardCents === 0) return 'Only the wallet part has money left to give back, so all of it goes to the wallet.';
  if (left.walletCents === 0) return 'Only the card part has money left to give back, so all of it goes to the card.';
  const total = left.cardCents + left.walletCents;
  const share = Math.round((left.cardCents * 100) / total);
  const all = plan.walletCents + plan.cardCents === total ? ' This gives back all that is left.' : '';
  return `Split in proportion to what each part has left to give back (card ${share}%, wallet ${100 - share}%), so a partial refund comes back the way the order was paid and never more than either part paid.${all}`;
}

/** What the buyer sees: Refunded once every line or all the money is back, else Partially refunded. */
export function refundStatusOf(order: RefundableOrder): RefundStatus | null {
  const refunded = order.refundedWalletCents + order.refundedCardCents;
  if (refunded === 0 && order.lines.every((line) => line.refundedQty === 0)) return null;
  const allMoney = refunded >= order.walletPaidCents + order.cardPaidCents;
  const allLines = order.lines.length > 0 && order.lines.every((line) => line.refundedQty >= line.qty);
  return allMoney || allLines ? 'refunded' : 'partially_refunded';
}
