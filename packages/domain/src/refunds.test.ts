import { describe, expect, it } from 'vitest';
import {
  lineRefundCents,
  lineShareCents,
  planRefund,
  refundFailureReason,
  REFUND_MESSAGES,
  refundSplitReason,
  refundStatusOf,
  splitRefund,
  type RefundableOrder,
} from './refunds.ts';

const order = (over: Partial<RefundableOrder> = {}): RefundableOrder => ({
  walletPaidCents: 1000,
  cardPaidCents: 5000,
  refundedWalletCents: 0,
  refundedCardCents: 0,
  lines: [
    { lineId: 0, unitCents: 2500, qty: 2, refundedQty: 0 },
    { lineId: 1, unitCents: 1999, qty: 1, refundedQty: 0 },
  ],
  shippingCents: 999 + 92,
  shippingRefunded: false,
  ...over,
});

describe('planRefund', () => {
  it.each([
    ['full: everything each part has left', order(), undefined, { walletCents: 1000, cardCents: 5000 }],
    ['full after a card refund', order({ refundedCardCents: 4000 }), undefined, { walletCents: 1000, cardCents: 1000 }],
    // Decision 050: in proportion to what each part has left (5000 : 1000), no longer card first.
    ['one tee: goods + 9.25% tax, 5/6 from the card', order(), [{ lineId: 0, quantity: 1 }], { walletCents: 455, cardCents: 2276 }],
    ['two tees: the same shares', order({ cardPaidCents: 5000 }), [{ lineId: 0, quantity: 2 }], { walletCents: 910, cardCents: 4553 }],
    ['never more than both parts have left', order({ refundedCardCents: 5000, refundedWalletCents: 900 }), [{ lineId: 1, quantity: 1 }], { walletCents: 100, cardCents: 0 }],
    ['wallet-only order', order({ cardPaidCents: 0, walletPaidCents: 7000 }), [{ lineId: 1, quantity: 1 }], { walletCents: 1999 + 185, cardCents: 0 }],
  ] as const)('%s', (_name, input, lines, expected) => {
    expect(planRefund(input, lines ? { lines: [...lines] } : undefined)).toMatchObject(expected);
  });

  it.each([
    ['an amount: 5/6 from the card, the rest from the wallet', order(), { amountCents: 600 }, { walletCents: 100, cardCents: 500, shippingCents: 0, lines: [] }],
    ['a cent: to the part with the larger share', order(), { amountCents: 1 }, { walletCents: 0, cardCents: 1 }],
    ['all that is left, by amount', order({ refundedCardCents: 1000 }), { amountCents: 5000 }, { walletCents: 1000, cardCents: 4000 }],
    ['after a card-only refund: the shares of what is left', order({ refundedCardCents: 4000 }), { amountCents: 1000 }, { walletCents: 500, cardCents: 500 }],
    ['wallet-only order by amount', order({ cardPaidCents: 0 }), { amountCents: 250 }, { walletCents: 250, cardCents: 0 }],
    ['the shipping and its tax', order(), { shipping: true }, { walletCents: 182, cardCents: 909, shippingCents: 1091, lines: [] }],
    [
      'a line and the shipping',
      order(),
      { lines: [{ lineId: 1, quantity: 1 }], shipping: true },
      { walletCents: 546, cardCents: 2729, shippingCents: 1091, lines: [{ lineId: 1, quantity: 1 }] },
    ],
    [
      'the shipping, capped by what is left',
      order({ refundedCardCents: 5000, refundedWalletCents: 500 }),
      { shipping: true },
      { walletCents: 500, cardCents: 0, shippingCents: 500 },
    ],
  ] as const)('%s', (_name, input, request, expected) => {
    expect(planRefund(input, request as Parameters<typeof planRefund>[1])).toMatchObject(expected);
  });

  it('never gives back more than each part paid, and every amount exactly, over any run of partial refunds', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let run = 0; run < 500; run += 1) {
      let state = order({ walletPaidCents: Math.floor(next() * 5000), cardPaidCents: Math.floor(next() * 5000) + 1 });
      for (let step = 0; step < 6; step += 1) {
        const left = state.walletPaidCents + state.cardPaidCents - state.refundedWalletCents - state.refundedCardCents;
        if (left === 0) break;
        const amountCents = 1 + Math.floor(next() * left);
        const plan = planRefund(state, { amountCents });
        expect(plan.walletCents + plan.cardCents).toBe(amountCents);
        state = { ...state, refundedWalletCents: state.refundedWalletCents + plan.walletCents, refundedCardCents: state.refundedCardCents + plan.cardCents };
        expect(state.refundedWalletCents).toBeLessThanOrEqual(state.walletPaidCents);
        expect(state.refundedCardCents).toBeLessThanOrEqual(state.cardPaidCents);
      }
    }
    expect(splitRefund(10, { walletCents: 0, cardCents: 0 })).toEqual({ walletCents: 0, cardCents: 0 });
  });

  it('says why it splits as it does', () => {
    const plan = planRefund(order(), { amountCents: 600 });
    expect(refundSplitReason(order(), plan, { amountCents: 600 })).toBe(
      'Split in proportion to what each part has left to give back (card 83%, wallet 17%), so a partial refund comes back the way the order was paid and never more than either part paid.',
    );
    expect(refundSplitReason(order({ cardPaidCents: 0 }), plan, { amountCents: 600 })).toBe('Only the wallet part has money left to give back, so all of it goes to the wallet.');
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
    expect(() => planRefund(input, lines ? { lines: [...lines] } : undefined)).toThrow(message);
  });

  it.each([
    ['more than is left', order({ refundedCardCents: 5000 }), { amountCents: 1001 }, REFUND_MESSAGES.amountTooLarge(1000)],
    ['a zero amount', order(), { amountCents: 0 }, REFUND_MESSAGES.amountPositive],
    ['an amount and lines', order(), { amountCents: 5, lines: [{ lineId: 0, quantity: 1 }] }, REFUND_MESSAGES.amountAlone],
    ['an amount when nothing is left', order({ refundedCardCents: 5000, refundedWalletCents: 1000 }), { amountCents: 1 }, REFUND_MESSAGES.nothingLeft],
    ['the shipping twice', order({ shippingRefunded: true }), { shipping: true }, REFUND_MESSAGES.shippingAlreadyRefunded],
    ['the shipping of an order without', order({ shippingCents: 0 }), { shipping: true }, REFUND_MESSAGES.noShipping],
  ] as const)('refuses: %s', (_name, input, request, message) => {
    expect(() => planRefund(input, request as Parameters<typeof planRefund>[1])).toThrow(message);
  });

  it('line amounts are goods plus rounded tax', () => {
    expect(lineRefundCents(2500, 1)).toBe(2731);
    expect(lineRefundCents(1999, 1)).toBe(2184);
  });
});

describe('lineShareCents (issue 27: what a line paid, not its list price)', () => {
  it.each([
    ['no discount: list price and tax', { unitCents: 2500, qty: 2 }, 1, 2500 + 231],
    ['a discounted line: its share of what it paid, and the tax on that', { unitCents: 3000, qty: 1, paidCents: 2400 }, 1, 2400 + 222],
    ['part of a discounted line: rounded down, never more than paid', { unitCents: 1000, qty: 3, paidCents: 2000 }, 1, 666 + 62],
    ['the rest of it: the whole line', { unitCents: 1000, qty: 3, paidCents: 2000 }, 3, 2000 + 185],
    ['a gift card: no tax was charged, none given back', { unitCents: 2500, qty: 1, taxed: false }, 1, 2500],
  ] as const)('%s', (_name, line, quantity, expected) => {
    expect(lineShareCents(line, quantity)).toBe(expected);
  });

  it('plans a line refund of a discounted order from what the line paid', () => {
    const discounted = order({
      walletPaidCents: 4100,
      cardPaidCents: 0,
      lines: [
        { lineId: 0, unitCents: 3000, qty: 1, refundedQty: 0, paidCents: 2400 },
        { lineId: 1, unitCents: 1500, qty: 1, refundedQty: 0, paidCents: 1500 },
      ],
    });
    expect(planRefund(discounted, { lines: [{ lineId: 0, quantity: 1 }] })).toMatchObject({ walletCents: 2622, cardCents: 0 });
    expect(planRefund(discounted, { lines: [{ lineId: 1, quantity: 1 }] })).toMatchObject({ walletCents: 1639, cardCents: 0 });
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
