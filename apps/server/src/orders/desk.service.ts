import { and, asc, eq, isNotNull, or, sql, type SQL } from 'drizzle-orm';
import { CHECKOUT_MESSAGES } from '@storefront/domain/pricing.ts';
import type { OrderFilter } from '@storefront/domain/order-desk.ts';
import type { Db } from '../db/client.ts';
import { orderEvents, orderItems, orderItemTerms, orders, orderSearchTerms, orderSearchText, users } from '../db/schema/index.ts';
import { AppError } from '../errors.ts';
import { orderItemsOf, orderRowsPage, orderView, shipmentsOf, shipmentsOfPage, unsettledOfPage, type OrderView, type Page, type ShipmentView } from './order-views.service.ts';
import { DELIVERED_STATUS } from './orders.service.ts';
import type { RefundableOrder } from '@storefront/domain/refunds.ts';
import { refundableOf, refundsOf, unsettledRefunds, type RefundView } from './refunds.service.ts';

/**
 * The order desk's reads (issue 16): every order by status, searched by order id, payment
 * reference, buyer email, buyer or ship-to name, or product; newest first by the same
 * keyset cursor as My Orders; each filter has its own index, the search trigram indexes.
 */
/** An order's lines still waiting for their street date: preorder lines not released and not shipped. */
function waitingLines(orderId: SQL | typeof orders.id): SQL {
  return sql`SELECT 1 FROM ${orderItems} WHERE ${orderItems.orderId} = ${orderId} AND ${orderItems.shipsOn} IS NOT NULL AND ${orderItems.releasedAt} IS NULL AND ${orderItems.shipmentId} IS NULL`;
}

const filters: Record<OrderFilter, SQL | undefined> = {
  unfulfilled: eq(orders.orderFulfilled, false),
  // Fulfilled and shipped: an all-digital order (fulfilled when placed, issue 28) shipped nothing.
  shipped: and(eq(orders.orderFulfilled, true), sql`${orders.orderStatus} IS DISTINCT FROM ${DELIVERED_STATUS}`),
  refunded: isNotNull(orders.refundStatus),
  all: undefined,
  // Ready to ship (decision 054): what is left of it can all go now; a preorder line waits until the release job makes it ordinary.
  ready: and(eq(orders.orderFulfilled, false), sql`${orders.refundStatus} IS DISTINCT FROM 'refunded'`, sql`NOT EXISTS (${waitingLines(orders.id)})`),
};

/** The most distinct buyer texts, and line names, one search matches. */
const MAX_TERMS = 1000;

/** Escapes LIKE's wildcards so a search for "50%" means that text. */
const likeText = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The search's condition (decision 034). The trigram indexes of the small term tables find the
 * matching buyer texts and line names, and the lines' orders; those come back as arrays and go
 * into the order query as parameters, so the planner sees how few they are and reads them by
 * their btree indexes (with the arrays as subqueries it could not tell, and walked the whole
 * date index instead). At most MAX_TERMS terms each: a search that broad is not a search.
 */
async function searchCondition(db: Db, query: string | undefined): Promise<SQL | undefined> {
  const q = query?.trim().toLowerCase();
  if (!q) return undefined;
  const exact = [eq(orders.id, query!.trim()), eq(orders.paymentIntentId, query!.trim())];
  // Trigrams need three characters; shorter text matches ids only, except a non-Latin name
  // (two characters are a whole name in Japanese or Chinese; the term tables are scanned).
  if (q.length < 3 && !/[^ -\u024f]/.test(q)) return or(...exact);
  const pattern = likeText(q);
  const [terms] = await db
    .select({
      buyers: sql<string[]>`ARRAY(SELECT ${orderSearchTerms.term} FROM ${orderSearchTerms} WHERE ${orderSearchTerms.term} LIKE ${pattern} LIMIT ${MAX_TERMS})`,
      lines: sql<string[]>`ARRAY(SELECT ${orderItemTerms.term} FROM ${orderItemTerms} WHERE ${orderItemTerms.term} LIKE ${pattern} LIMIT ${MAX_TERMS})`,
    })
    .from(sql`(SELECT 1) AS one`);
  const byLine = terms!.lines.length
    ? (
        await db
          .selectDistinct({ orderId: orderItems.orderId })
          .from(orderItems)
          .where(sql`lower(${orderItems.name}) = ANY(${sql.param(terms!.lines)}::text[])`)
          .limit(10_000)
      ).map((row) => row.orderId)
    : [];
  return or(
    ...exact,
    terms!.buyers.length ? sql`${orderSearchText(orders)} = ANY(${sql.param(terms!.buyers)}::text[])` : undefined,
    byLine.length ? sql`${orders.id} = ANY(${sql.param(byLine)}::text[])` : undefined,
  );
}

export interface DeskQuery {
  status: OrderFilter;
  q?: string;
  limit: number;
  after?: string;
}

export async function listDeskOrderRows(db: Db, query: DeskQuery) {
  return orderRowsPage(db, and(filters[query.status], await searchCondition(db, query.q)), query);
}

type OrderRow = typeof orders.$inferSelect;

export type DeskOrder = OrderView & { lines: { lineId: number; productId: string; name: string; qty: number; unitCents: number; digital?: boolean }[] };

/** The order as My Orders shows it (one mapping, order-views.service.ts), with each line's id for refunds by line. */
function deskView(
  row: OrderRow,
  items: (typeof orderItems.$inferSelect)[],
  unsettled: Map<string, { walletCents: number; cardCents: number }>,
  shipments: Map<string, ShipmentView[]>,
): DeskOrder {
  const own = items.filter((item) => item.orderId === row.id);
  return {
    ...orderView(row, own, unsettled, shipments.get(row.id)),
    lines: own.map((item) => ({
      lineId: item.position,
      productId: item.productId,
      name: item.name,
      qty: item.qty,
      unitCents: item.unitCents,
      ...(item.digital ? { digital: true } : {}),
    })),
  };
}

export async function listDeskOrders(db: Db, query: DeskQuery): Promise<Page<DeskOrder>> {
  const { rows, next } = await listDeskOrderRows(db, query);
  const ids = rows.map((row) => row.id);
  // The pending refunds and parcels came with the page (orderRowsPage).
  const items = await orderItemsOf(db, ids);
  const [unsettled, shipments] = [unsettledOfPage(rows), shipmentsOfPage(rows)];
  return { items: rows.map((row) => deskView(row, items, unsettled, shipments)), next };
}

export interface OrderHistoryEntry {
  kind: string;
  at: string;
  by: string | null;
  detail: Record<string, unknown>;
}

/** One order for the desk: lines, totals per part, contact, address, payment reference, history and refunds. */
export async function getDeskOrder(
  db: Db,
  orderId: string,
): Promise<{ order: DeskOrder; history: OrderHistoryEntry[]; refunds: RefundView[]; refundable: Required<RefundableOrder> }> {
  const [row] = await db.select().from(orders).where(eq(orders.id, orderId));
  if (!row) throw new AppError('not-found', CHECKOUT_MESSAGES.orderNotFound);
  const events = await db
    .select({ kind: orderEvents.kind, at: orderEvents.createdAt, by: users.name, byEmail: users.email, detail: orderEvents.detail })
    .from(orderEvents)
    .leftJoin(users, eq(users.id, orderEvents.actorId))
    .where(eq(orderEvents.orderId, orderId))
    .orderBy(asc(orderEvents.id));
  const [buyer] = await db.select({ name: users.name }).from(users).where(eq(users.id, row.userId));
  // An order exists only once paid (wallet debit or provider event): created and paid are one moment.
  const history: OrderHistoryEntry[] = [
    { kind: 'created', at: row.createdAt.toISOString(), by: buyer?.name ?? null, detail: {} },
    {
      kind: 'paid',
      at: row.createdAt.toISOString(),
      by: null,
      detail: { walletCents: row.walletAppliedCents, cardCents: row.chargedCents, paymentReference: row.paymentIntentId },
    },
    // Fulfilled before the history table existed: from the order's own time.
    ...(row.fulfilledAt && !events.some((event) => event.kind === 'fulfilled') ? [{ kind: 'fulfilled', at: row.fulfilledAt.toISOString(), by: null, detail: {} }] : []),
    ...events.map((event) => ({ kind: event.kind, at: event.at.toISOString(), by: event.by ? `${event.by} <${event.byEmail}>` : null, detail: event.detail })),
  ];
  const refundable = await refundableOf(db, orderId);
  return {
    order: deskView(row, await orderItemsOf(db, [row.id]), await unsettledRefunds(db, [row.id]), await shipmentsOf(db, [row.id])),
    history,
    refunds: await refundsOf(db, orderId),
    refundable: { ...refundable, shippingCents: refundable.shippingCents ?? 0, shippingRefunded: refundable.shippingRefunded ?? false },
  };
}

/** The packing list: every line that ships of every order the filter and search select, a page at a time (digital lines have nothing to pack, issue 28). */
export async function* packingListRows(db: Db, query: Omit<DeskQuery, 'limit' | 'after'>) {
  let after: string | undefined;
  for (;;) {
    const page = await listDeskOrderRows(db, { ...query, limit: 500, after });
    const items = await orderItemsOf(
      db,
      page.rows.map((row) => row.id),
    );
    for (const row of page.rows) {
      for (const item of items.filter((candidate) => candidate.orderId === row.id && !candidate.digital)) yield { order: row, item };
    }
    if (!page.next) return;
    after = page.next;
  }
}
