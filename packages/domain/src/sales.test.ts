import { describe, expect, it } from 'vitest';
import { periodDays, salesCsv, type SalesOverview } from './sales.ts';

const zero = {
  orders: 0,
  grossSalesCents: 0,
  discountsCents: 0,
  shippingCents: 0,
  taxCents: 0,
  cardFeesCents: 0,
  paidCents: 0,
  paidWalletCents: 0,
  paidCardCents: 0,
  refundsCents: 0,
  refundedWalletCents: 0,
  refundedCardCents: 0,
  netSalesCents: 0,
};
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
