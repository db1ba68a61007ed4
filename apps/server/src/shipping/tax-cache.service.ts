import { createHash } from 'node:crypto';
import { and, eq, gt, lt } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { taxCalculations } from '../db/schema/index.ts';
import type { TaxCalculator, TaxRequest } from './stripe-tax.ts';

/** How long a calculation is reused (issue 40 item 7: "for 10 minutes"). */
export const TAX_CALCULATION_TTL_MS = 10 * 60 * 1000;

type Calculated = Awaited<ReturnType<TaxCalculator['calculate']>>;

/** The request's key: its JSON with object keys sorted, hashed (the same cart and address in any key order are one request). */
export function taxRequestKey(request: TaxRequest): string {
  const canonical = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(canonical)
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(
            Object.entries(value)
              .filter(([, inner]) => inner !== undefined)
              .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
              .map(([name, inner]) => [name, canonical(inner)]),
          )
        : value;
  return createHash('sha256')
    .update(JSON.stringify(canonical(request)))
    .digest('hex');
}

/**
 * Stripe Tax with its calculations kept in PostgreSQL for `ttlMs` (issue 40 item 7): each is a
 * billed call, and the rate limits alone still let one account quote 60 times a minute. An
 * unchanged request (cart lines at their prices after the code, shipping, address, inclusive
 * prices) within the window gets the stored calculation, on any instance; so the order's tax is
 * the tax its quote showed, recorded from the same calculation. A failed call stores nothing.
 * Two instances asking for a new key at once may both call Stripe; the last answer is kept.
 */
export function withCalculationCache(db: Db, tax: TaxCalculator, ttlMs = TAX_CALCULATION_TTL_MS): TaxCalculator {
  return {
    ...tax,
    async calculate(request) {
      const key = taxRequestKey(request);
      const [kept] = await db
        .select({ result: taxCalculations.result })
        .from(taxCalculations)
        .where(and(eq(taxCalculations.key, key), gt(taxCalculations.expiresAt, new Date())));
      if (kept) return kept.result as Calculated;
      const result = await tax.calculate(request);
      const expiresAt = new Date(Date.now() + ttlMs);
      await db.insert(taxCalculations).values({ key, result, expiresAt }).onConflictDoUpdate({ target: taxCalculations.key, set: { result, expiresAt } });
      return result;
    },
  };
}

/** Removes calculations past their window (the cleanup job's step). */
export async function sweepTaxCalculations(db: Db, now = new Date()): Promise<number> {
  const gone = await db.delete(taxCalculations).where(lt(taxCalculations.expiresAt, now)).returning({ key: taxCalculations.key });
  return gone.length;
}
