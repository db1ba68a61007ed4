import { describe, expect, it } from 'vitest';
import { lineRefundCents, planRefund, refundFailureReason, REFUND_MESSAGES, refundStatusOf, type RefundableOrder } from './refunds.ts';

const order = (over: Partial<RefundableOrder> = {}): RefundableOrder => ({
  walletPaidCents: 1000,
  cardPaidCents: 5000,
  refundedWalletCents: 0,
  refundedCardCents: 0,
  lines: [
    { lineId: 0, unitCents: 2500, qty: 2, refundedQty: 0 },
    { lineId: 1, unitCents: 1999, qty: 1, refundedQty: 0 },
  ],
  ...over,
});

describe('planRefund', () => {
  it.each([
    ['full: everything each part has left', order(), undefined, { walletCents: 1000, cardCents: 5000 }],
    ['full after a card refund', order({ refundedCardCents: 4000 }), undefined, { walletCents: 1000, cardCents: 1000 }],
    ['one tee: goods + 9.25% tax from the card', order(), [{ lineId: 0, quantity: 1 }], { walletCents: 0, cardCents: 2500 + 231 }],
    ['two tees: card first, then the wallet', order({ cardPaidCents: 5000 }), [{ lineId: 0, quantity: 2 }], { walletCents: 463, cardCents: 5000 }],
    ['never more than both parts have left', order({ refundedCardCents: 5000, refundedWalletCents: 900 }), [{ lineId: 1, quantity: 1 }], { walletCents: 100, cardCents: 0 }],
    ['wallet-only order', order({ cardPaidCents: 0, walletPaidCents: 7000 }), [{ lineId: 1, quantity: 1 }], { walletCents: 1999 + 185, cardCents: 0 }],
  ] as const)('%s', (_name, input, lines, expected) => {
    expect(planRefund(input, lines ? [...lines] : undefined)).toMatchObject(expected);
  });

  it.each([
    ['nothing left', order({ refundedWalletCents: 1000, refundedCardCents: 5000 }), undefined, REFUND_MESSAGES.nothingLeft],
    ['unknown line', order(), [{ lineId: 7, quantity: 1 }], REFUND_MESSAGES.unknownLine],
    ['more than left of a line', order(), [{ lineId: 1, quantity: 2 }], REFUND_MESSAGES.tooMany],
    [
      'the same line twice adds up',
      order(),
      [
        { lineId: 1, quantity: 1 },
        { lineId: 1, quantity: 1 },
      ],
      REFUND_MESSAGES.tooMany,
    ],
    ['a refunded line', order({ lines: [{ lineId: 0, unitCents: 100, qty: 1, refundedQty: 1 }] }), [{ lineId: 0, quantity: 1 }], REFUND_MESSAGES.tooMany],
  ] as const)('refuses: %s', (_name, input, lines, message) => {
    expect(() => planRefund(input, lines ? [...lines] : undefined)).toThrow(message);
  });

  it('line amounts are goods plus rounded tax', () => {
    expect(lineRefundCents(2500, 1)).toBe(2731);
    expect(lineRefundCents(1999, 1)).toBe(2184);
  });
});

describe('refundStatusOf', () => {
  it.each([
    [order(), null],
    [order({ refundedCardCents: 10 }), 'partially_refunded'],
    [order({ refundedCardCents: 5000, refundedWalletCents: 1000 }), 'refunded'],
    [order({ refundedCardCents: 1, lines: [{ lineId: 0, unitCents: 1, qty: 1, refundedQty: 1 }] }), 'refunded'],
  ] as const)('%#', (input, expected) => {
    expect(refundStatusOf(input)).toBe(expected);
  });
});

describe('refundFailureReason (a refund the provider failed, decision 034)', () => {
  it("reads Stripe's failure_reason codes as words, and keeps an unknown code readable", () => {
    expect(refundFailureReason('expired_or_canceled_card')).toBe('the card has expired or was canceled');
    expect(refundFailureReason('lost_or_stolen_card')).toBe('the card was reported lost or stolen');
    expect(refundFailureReason(null)).toBe('no reason was given');
    expect(refundFailureReason('bank_closed<script>')).toBe('bank closedscript');
    expect(REFUND_MESSAGES.cardFailedAtProvider(refundFailureReason('declined'))).toBe(
      'The payment provider could not return the card refund (the card issuer declined it), so nothing was refunded to the card. Retry sends it as a new card refund.',
    );
  });
});
