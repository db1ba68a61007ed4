import { describe, expect, it } from 'vitest';
import { receiptLines, type ReceiptLine, type ReceiptTax, type ReceiptTotals } from './receipts.ts';

const sum = (lines: ReceiptLine[], upTo: string) => {
  const end = lines.findIndex((line) => line.label === upTo);
  return lines.slice(0, end).reduce((total, line) => total + (line.label.startsWith('Tax included') || line.total ? 0 : line.cents), 0);
};

describe('receiptLines: the lines add up to the total and to the card charge (issue 39)', () => {
  const cases: { name: string; totals: ReceiptTotals; tax?: ReceiptTax; code?: string; labels: string[]; total: number; charged?: number }[] = [
    {
      name: 'card and wallet, tax added, a card fee',
      totals: { subtotalCents: 50_000, shippingCents: 999, taxCents: 4717, walletAppliedCents: 50_000, chargedCents: 5882 },
      labels: ['Subtotal', 'Shipping', 'Tax', 'Total', 'Wallet credit applied', 'Card processing fee', 'Charged to card'],
      total: 55_716,
      charged: 5882,
    },
    {
      name: 'wallet only, a discount code, a named method',
      totals: { subtotalCents: 2500, discountCents: 250, shippingCents: 0, taxCents: 208, walletAppliedCents: 2458, chargedCents: 0 },
      tax: { jurisdiction: 'Sales tax', includedCents: 0, shippingMethod: 'Pickup' },
      code: 'SAVE10',
      labels: ['Subtotal', 'Discount (SAVE10)', 'Shipping (Pickup)', 'Tax (Sales tax)', 'Total', 'Wallet credit applied'],
      total: 2458,
    },
    {
      name: 'VAT inside the prices: shown, not added',
      totals: { subtotalCents: 1190, shippingCents: 500, taxCents: 0, walletAppliedCents: 0, chargedCents: 1772 },
      tax: { jurisdiction: 'DE VAT', includedCents: 190, shippingMethod: null },
      labels: ['Subtotal', 'Shipping', 'Tax included (DE VAT)', 'Total', 'Card processing fee', 'Charged to card'],
      total: 1690,
      charged: 1772,
    },
  ];
  for (const example of cases) {
    it(example.name, () => {
      const lines = receiptLines(example.totals, example.tax, example.code);
      expect(lines.map((line) => line.label)).toEqual(example.labels);
      const total = lines.find((line) => line.label === 'Total')!.cents;
      expect(total).toBe(example.total);
      expect(sum(lines, 'Total')).toBe(total);
      if (example.charged !== undefined) {
        const after = lines.slice(lines.findIndex((line) => line.label === 'Total') + 1);
        expect(total + after.filter((line) => !line.total).reduce((s, line) => s + line.cents, 0)).toBe(example.charged);
        expect(lines.at(-1)).toEqual({ label: 'Charged to card', cents: example.charged, total: true });
      }
    });
  }
});
