import { and, asc, desc, eq, getTableColumns, inArray, sql, type SQL } from 'drizzle-orm';
import { orderCursor } from '@storefront/domain/contracts/orders.ts';
import type { Db } from '../db/client.ts';
import { orderItems, orderRefunds, orderShipments, orders } from '../db/schema/index.ts';
import type { Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';
import { giftCardLinesOf } from '../giftcards/giftcards.service.ts';
import type { OrderLine } from './orders.service.ts';

/**
 * Orders as their clients read them (split from orders.service.ts, issue 34): one order's view
 * from its row, lines and parcels, and the keyset-paged lists of My Orders, View Orders and the
 * order desk.
 */
export interface OrderView {
  id: string;
  paymentIntentId: string;
  createdAt: string;
  uid: string;
  items: OrderLine[];
  totals: { subtotalCents: number; shippingCents: number; taxCents: number; walletAppliedCents: number; chargedCents: number; discountCents?: number };
  tax: { jurisdiction: string; includedCents: number; shippingMethod: string | null };
  /** The discount code the order used (issue 27), or null. */
  discountCode?: string | null;
  shipping: { name: string; address: Record<string, string> };
  contact: { name: string; email: string; phone: string };
  orderFulfilled: boolean;
  orderStatus: string | null;
  /** Order desk (issue 16): refunds so far and the parcel's tracking. */
  refundStatus: 'partially_refunded' | 'refunded' | null;
  refunded: { walletCents: number; cardCents: number };
  tracking: { carrier: string; number: string } | null;
  /** A refund is waiting for the payment provider (decision 034). */
  refundPending?: boolean;
  /** The parcels of an order shipped in parts (decision 054), oldest first; each line names its parcel. */
  shipments?: ShipmentView[];
  /** A card dispute (decision 075), absent without one. */
  dispute?: { status: string; amountCents: number };
}

export interface ShipmentView {
  id: string;
  carrier: string | null;
  trackingNumber: string | null;
  shippedAt: string;
}

type OrderRow = typeof orders.$inferSelect;
type OrderItemRow = typeof orderItems.$inferSelect & { giftCard?: boolean };

/**
 * One order as its clients read it, from its row and its own lines: My Orders and the order
 * desk (desk.service.ts adds the line ids) share this mapping. Refunded amounts are what really
 * went back: a pending refund's parts count once the provider (or the ledger) gave them back.
 */
export function orderView(row: OrderRow, items: OrderItemRow[], unsettled: Map<string, { walletCents: number; cardCents: number }>, shipments: ShipmentView[] = []): OrderView {
  const { name, ...address } = row.shipping;
  const pending = unsettled.get(row.id);
  return {
    refundPending: pending !== undefined,
    id: row.id,
    paymentIntentId: row.paymentIntentId,
    createdAt: row.createdAt.toISOString(),
    uid: row.userId,
    items: items.map((item) => ({
      id: item.productId,
      ...(item.variantId ? { variantId: item.variantId } : {}),
      name: item.name,
      qty: item.qty,
      unitCents: item.unitCents,
      ...(item.shipsOn && !item.releasedAt ? { shipsOn: item.shipsOn } : {}),
      ...(item.shipmentId ? { shipmentId: item.shipmentId } : {}),
      ...(item.digital ? { digital: true } : {}),
      ...(item.giftCard ? { giftCard: true } : {}),
      ...(item.components ? { components: item.components } : {}),
    })),
    totals: {
      subtotalCents: row.subtotalCents,
      shippingCents: row.shippingCents,
      taxCents: row.taxCents,
      walletAppliedCents: row.walletAppliedCents,
      chargedCents: row.chargedCents,
      discountCents: row.discountCents,
    },
    tax: { jurisdiction: row.taxJurisdiction, includedCents: row.taxIncludedCents, shippingMethod: row.shippingMethod },
    discountCode: row.discountCode,
    shipping: { name: name ?? '', address },
    contact: row.contact,
    orderFulfilled: row.orderFulfilled,
    orderStatus: row.orderStatus,
    refundStatus: row.refundStatus,
    refunded: {
      walletCents: Math.max(0, row.refundedWalletCents - (pending?.walletCents ?? 0)),
      cardCents: Math.max(0, row.refundedCardCents - (pending?.cardCents ?? 0)),
    },
    tracking: row.carrier && row.trackingNumber ? { carrier: row.carrier, number: row.trackingNumber } : null,
    ...(shipments.length > 0 ? { shipments } : {}),
    ...(row.disputeStatus ? { dispute: { status: row.disputeStatus, amountCents: row.disputeAmountCents ?? 0 } } : {}),
  };
}

/** The parcels of these orders (decision 054), oldest first, by order. */
export async function shipmentsOf(db: Db | Tx, ids: string[]): Promise<Map<string, ShipmentView[]>> {
  const byOrder = new Map<string, ShipmentView[]>();
  if (ids.length === 0) return byOrder;
  const rows = await db.select().from(orderShipments).where(inArray(orderShipments.orderId, ids)).orderBy(asc(orderShipments.createdAt), asc(orderShipments.id));
  for (const row of rows) {
    const view = { id: row.id, carrier: row.carrier, trackingNumber: row.trackingNumber, shippedAt: row.createdAt.toISOString() };
    byOrder.set(row.orderId, [...(byOrder.get(row.orderId) ?? []), view]);
  }
  return byOrder;
}

/** The lines of these orders, in order. */
export async function orderItemsOf(db: Db, ids: string[]): Promise<OrderItemRow[]> {
  if (ids.length === 0) return [];
  const [items, giftCards] = [
    await db.select().from(orderItems).where(inArray(orderItems.orderId, ids)).orderBy(asc(orderItems.orderId), asc(orderItems.position)),
    await giftCardLinesOf(db, ids),
  ];
  // Whether a line is a gift card (issue 39): the confirmation says it goes by email, not "downloads only".
  return items.map((item) => (giftCards.has(`${item.orderId} ${item.variantId ?? item.productId}`) ? { ...item, giftCard: true } : item));
}

async function views(db: Db, rows: PageRow[]): Promise<OrderView[]> {
  if (rows.length === 0) return [];
  const items = await orderItemsOf(
    db,
    rows.map((row) => row.id),
  );
  const unsettled = unsettledOfPage(rows);
  return rows.map((row) =>
    orderView(
      row,
      items.filter((item) => item.orderId === row.id),
      unsettled,
      row.pageShipments ?? undefined,
    ),
  );
}

/** The pending refunds of a page's orders, as unsettledRefunds gives them, from the page's rows. */
export function unsettledOfPage(rows: PageRow[]): Map<string, { walletCents: number; cardCents: number }> {
  return new Map(rows.flatMap((row) => (row.pendingRefunds ? [[row.id, row.pendingRefunds] as const] : [])));
}

/** The parcels of a page's orders, as shipmentsOf gives them, from the page's rows. */
export function shipmentsOfPage(rows: PageRow[]): Map<string, ShipmentView[]> {
  return new Map(rows.flatMap((row) => (row.pageShipments ? [[row.id, row.pageShipments] as const] : [])));
}

export interface Page<T> {
  items: T[];
  /** Pass back as `after` for the next page; null on the last one. */
  next: string | null;
}

/**
 * The list rows, with created_at in full precision for the next cursor, and what else a page
 * shows of each order from this area's tables: its pending refunds, summed as
 * unsettledRefunds sums them (null when none is pending), and its parcels, oldest first, as
 * shipmentsOf gives them. Read with the page, by their order-id indexes: one round trip
 * instead of three, at 1,000,000 orders the larger part of a page's time (issue 38).
 */
const listedColumns = {
  ...getTableColumns(orders),
  cursorMicros: sql<string>`(extract(epoch from ${orders.createdAt}) * 1000000)::bigint::text`,
  // Written out in full: in a one-table select Drizzle names columns without their table, and
  // the subquery's "id" would be its own table's.
  pendingRefunds: sql<{ walletCents: number; cardCents: number } | null>`(SELECT json_build_object(
      'walletCents', coalesce(sum(CASE WHEN r.wallet_refunded_at IS NULL THEN r.wallet_cents ELSE 0 END), 0),
      'cardCents', coalesce(sum(r.card_cents), 0))
    FROM ${orderRefunds} AS r WHERE r.order_id = "order"."id" AND r.status = 'pending' HAVING count(*) > 0)`,
  pageShipments: sql<ShipmentView[] | null>`(SELECT json_agg(json_build_object(
      'id', s.id, 'carrier', s.carrier, 'trackingNumber', s.tracking_number,
      'shippedAt', to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) ORDER BY s.created_at, s.id)
    FROM ${orderShipments} AS s WHERE s.order_id = "order"."id")`,
};

/** A row of a page of orders (orderRowsPage). */
export type PageRow = OrderRow & { cursorMicros: string; pendingRefunds: { walletCents: number; cardCents: number } | null; pageShipments: ShipmentView[] | null };

function cursorOf(row: { cursorMicros: string; id: string }): string {
  return `${row.cursorMicros}|${row.id}`;
}

/** Epoch microseconds as an ISO 8601 text with six decimals, which Postgres reads exactly. */
function isoOfMicros(micros: bigint): string {
  const millis = micros / 1000n - (micros % 1000n < 0n ? 1n : 0n);
  const rest = micros - millis * 1000n;
  return new Date(Number(millis)).toISOString().replace('Z', `${String(rest).padStart(3, '0')}Z`);
}

function afterCursor(after: string | undefined) {
  if (after === undefined) return undefined;
  if (!orderCursor.safeParse(after).success) throw new AppError('invalid-argument', 'That page cursor is not valid.');
  const [micros, id] = after.split('|') as [string, string];
  // A row comparison: Postgres starts the index scan at the cursor (the same condition
  // written with OR is only a filter, read through every newer order first).
  return sql`(${orders.createdAt}, ${orders.id}) < (${isoOfMicros(BigInt(micros))}::timestamptz, ${id})`;
}

/**
 * A page of orders matching `where`, newest first, by the keyset cursor (indexed: each list has
 * an index in this order). My Orders, View Orders and the order desk read their pages here.
 */
export async function orderRowsPage(db: Db, where: SQL | undefined, options: { limit: number; after?: string }) {
  const rows = await db
    .select(listedColumns)
    .from(orders)
    .where(and(where, afterCursor(options.after)))
    .orderBy(desc(orders.createdAt), desc(orders.id))
    .limit(options.limit + 1);
  const page = rows.slice(0, options.limit);
  return { rows: page, next: rows.length > options.limit ? cursorOf(page.at(-1)!) : null };
}

/** The caller's own orders, newest first, a page at a time (keyset, indexed). */
export async function listOrdersOf(db: Db, userId: string, options: { limit: number; after?: string }): Promise<Page<OrderView>> {
  const { rows, next } = await orderRowsPage(db, eq(orders.userId, userId), options);
  return { items: await views(db, rows), next };
}

/** Admins' View Orders: orders not yet fulfilled, newest first. */
export async function listOpenOrders(db: Db, options: { limit: number; after?: string }): Promise<Page<OrderView>> {
  const { rows, next } = await orderRowsPage(db, eq(orders.orderFulfilled, false), options);
  return { items: await views(db, rows), next };
}

export async function getOrderByPaymentIntent(db: Db, userId: string, paymentIntentId: string): Promise<OrderView | null> {
  const rows = await db
    .select(listedColumns)
    .from(orders)
    .where(and(eq(orders.paymentIntentId, paymentIntentId), eq(orders.userId, userId)));
  return (await views(db, rows))[0] ?? null;
}
