import { randomBytes } from 'node:crypto';
import { and, asc, desc, eq, getTableColumns, inArray, isNotNull, isNull, sql, type SQL } from 'drizzle-orm';
import { orderCursor } from '@storefront/domain/contracts/orders.ts';
import { CHECKOUT_MESSAGES } from '@storefront/domain/pricing.ts';
import { REFUND_MESSAGES } from '@storefront/domain/refunds.ts';
import { formatShipDate, PREORDER_MESSAGES } from '@storefront/domain/preorders.ts';
import { recordAudit, type Actor } from '../audit/audit.service.ts';
import type { Db } from '../db/client.ts';
import { orderEvents, orderItems, orderRefunds, orderShipments, orders, users } from '../db/schema/index.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import type { BundlePart } from '@storefront/domain/bundles.ts';
import { AppError } from '../errors.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { publishLive } from '../live/live.publish.ts';
import { shippedMail } from '../mail/templates.ts';
import { giftCardLinesOf } from '../giftcards/giftcards.service.ts';
import { refundsCoverOrder } from './refunds.service.ts';

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
 * Units of these variants the buyer's orders bought, fully refunded orders aside (per-customer
 * limits count them, decision 044).
 */
export async function unitsBoughtBy(tx: Tx, userId: string, variantIds: string[]): Promise<Map<string, number>> {
  const rows = await tx
    .select({ variantId: orderItems.variantId, qty: sql<number>`sum(${orderItems.qty})`.mapWith(Number) })
    .from(orderItems)
    .innerJoin(orders, eq(orders.id, orderItems.orderId))
    .where(and(eq(orders.userId, userId), inArray(orderItems.variantId, variantIds), sql`${orders.refundStatus} IS DISTINCT FROM 'refunded'`))
    .groupBy(orderItems.variantId);
  return new Map(rows.map((row) => [row.variantId!, row.qty]));
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
}

export interface ShipmentView {
  id: string;
  carrier: string | null;
  trackingNumber: string | null;
  shippedAt: string;
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
  // Every column always given: the statement below is prepared under one name.
  const fields = { ...rest, taxJurisdiction, taxIncludedCents, shippingMethod, taxCalculationId, shippingTaxCents };
  const id = newOrderId();
  const delivered = allDigital(items);
  const inserted = tx.$with('inserted').as(
    tx
      .insert(orders)
      // Every column always given (one prepared text): no discount is 0 and null.
      .values({
        id,
        ...fields,
        discountCents: discountCents ?? 0,
        discountCode: discountCode ?? null,
        orderFulfilled: delivered,
        orderStatus: delivered ? DELIVERED_STATUS : null,
        fulfilledAt: delivered ? new Date() : null,
      })
      .onConflictDoNothing({ target: orders.checkoutId })
      .returning({ id: orders.id }),
  );
  const lines = JSON.stringify(
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
  );
  const insertedItems = tx.$with('inserted_items').as(
    tx
      .insert(orderItems)
      .select(
        sql`SELECT ${inserted.id}, line.position, line.product_id, line.variant_id, line.name, line.qty, line.unit_cents, line.paid_cents, line.tax_cents,
                   line.ships_on, NULL::timestamptz, NULL::text, line.digital, line.components
            FROM ${inserted}, jsonb_to_recordset(${lines}::jsonb)
              AS line(position integer, product_id text, variant_id text, name text, qty integer, unit_cents bigint, paid_cents bigint, tax_cents bigint, ships_on date, digital boolean, components jsonb)`,
      )
      .returning({ orderId: orderItems.orderId }),
  );
  // Named, so each connection parses and plans it once (decision 015). A name stands for one
  // text: every column is always given and the items are one jsonb parameter.
  const created = await tx.with(inserted, insertedItems).select({ id: inserted.id }).from(inserted).prepare('insert_order').execute();
  if (created.length > 0) {
    await publishLive(tx, { topic: 'orders', userId: order.userId, id }, { topic: 'all-orders', id });
    return { id, created: true };
  }
  const [existing] = await tx.select({ id: orders.id }).from(orders).where(eq(orders.checkoutId, order.checkoutId));
  return { id: existing!.id, created: false };
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

export interface FulfilOptions {
  maxAttempts?: number;
  actorId?: string | null;
  /** Who, for the admin audit log (decision 031). */
  actor?: Actor;
  tracking?: { carrier: string; number: string } | null;
  /** Queues the shipped email in the fulfilment's own transaction (once, with the change). */
  mail?: { jobs: JobQueue; publicUrl: string };
  /** The admin confirmed shipping preorder lines before their street date (decision 054). */
  confirmPreorder?: boolean;
}

/**
 * An order's lines (all, or these positions) still waiting for their street date: not released
 * by the release job and not shipped. The desk refuses to ship them without a confirmation.
 */
export async function waitingPreorderDates(tx: Tx, orderId: string, positions?: number[]): Promise<string[]> {
  const rows = await tx
    .selectDistinct({ shipsOn: orderItems.shipsOn })
    .from(orderItems)
    .where(
      and(
        eq(orderItems.orderId, orderId),
        positions ? inArray(orderItems.position, positions) : undefined,
        isNotNull(orderItems.shipsOn),
        isNull(orderItems.releasedAt),
        isNull(orderItems.shipmentId),
      ),
    );
  return rows.map((row) => row.shipsOn!).sort();
}

/** Refuses to ship lines before their street date unless the admin confirmed it (decision 054). */
export async function refuseEarlyShipping(tx: Tx, orderId: string, confirmed: boolean | undefined, positions?: number[]): Promise<void> {
  if (confirmed) return;
  const dates = await waitingPreorderDates(tx, orderId, positions);
  if (dates.length > 0) throw new AppError('failed-precondition', PREORDER_MESSAGES.notYetOut(dates.map(formatShipDate).join(', ')), { preorderDates: dates });
}

/**
 * Mark Fulfilled (spec section 4): the order becomes fulfilled and the buyer's copy
 * shipped, in one transaction retried on conflicts, with its history entry and the buyer's
 * email. A second call changes nothing and sends nothing.
 */
export async function markOrderFulfilled(db: Db, orderId: string, options: FulfilOptions = {}) {
  return runTransaction(
    db,
    async (tx) => {
      const [order] = await tx.select().from(orders).where(eq(orders.id, orderId)).for('update');
      if (!order) throw new AppError('not-found', CHECKOUT_MESSAGES.orderNotFound);
      // Under the same row lock as a refund: a fully refunded order is not shipped (decision 028),
      // nor one whose refunds in flight or held for a Retry give all of it back.
      if (!order.orderFulfilled && (order.refundStatus === 'refunded' || (await refundsCoverOrder(tx, order))))
        throw new AppError('failed-precondition', REFUND_MESSAGES.refundedCannotFulfil);
      if (!order.orderFulfilled) await refuseEarlyShipping(tx, orderId, options.confirmPreorder);
      const [buyer] = await tx.select({ email: users.email, name: users.name }).from(users).where(eq(users.id, order.userId));
      if (!order.orderFulfilled) {
        const tracking = options.tracking ?? null;
        await tx
          .update(orders)
          .set({ orderFulfilled: true, orderStatus: 'shipped', fulfilledAt: new Date(), carrier: tracking?.carrier ?? null, trackingNumber: tracking?.number ?? null })
          .where(eq(orders.id, orderId));
        // An order already shipped in parts (decision 054): what is left is its last parcel.
        const [part] = await tx.select({ id: orderShipments.id }).from(orderShipments).where(eq(orderShipments.orderId, orderId)).limit(1);
        if (part) {
          const id = `sh_${randomBytes(9).toString('base64url')}`;
          await tx.insert(orderShipments).values({ id, orderId, carrier: tracking?.carrier ?? null, trackingNumber: tracking?.number ?? null, actorId: options.actorId ?? null });
          await tx
            .update(orderItems)
            .set({ shipmentId: id })
            .where(and(eq(orderItems.orderId, orderId), isNull(orderItems.shipmentId)));
        }
        await tx
          .insert(orderEvents)
          .values({ orderId, kind: 'fulfilled', actorId: options.actorId ?? null, detail: tracking ? { carrier: tracking.carrier, trackingNumber: tracking.number } : {} });
        if (options.actor) {
          await recordAudit(tx, {
            actor: options.actor,
            action: 'order.fulfil',
            targetType: 'order',
            targetId: orderId,
            before: { orderFulfilled: false, orderStatus: order.orderStatus },
            after: { orderFulfilled: true, orderStatus: 'shipped', ...(tracking ? { carrier: tracking.carrier, trackingNumber: tracking.number } : {}) },
          });
        }
        await publishLive(tx, { topic: 'orders', userId: order.userId, id: orderId }, { topic: 'all-orders', id: orderId });
        if (buyer && options.mail) {
          await options.mail.jobs.sendInTransaction(tx, 'send-email', shippedMail(buyer.email, buyer.name, orderId, `${options.mail.publicUrl}/my-orders`, tracking));
        }
      }
      return { changed: !order.orderFulfilled, order, buyer };
    },
    { maxAttempts: options.maxAttempts },
  );
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
