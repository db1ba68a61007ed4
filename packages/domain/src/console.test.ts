import { describe, expect, it } from 'vitest';
import { salesCsv } from './console.ts';

describe('salesCsv', () => {
  it('quotes a product name holding the separator of either spreadsheet convention', () => {
    const csv = salesCsv({
      days: 30,
      byDay: [],
      byProduct: [
        { productId: 'p1', name: 'Tee; black', qty: 1, walletCents: 100, cardCents: 0 },
        { productId: 'p2', name: 'Sales, "Tee"', qty: 2, walletCents: 0, cardCents: 200 },
        { productId: 'p3', name: '=1+1', qty: 1, walletCents: 0, cardCents: 0 },
      ],
      ordersToShip: 0,
    });
    expect(csv).toContain('p1,"Tee; black",1,1.00,0.00,1.00\r\n');
    expect(csv).toContain('p2,"Sales, ""Tee""",2,0.00,2.00,2.00\r\n');
    expect(csv).toContain("p3,'=1+1,1,0.00,0.00,0.00\r\n");
  });
});
