import { taxCents } from './pricing.ts';

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
}

export interface RefundableOrder {
  /** What each part really paid (the wallet part as the ledger took it). */
  walletPaidCents: number;
  cardPaidCents: number;
  refundedWalletCents: number;
  refundedCardCents: number;
  lines: RefundableLine[];
}

export interface RefundPlan {
  walletCents: number;
  cardCents: number;
  lines: { lineId: number; quantity: number }[];
}

export class RefundRuleError extends Error {}

/** A line's share: its goods plus the tax on them (shipping comes back only with a full refund). */
export function lineRefundCents(unitCents: number, quantity: number): number {
  const goods = unitCents * quantity;
  return goods + taxCents(goods);
}

/**
 * Full (no lines): everything each part has left. By line: the lines' goods and tax, taken
 * from the card first (money goes back where most of it came from) and then the wallet,
 * never more than either part has left.
 */
export function planRefund(order: RefundableOrder, lines?: { lineId: number; quantity: number }[]): RefundPlan {
  const walletLeft = Math.max(0, order.walletPaidCents - order.refundedWalletCents);
  const cardLeft = Math.max(0, order.cardPaidCents - order.refundedCardCents);
  if (lines === undefined) {
    if (walletLeft + cardLeft === 0) throw new RefundRuleError(REFUND_MESSAGES.nothingLeft);
    const remaining = order.lines.filter((line) => line.qty > line.refundedQty).map((line) => ({ lineId: line.lineId, quantity: line.qty - line.refundedQty }));
    return { walletCents: walletLeft, cardCents: cardLeft, lines: remaining };
  }
  const wanted = new Map<number, number>();
  for (const { lineId, quantity } of lines) wanted.set(lineId, (wanted.get(lineId) ?? 0) + quantity);
  let amount = 0;
  const planned: RefundPlan['lines'] = [];
  for (const [lineId, quantity] of wanted) {
    const line = order.lines.find((candidate) => candidate.lineId === lineId);
    if (!line) throw new RefundRuleError(REFUND_MESSAGES.unknownLine);
    if (quantity > line.qty - line.refundedQty) throw new RefundRuleError(REFUND_MESSAGES.tooMany);
    amount += lineRefundCents(line.unitCents, quantity);
    planned.push({ lineId, quantity });
  }
  if (amount === 0 || walletLeft + cardLeft === 0) throw new RefundRuleError(REFUND_MESSAGES.nothingLeft);
  const cardCents = Math.min(cardLeft, amount);
  const walletCents = Math.min(walletLeft, amount - cardCents);
  return { walletCents, cardCents, lines: planned.sort((a, b) => a.lineId - b.lineId) };
}

/** What the buyer sees: Refunded once every line or all the money is back, else Partially refunded. */
export function refundStatusOf(order: RefundableOrder): RefundStatus | null {
  const refunded = order.refundedWalletCents + order.refundedCardCents;
  if (refunded === 0 && order.lines.every((line) => line.refundedQty === 0)) return null;
  const allMoney = refunded >= order.walletPaidCents + order.cardPaidCents;
  const allLines = order.lines.length > 0 && order.lines.every((line) => line.refundedQty >= line.qty);
  return allMoney || allLines ? 'refunded' : 'partially_refunded';
}
