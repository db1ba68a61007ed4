import { sql } from 'drizzle-orm';
import type { SalesOverview } from '@storefront/domain/console.ts';
import type { Db } from '../db/client.ts';

/**
 * The console's sales overview (issue 18): the last `days` days (UTC), by day and by
 * product, each split into what wallet credit paid and what the card paid. A product's
 * line gets its order's wallet share of the line's value (rounded down; the card gets the
 * rest), so the split of every line sums to the line. Shipping and tax are in the days'
 * totals, not the products'.
 */
export async function salesOverview(db: Db, days: number): Promise<SalesOverview> {
  const since = sql`(date_trunc('day', now() AT TIME ZONE 'UTC') - make_interval(days => ${days - 1})) AT TIME ZONE 'UTC'`;
  const byDay = await db.execute<{ day: string; orders: string; wallet: string; card: string }>(sql`
    SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::text AS orders,
           sum(wallet_applied_cents)::text AS wallet, sum(charged_cents)::text AS card
    FROM "order" WHERE created_at >= ${since} GROUP BY 1 ORDER BY 1`);
  const byProduct = await db.execute<{ product_id: string; name: string; qty: string; wallet: string; card: string }>(sql`
    WITH lines AS (
      SELECT i.product_id, i.name, i.qty, i.qty * i.unit_cents AS value,
             CASE WHEN o.wallet_applied_cents + o.charged_cents = 0 THEN 0
                  ELSE (i.qty * i.unit_cents * o.wallet_applied_cents) / (o.wallet_applied_cents + o.charged_cents) END AS wallet,
             o.created_at
      FROM order_item i JOIN "order" o ON o.id = i.order_id
      WHERE o.created_at >= ${since}
    )
    SELECT product_id, (array_agg(name ORDER BY created_at DESC))[1] AS name, sum(qty)::text AS qty,
           sum(wallet)::text AS wallet, sum(value - wallet)::text AS card
    FROM lines GROUP BY product_id ORDER BY sum(value) DESC, product_id`);
  const [toShip] = (await db.execute<{ count: string }>(sql`SELECT count(*)::text AS count FROM "order" WHERE NOT order_fulfilled`)).rows;
  return {
    days,
    byDay: byDay.rows.map((row) => ({ day: row.day, orders: Number(row.orders), walletCents: Number(row.wallet), cardCents: Number(row.card) })),
    byProduct: byProduct.rows.map((row) => ({ productId: row.product_id, name: row.name, qty: Number(row.qty), walletCents: Number(row.wallet), cardCents: Number(row.card) })),
    ordersToShip: Number(toShip?.count ?? 0),
  };
}
