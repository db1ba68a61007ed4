import { describe, expect, it } from 'vitest';
import { giftCreditLeft, jurisdictionLabel, orderParts, refundParts, type CreditEntry } from './sales-figures.ts';

/** A deterministic stream of numbers in [0, 1). */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

describe('the sales figures of an order and its refunds (issue 39)', () => {
  it('splits 500 random orders (gift cards, VAT-inclusive zones, discounts, wallet and card) into parts that add up to what was paid, and their refunds into parts that add up to the refund', () => {
    const next = random(39);
    for (let index = 0; index < 500; index += 1) {
      const goods = 100 + Math.floor(next() * 20_000);
      const giftCards = next() < 0.2 ? 5000 : 0;
      const discount = giftCards ? 0 : Math.floor(next() * goods * 0.3);
      const shipping = next() < 0.3 ? 0 : 999;
      const vat = next() < 0.3;
      const taxed = goods - discount + shipping;
      const included = vat ? Math.round((taxed * 1900) / 11_900) : 0;
      const shippingTax = vat ? 0 : Math.round(shipping * 0.0925);
      const tax = vat ? 0 : Math.round((goods - discount) * 0.0925) + shippingTax;
      const total = goods + giftCards - discount + shipping + tax;
      const wallet = giftCards ? 0 : Math.floor(total * next());
      const card = total === wallet ? 0 : Math.ceil((total - wallet + 30) / 0.971);
      const parts = orderParts({
        subtotalCents: goods + giftCards,
        discountCents: discount,
        shippingCents: shipping,
        taxCents: tax,
        shippingTaxCents: shippingTax,
        taxIncludedCents: included,
        giftCardCents: giftCards,
        walletCents: wallet,
        cardCents: card,
      });
      expect(parts.goodsCents - parts.discountCents + parts.shippingCents + parts.taxCents + parts.giftCardCents + parts.cardFeeCents).toBe(wallet + card);
      expect(parts.giftCardCents).toBe(giftCards);
      expect(parts.taxCents).toBe(tax + included);
      expect(parts.cardFeeCents).toBe(card === 0 ? 0 : card - (total - wallet));
      // Net of VAT: the goods and the shipping lose exactly the VAT that was inside them.
      expect(parts.goodsCents + parts.shippingCents).toBe(goods + shipping - included);

      // A refund of every line and the shipping gives back each part, returns = the goods after discount.
      const full = refundParts(parts, {
        amountCents: wallet + card,
        shippingCents: shipping + shippingTax,
        giftCardCents: giftCards,
        linesPaidCents: goods - discount,
        linesTaxCents: tax - shippingTax,
      });
      expect(full.goodsCents + full.shippingCents + full.taxCents + full.cardFeeCents + full.giftCardCents).toBe(wallet + card);
      expect(full.goodsCents).toBe(parts.goodsCents - parts.discountCents);
      expect(full.taxCents).toBe(parts.taxCents);
      expect(full.shippingCents).toBe(parts.shippingCents);
      expect(full.cardFeeCents).toBe(parts.cardFeeCents);
      // A refund by amount: the parts still add up to it, none negative.
      const amount = 1 + Math.floor(next() * (wallet + card - 1));
      const byAmount = refundParts(parts, { amountCents: amount, shippingCents: 0, giftCardCents: 0, linesPaidCents: 0, linesTaxCents: 0 });
      expect(byAmount.goodsCents + byAmount.shippingCents + byAmount.taxCents + byAmount.cardFeeCents + byAmount.giftCardCents).toBe(amount);
      expect(Math.min(...Object.values(byAmount))).toBeGreaterThanOrEqual(0);
    }
  });

  it('names the default jurisdiction "Sales tax"', () => {
    expect(jurisdictionLabel('')).toBe('Sales tax');
    expect(jurisdictionLabel('Germany')).toBe('Germany');
  });
});

describe('gift-card credit left in wallets (decision 053, amended in session 12)', () => {
  const entry = (kind: CreditEntry['kind'], cents: number, orderId: string | null = null, userId = 'u1'): CreditEntry => ({ userId, kind, cents, orderId, inPeriod: true });

  it('spends gift-card credit first, then granted credit', () => {
    expect(giftCreditLeft([entry('grant', 1000), entry('gift', 5000), entry('spend', 1964, 'o1')])).toEqual({ leftCents: 3036, spentCents: 1964 });
    expect(giftCreditLeft([entry('grant', 1000), entry('gift', 5000), entry('spend', 5500, 'o1')])).toEqual({ leftCents: 0, spentCents: 5000 });
    // Spent before the card was redeemed: that was other credit.
    expect(giftCreditLeft([entry('grant', 1000), entry('spend', 800, 'o1'), entry('gift', 5000)])).toEqual({ leftCents: 5000, spentCents: 0 });
  });

  it('gives a refund back as gift-card credit up to what its order spent of it', () => {
    const entries = [entry('grant', 1000), entry('gift', 2000), entry('spend', 2500, 'o1'), entry('refund', 2500, 'o1')];
    expect(giftCreditLeft(entries)).toEqual({ leftCents: 2000, spentCents: 0 });
    expect(giftCreditLeft([...entries.slice(0, 3), entry('refund', 700, 'o1')])).toEqual({ leftCents: 700, spentCents: 1300 });
    // Another wallet's gift credit is its own.
    expect(giftCreditLeft([entry('gift', 2000, null, 'u2'), entry('spend', 500, 'o2', 'u1')])).toEqual({ leftCents: 2000, spentCents: 0 });
  });
});
