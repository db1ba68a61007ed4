import { describe, expect, it } from 'vitest';
import { periodDays, SALES_FIGURES, salesCsv, type SalesFigures, type SalesOverview } from './sales.ts';

const zero = Object.fromEntries(SALES_FIGURES.map(([key]) => [key, 0])) as SalesFigures;
const goods = { unitsSold: 1, grossSalesCents: 100, unitsRefunded: 0, refundedGoodsCents: 0 };

describe('salesCsv', () => {
  it('quotes a product or variant name holding the separator of either spreadsheet convention, and defuses formulas', () => {
    const overview: SalesOverview = {
      timeZone: 'UTC',
      from: '2026-11-01',
      to: '2026-11-01',
      totals: zero,
      byDay: [{ day: '2026-11-01', ...zero }],
      byProduct: [
        { productId: 'p1', name: 'Tee; black', ...goods },
        { productId: 'p2', name: 'Sales, "Tee"', ...goods },
        { productId: 'p3', name: '=1+1', ...goods },
      ],
      byVariant: [{ productId: 'p1', variantId: 'v1', name: 'Tee; black', variant: 'L; tall', ...goods }],
      ordersToShip: 0,
      byCode: [{ code: '=CODE', orders: 1, discountsCents: 150 }],
    };
    const csv = salesCsv(overview);
    expect(csv).toContain('p1,"Tee; black",1,1.00,0,0.00,1,1.00\r\n');
    expect(csv).toContain('p2,"Sales, ""Tee""",1,1.00,0,0.00,1,1.00\r\n');
    expect(csv).toContain("p3,'=1+1,1,1.00,0,0.00,1,1.00\r\n");
    expect(csv).toContain('p1,v1,"Tee; black","L; tall",1,1.00,0,0.00,1,1.00\r\n');
    // The codes the period's orders used (issue 27), through the same escaper.
    expect(csv).toContain("discount_code,orders,discounts_usd\r\n'=CODE,1,1.50\r\n");
  });

  it('names the default rule’s jurisdiction "Sales tax" and says what every column means (issue 39)', () => {
    const overview: SalesOverview = {
      timeZone: 'UTC',
      from: '2026-11-01',
      to: '2026-11-01',
      totals: zero,
      byDay: [],
      byProduct: [],
      byVariant: [],
      ordersToShip: 0,
      byCode: [],
      byTaxJurisdiction: [
        { jurisdiction: '', orders: 2, taxCents: 925, taxIncludedCents: 0 },
        { jurisdiction: 'Germany', orders: 1, taxCents: 0, taxIncludedCents: 723 },
      ],
      giftCards: { soldCents: 5000, soldCount: 1, redeemedCents: 5000, voidedCents: 0, outstandingCents: 0, walletCreditCents: 3036, spentCents: 1964, liabilityCents: 3036 },
    };
    const csv = salesCsv(overview).split('\r\n');
    expect(csv).toContain('Sales tax,2,9.25,0.00');
    expect(csv).toContain('Germany,1,0.00,7.23');
    expect(csv).toContain(
      'gift_cards_sold_count,gift_cards_sold_usd,gift_cards_redeemed_usd,gift_cards_voided_usd,gift_cards_spent_usd,gift_cards_outstanding_usd,gift_cards_wallet_credit_usd,gift_cards_liability_usd',
    );
    expect(csv).toContain('1,50.00,50.00,0.00,19.64,0.00,30.36,30.36');
    expect(csv[2]!.split(',')).toContain('net_sales_usd');
    expect(csv).toContain('net_sales_usd,Net sales,"Gross sales - discounts - returns: the goods\' revenue, the figure the artists\' splits are shares of."');
    const definitions = csv.slice(csv.indexOf('column,figure,definition') + 1).filter(Boolean);
    expect(definitions).toHaveLength(SALES_FIGURES.length + 8);
  });
});

describe('periodDays', () => {
  it.each([
    ['2026-11-01', '2026-11-30', 30],
    ['2026-11-01', '2026-11-01', 1],
    ['2024-01-01', '2024-12-31', 366],
    ['2025-01-01', '2026-01-02', null],
    ['2026-11-02', '2026-11-01', null],
    ['2026-02-30', '2026-03-01', null],
  ] as const)('%s to %s: %s', (from, to, days) => {
    expect(periodDays(from, to)).toBe(days);
  });
});
