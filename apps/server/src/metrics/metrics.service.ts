import type pg from 'pg';

/**
 * The shop-wide figures of /metrics (decision 040), read from the database: the job queue
 * and the money figures an operator pages on. Every instance reads the same rows, so they
 * are the same on every instance (alert on `max`, not `sum`). Each statement is one
 * snapshot and uses an index or a small table; the collector runs them at most once per
 * FIGURES_TTL_MS per process, whatever the number of scrapers.
 *
 * The money queries read other areas' tables (checkout, order_refund, payment_refund,
 * product_variant) read-only, by plain SQL: they are the documented definitions of the
 * figures, and the owners of those areas may replace a query with their own service call
 * (`ShopFigureQueries`) without changing the metric's name or meaning.
 */

export interface JobCount {
  queue: string;
  state: string;
  count: number;
}

export interface ShopFigures {
  /** pg-boss jobs waiting (created, retry), running (active) or given up (failed), per queue. */
  jobs: JobCount[];
  /** Every checkout by status: paid, failed, expired, cancelled, refunded, pending. */
  checkoutsByStatus: { status: string; count: number }[];
  /** Refunds the provider refused: the order desk's, and the card refunds of late payments. */
  refundsFailed: { kind: 'order' | 'late_payment'; count: number }[];
  checkoutsNeedingAttention: number;
  stockInvariantBreaks: number;
}

/** A query of one figure; replaceable by the area that owns the tables (see above). */
export type FigureQuery<T> = (pool: pg.Pool) => Promise<T>;

export interface ShopFigureQueries {
  jobs: FigureQuery<JobCount[]>;
  checkoutsByStatus: FigureQuery<ShopFigures['checkoutsByStatus']>;
  refundsFailed: FigureQuery<ShopFigures['refundsFailed']>;
  checkoutsNeedingAttention: FigureQuery<number>;
  stockInvariantBreaks: FigureQuery<number>;
}

/** How long past its expiry a checkout may stay pending before someone should look (the reconciler runs every few minutes). */
export const STUCK_CHECKOUT_AFTER = '1 hour';

export const defaultFigureQueries: ShopFigureQueries = {
  async jobs(pool) {
    // Completed and cancelled jobs are history; pg-boss deletes them itself. A waiting job not
    // due yet (an expiry in 10 minutes, a retry's back-off) is `scheduled`, so `created` and
    // `retry` count only what is due: the "jobs piling up" alert (issue 40 item 17).
    const { rows } = await pool.query<JobCount>(
      `SELECT name AS queue, CASE WHEN state IN ('created', 'retry') AND start_after > now() THEN 'scheduled' ELSE state::text END AS state,
              count(*)::int AS count
       FROM pgboss.job WHERE state IN ('created', 'retry', 'active', 'failed') GROUP BY 1, 2`,
    );
    return rows;
  },
  async checkoutsByStatus(pool) {
    // An index-only scan of checkout_pending_idx (status, expires_at).
    const { rows } = await pool.query<{ status: string; count: number }>('SELECT status, count(*)::int AS count FROM checkout GROUP BY status');
    return rows;
  },
  async refundsFailed(pool) {
    const { rows } = await pool.query<{ order: number; late: number }>(
      `SELECT (SELECT count(*)::int FROM order_refund WHERE status = 'failed') AS "order",
              (SELECT count(*)::int FROM payment_refund WHERE failure IS NOT NULL AND refunded_at IS NULL) AS late`,
    );
    return [
      { kind: 'order', count: rows[0]!.order },
      { kind: 'late_payment', count: rows[0]!.late },
    ];
  },
  /**
   * What a person must look at: the reconciler's open findings (the console's "needs
   * attention", decision 044), plus checkouts still pending an hour after their deadline
   * (the release job and the reconciler both missed them) and late payments whose card
   * refund the provider refused (an admin settles those by hand).
   */
  async checkoutsNeedingAttention(pool) {
    const { rows } = await pool.query<{ n: number }>(
      `SELECT (SELECT count(*)::int FROM needs_attention WHERE resolved_at IS NULL)
            + (SELECT count(*)::int FROM checkout WHERE status = 'pending' AND expires_at < now() - interval '${STUCK_CHECKOUT_AFTER}')
            + (SELECT count(*)::int FROM payment_refund WHERE failure IS NOT NULL AND refunded_at IS NULL) AS n`,
    );
    return rows[0]!.n;
  },
  /**
   * Variants whose stock columns break the stock invariant (stock + held + sold = what was
   * stocked): what a variant holds must be exactly what its pending card checkouts set
   * aside (lines marked stockHeld), and an unlimited variant (stock null) holds nothing.
   * One statement, so one snapshot: a checkout and its hold change in one transaction.
   */
  async stockInvariantBreaks(pool) {
    const { rows } = await pool.query<{ n: number }>(
      `WITH pending_holds AS (
         SELECT line->>'variantId' AS variant_id, sum((line->>'qty')::int) AS qty
         FROM checkout c CROSS JOIN LATERAL jsonb_array_elements(c.items) AS line
         WHERE c.status = 'pending' AND coalesce((line->>'stockHeld')::boolean, false)
         GROUP BY 1)
       SELECT count(*)::int AS n FROM product_variant v LEFT JOIN pending_holds p ON p.variant_id = v.id
       WHERE v.held <> coalesce(p.qty, 0) OR (v.stock IS NULL AND v.held <> 0)`,
    );
    return rows[0]!.n;
  },
};

/** Every figure at once; one that fails is left out (and counted by the caller), the others still answer. */
export async function readShopFigures(pool: pg.Pool, queries: ShopFigureQueries, onError: (figure: string, error: unknown) => void): Promise<Partial<ShopFigures>> {
  const figures: Partial<ShopFigures> = {};
  // One after the other: a scrape takes one pooled connection at a time, never five.
  for (const name of Object.keys(queries) as (keyof ShopFigureQueries)[]) {
    try {
      (figures as Record<string, unknown>)[name] = await queries[name](pool);
    } catch (error) {
      onError(name, error);
    }
  }
  return figures;
}
