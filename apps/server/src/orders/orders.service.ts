import { randomBytes } from 'node:crypto';
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { BundlePart } from '@storefront/domain/bundles.ts';
import type { Db } from '../db/client.ts';
import { orderItems, orders } from '../db/schema/index.ts';
import { preparedRows, type Tx } from '../db/transaction.ts';
import { publishLive } from '../live/live.publish.ts';

/**
 * The order rows (issue 34 split this file by what it does): writing an order once per
 * checkout, the units orders bought, and an order's Stripe Tax record. How clients read orders
 * is order-views.service.ts; shipping them, shipments.service.ts.
 */

export interface OrderLine {
  id: string;
  /** The variant bought (issue 15); absent on orders made before variants. */
  variantId?: string;
  /** The product's name, with the variant's values: "Logo Tee - L / Black". */
  name: string;
  qty: number;
  unitCents: number;
  /** The line's tax basis (decision 060): its goods after any discount and the tax added on them. */
  paidCents?: number;
  taxCents?: number;
  /** A preorder line (decision 054): the street date it ships on; absent once it is out. */
  shipsOn?: string;
  /** The parcel this line left in when the order ships in parts (decision 054). */
  shipmentId?: string;
  /** Files, not a parcel (issue 28): absent for a line that ships. */
  digital?: boolean;
  /** A bundle line (issue 27, decision 055): the component variants it took, per bundle. */
  components?: BundlePart[];
}

/**
 * The status of an order with nothing to ship (issue 28, decision 061): it is complete when
 * placed, so it is fulfilled at once and never waits on the desk's "to ship" list.
 */
export const DELIVERED_STATUS = 'delivered';

/** Whether an order's lines are all digital (nothing to pack). */
export function allDigital(items: readonly { digital?: boolean }[]): boolean {
  return items.length > 0 && items.every((item) => item.digital === true);
}

/** What a discount's return needs of an order: its checkout and whether it was refunded in full (issue 27). */
export async function orderRefundState(db: Db | Tx, orderId: string): Promise<{ checkoutId: string; refundStatus: string | null } | undefined> {
  const [row] = await db.select({ checkoutId: orders.checkoutId, refundStatus: orders.refundStatus }).from(orders).where(eq(orders.id, orderId));
  return row;
}

/** The order a checkout id made, if any. */
export async function orderOfCheckout(db: Db | Tx, checkoutId: string): Promise<{ orderId: string; paymentIntentId: string } | undefined> {
  const [row] = await db.select({ orderId: orders.id, paymentIntentId: orders.paymentIntentId }).from(orders).where(eq(orders.checkoutId, checkoutId));
  return row;
}

/**
 * Units of these variants the buyer's orders bought, alone or as a bundle's part, fully
 * refunded orders aside (per-customer limits count them however they were bought: decision
 * 044, issue 40 item 6).
 */
export async function unitsBoughtBy(tx: Tx, userId: string, variantIds: string[]): Promise<Map<string, number>> {
  const ids = sql.join(
    variantIds.map((id) => sql`${id}`),
    sql`, `,
  );
  const rows = await tx.execute<{ variant_id: string; qty: number }>(sql`
    SELECT variant_id, sum(qty)::int AS qty FROM (
      SELECT i.variant_id, i.qty FROM ${orderItems} i JOIN ${orders} o ON o.id = i.order_id
      WHERE o.user_id = ${userId} AND o.refund_status IS DISTINCT FROM 'refunded' AND i.components IS NULL AND i.variant_id IN (${ids})
      UNION ALL
      SELECT part->>'variantId', i.qty * (part->>'qty')::int
      FROM ${orderItems} i JOIN ${orders} o ON o.id = i.order_id, jsonb_array_elements(i.components) AS part
      WHERE o.user_id = ${userId} AND o.refund_status IS DISTINCT FROM 'refunded' AND i.components IS NOT NULL AND part->>'variantId' IN (${ids})
    ) AS bought GROUP BY 1`);
  return new Map(rows.rows.map((row) => [row.variant_id, Number(row.qty)]));
}

/** Units sold of each of these variants by all orders (the reconciler's invariant: a variant's `sold`). */
export async function unitsSold(db: Db | Tx, variantIds: string[]): Promise<Map<string, number>> {
  if (variantIds.length === 0) return new Map();
  // A bundle line sold its parts (issue 27, decision 055): qty of each part per bundle.
  const rows = await db.execute<{ variant_id: string; qty: number }>(sql`
    SELECT variant_id, sum(qty)::int AS qty FROM (
      SELECT ${orderItems.variantId} AS variant_id, ${orderItems.qty} AS qty FROM ${orderItems}
      WHERE ${orderItems.variantId} IN (${sql.join(
        variantIds.map((id) => sql`${id}`),
        sql`, `,
      )}) AND ${orderItems.components} IS NULL
      UNION ALL
      SELECT part->>'variantId', ${orderItems.qty} * (part->>'qty')::int FROM ${orderItems}, jsonb_array_elements(${orderItems.components}) AS part
      WHERE ${orderItems.components} IS NOT NULL AND part->>'variantId' IN (${sql.join(
        variantIds.map((id) => sql`${id}`),
        sql`, `,
      )})
    ) AS sold GROUP BY variant_id`);
  return new Map(rows.rows.map((row) => [row.variant_id, Number(row.qty)]));
}

/** Units of one variant bought by all orders (a variant that starts counting its stock, variants.service.ts setStock). */
export async function unitsSoldOf(tx: Tx, variantId: string): Promise<number> {
  return (await unitsSold(tx, [variantId])).get(variantId) ?? 0;
}

export interface NewOrder {
  userId: string;
  checkoutId: string;
  paymentIntentId: string;
  items: OrderLine[];
  subtotalCents: number;
  shippingCents: number;
  taxCents: number;
  walletAppliedCents: number;
  chargedCents: number;
  /** Issue 26 (decision 051); absent: the spec's default (no jurisdiction, nothing included). */
  taxJurisdiction?: string;
  taxIncludedCents?: number;
  shippingMethod?: string | null;
  taxCalculationId?: string | null;
  /** The tax added on the shipping (decision 060); absent: not kept (refunds use 9.25%). */
  shippingTaxCents?: number | null;
  /** A discount code's part (issue 27): absent, none. */
  discountCents?: number;
  discountCode?: string | null;
  contact: { name: string; email: string; phone: string };
  shipping: Record<string, string>;
}

export function newOrderId(): string {
  return `o_${randomBytes(9).toString('base64url')}`;
}

/** The order's insert, built once per set of columns (a Drizzle build costs more than its round trip). */
const insertOrderStatements = new Map<string, { name: string; text: string; params: unknown[] }>();

/**
 * The order and its items in one statement (one round trip instead of three): the items come
 * from the `inserted` row, so a checkout id already used adds none. Its values are placeholders
 * named as the columns, the items one jsonb placeholder `lines`.
 */
function insertOrderStatement(tx: Tx, columns: string[]): { name: string; text: string; params: unknown[] } {
  const key = columns.join(',');
  const built = insertOrderStatements.get(key);
  if (built) return built;
  const placeholders = Object.fromEntries(columns.filter((column) => column !== 'lines').map((column) => [column, sql.placeholder(column)]));
  const inserted = tx.$with('inserted').as(
    tx
      .insert(orders)
      .values(placeholders as unknown as typeof orders.$inferInsert)
      .onConflictDoNothing({ target: orders.checkoutId })
      .returning({ id: orders.id }),
  );
  const insertedItems = tx.$with('inserted_items').as(
    tx
      .insert(orderItems)
      .select(
        sql`SELECT ${inserted.id}, line.position, line.product_id, line.variant_id, line.name, line.qty, line.unit_cents, line.paid_cents, line.tax_cents,
                   line.ships_on, NULL::timestamptz, NULL::text, line.digital, line.components
            FROM ${inserted}, jsonb_to_recordset(${sql.placeholder('lines')}::jsonb)
              AS line(position integer, product_id text, variant_id text, name text, qty integer, unit_cents bigint, paid_cents bigint, tax_cents bigint, ships_on date, digital boolean, components jsonb)`,
      )
      .returning({ orderId: orderItems.orderId }),
  );
  const query = tx.with(inserted, insertedItems).select({ id: inserted.id }).from(inserted).toSQL();
  // Named, so each connection parses and plans it once (decision 015): one name per text.
  const statement = { name: `insert_order_${insertOrderStatements.size + 1}`, text: query.sql, params: query.params };
  insertOrderStatements.set(key, statement);
  return statement;
}

/**
 * Writes the order once per checkout: the unique checkout id makes a second insert a
 * no-op. Returns the order id, and whether this call created it. The order and its items
 * are one statement (one round trip instead of three): the items come from the `inserted`
 * row, so a checkout id already used adds none. The buyer's and the admins' live
 * announcements are said after the commit (decision 067), only when this call created it.
 */
export async function insertOrder(tx: Tx, order: NewOrder): Promise<{ id: string; created: boolean }> {
  const {
    items,
    taxJurisdiction = '',
    taxIncludedCents = 0,
    shippingMethod = null,
    taxCalculationId = null,
    shippingTaxCents = null,
    discountCents,
    discountCode,
    ...rest
  } = order;
  const id = newOrderId();
  const delivered = allDigital(items);
  // Every column always given: one text, built once per set of columns (and named for PostgreSQL).
  const values: Record<string, unknown> = {
    id,
    ...rest,
    taxJurisdiction,
    taxIncludedCents,
    shippingMethod,
    taxCalculationId,
    shippingTaxCents,
    discountCents: discountCents ?? 0,
    discountCode: discountCode ?? null,
    orderFulfilled: delivered,
    orderStatus: delivered ? DELIVERED_STATUS : null,
    fulfilledAt: delivered ? new Date() : null,
    lines: JSON.stringify(
      items.map((item, position) => ({
        position,
        product_id: item.id,
        variant_id: item.variantId ?? null,
        name: item.name,
        qty: item.qty,
        unit_cents: item.unitCents,
        paid_cents: item.paidCents ?? null,
        tax_cents: item.taxCents ?? null,
        ships_on: item.shipsOn ?? null,
        digital: item.digital === true,
        components: item.components ?? null,
      })),
    ),
  };
  const statement = insertOrderStatement(tx, Object.keys(values));
  const created = await preparedRows<{ id: string }>(tx, statement, values);
  if (created.length > 0) {
    await publishLive(tx, { topic: 'orders', userId: order.userId, id }, { topic: 'all-orders', id });
    return { id, created: true };
  }
  const [existing] = await tx.select({ id: orders.id }).from(orders).where(eq(orders.checkoutId, order.checkoutId));
  return { id: existing!.id, created: false };
}

/** An order's Stripe Tax calculation and recorded transaction (issue 26, decision 051). */
export async function taxRecordOfOrder(db: Db, orderId: string) {
  const [row] = await db
    .select({ calculationId: orders.taxCalculationId, transactionId: orders.taxTransactionId, refundStatus: orders.refundStatus })
    .from(orders)
    .where(eq(orders.id, orderId));
  return row;
}

/** Keeps the Stripe Tax transaction recorded for an order (once; a repeat changes nothing). */
export async function setTaxTransaction(db: Db, orderId: string, transactionId: string): Promise<void> {
  await db
    .update(orders)
    .set({ taxTransactionId: transactionId })
    .where(and(eq(orders.id, orderId), isNull(orders.taxTransactionId)));
}
