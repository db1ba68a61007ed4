import { sql } from 'drizzle-orm';
import { orderParts, refundParts, type OrderParts } from '@storefront/domain/sales-figures.ts';
import type { Db } from '../db/client.ts';
import type { Tx } from '../db/transaction.ts';
import type { ReturnToPost, SaleToPost } from '../royalties/ledger.service.ts';

/**
 * The orders' read model for money figures (issue 34 step 4): what an order and its refunds are
 * worth as the sales overview counts them (decisions 045 and 053), read in one place for the
 * overview (admin/sales-figures.service.ts) and for the royalty ledger (decision 075), which is
 * handed these figures by the flows that move the money instead of reading the orders itself.
 */

/** An order's stored amounts, as text (SQL sums and bigints). */
export type OrderFigureRow = {
  subtotal: string;
  discount: string;
  shipping: string;
  tax: string;
  shipping_tax: string | null;
  included: string;
  gift_cards: string;
  wallet: string;
  card: string;
};

/** The columns of `OrderFigureRow` for the order aliased `o`: the gift cards it sold, whatever became of them. */
export const ORDER_FIGURE_COLUMNS = sql`o.subtotal_cents::text AS subtotal, o.discount_cents::text AS discount, o.shipping_cents::text AS shipping,
  o.tax_cents::text AS tax, o.shipping_tax_cents::text AS shipping_tax, o.tax_included_cents::text AS included,
  coalesce((SELECT sum(g.amount_cents) FROM gift_card g WHERE g.order_id = o.id), 0)::text AS gift_cards,
  o.wallet_applied_cents::text AS wallet, o.charged_cents::text AS card`;

/** The parts (goods, discount, shipping, tax, gift cards, card fee) of an order's figures. */
export function orderPartsOf(row: OrderFigureRow): OrderParts {
  return orderParts({
    subtotalCents: Number(row.subtotal),
    discountCents: Number(row.discount),
    shippingCents: Number(row.shipping),
    taxCents: Number(row.tax),
    shippingTaxCents: row.shipping_tax === null ? null : Number(row.shipping_tax),
    taxIncludedCents: Number(row.included),
    giftCardCents: Number(row.gift_cards),
    walletCents: Number(row.wallet),
    cardCents: Number(row.card),
  });
}

/**
 * A refund's named lines (`order_refund` aliased `r`) with their order lines: the gift cards
 * among them (at their amount), and the goods' paid amount and tax by the share of each line's
 * quantity refunded (an order before per-line tax: 9.25%). Joined LATERAL as `part`.
 */
export const REFUND_LINE_PARTS = sql`LEFT JOIN LATERAL (
    SELECT (line->>'quantity')::int AS quantity, i.qty, i.unit_cents, i.paid_cents, i.tax_cents,
           EXISTS (SELECT 1 FROM gift_card g WHERE g.order_id = i.order_id AND g.variant_id = i.variant_id) AS gift_card
    FROM jsonb_array_elements(r.lines) AS line JOIN order_item i ON i.order_id = r.order_id AND i.position = (line->>'lineId')::int
  ) AS part ON true`;

/** The sums over `REFUND_LINE_PARTS` that `refundParts` takes. */
export const REFUND_LINE_SUMS = sql`coalesce(sum(part.quantity * part.unit_cents) FILTER (WHERE part.gift_card), 0)::text AS refund_gift_cards,
  coalesce(sum(coalesce(round(part.quantity * part.paid_cents::numeric / part.qty), part.quantity * part.unit_cents)) FILTER (WHERE NOT part.gift_card), 0)::text AS lines_paid,
  coalesce(sum(coalesce(round(part.quantity * part.tax_cents::numeric / part.qty), round(part.quantity * part.unit_cents * 0.0925))) FILTER (WHERE NOT part.gift_card), 0)::text AS lines_tax`;

export type RefundLineSums = { refund_gift_cards: string; lines_paid: string; lines_tax: string };

/** What a card gave back outside the desk's refunds (a refund in the provider's dashboard), for the order aliased `o`. */
export const CARD_REFUNDED_BEYOND_DESK = sql`(o.refunded_card_cents - coalesce((SELECT sum(r.card_cents) FROM order_refund r WHERE r.order_id = o.id AND r.status <> 'failed'), 0))`;

/** When the provider last refunded the order aliased `o` (null: never). */
export const LAST_PROVIDER_REFUND_AT = sql`(SELECT max(e.created_at) FROM order_event e WHERE e.order_id = o.id AND e.kind = 'provider-refund')`;

/** The goods part of an amount returned on an order without named lines (a dispute, a dashboard refund). */
function goodsOfAmount(row: OrderFigureRow, amountCents: number): number {
  return refundParts(orderPartsOf(row), { amountCents, shippingCents: 0, giftCardCents: 0, linesPaidCents: 0, linesTaxCents: 0 }).goodsCents;
}

async function figureRow(db: Db | Tx, orderId: string): Promise<(OrderFigureRow & { created_at: Date | string }) | undefined> {
  const result = await db.execute<OrderFigureRow & { created_at: Date | string }>(sql`SELECT o.created_at, ${ORDER_FIGURE_COLUMNS} FROM "order" o WHERE o.id = ${orderId}`);
  return result.rows[0];
}

/**
 * A paid order as the ledger earns it: its net sales (goods after discount, net of included VAT,
 * gift cards left out) and its goods lines (no gift card lines), each with what it paid.
 */
export async function saleToPost(db: Db | Tx, orderId: string): Promise<SaleToPost | undefined> {
  const result = await db.execute<
    OrderFigureRow & {
      created_at: Date | string;
      lines: { position: number; productId: string; qty: number; unit: number; paid: number | null; components: { productId: string; variantId: string; qty: number }[] | null }[];
    }
  >(sql`
    SELECT o.created_at, ${ORDER_FIGURE_COLUMNS},
           coalesce((SELECT json_agg(json_build_object('position', i.position, 'productId', i.product_id, 'qty', i.qty, 'unit', i.unit_cents, 'paid', i.paid_cents, 'components', i.components) ORDER BY i.position)
                     FROM order_item i WHERE i.order_id = o.id
                       AND NOT EXISTS (SELECT 1 FROM gift_card g WHERE g.order_id = i.order_id AND g.variant_id = i.variant_id)), '[]'::json) AS lines
    FROM "order" o WHERE o.id = ${orderId}`);
  const order = result.rows[0];
  if (!order) return undefined;
  const parts = orderPartsOf(order);
  return {
    orderId,
    soldAt: new Date(order.created_at),
    netCents: parts.goodsCents - parts.discountCents,
    lines: order.lines.map((line) => ({
      position: line.position,
      productId: line.productId,
      paidCents: line.paid === null ? Number(line.unit) * line.qty : Number(line.paid),
      components: line.components ?? [],
    })),
  };
}

/** A desk refund's return: the goods part of it (as the overview splits it) over the lines it names, by what each paid. */
export async function refundReturnToPost(db: Db | Tx, refundId: string): Promise<ReturnToPost | undefined> {
  const result = await db.execute<
    OrderFigureRow & RefundLineSums & { order_id: string; at: Date | string; amount: string; refund_shipping: string; lines: { lineId: number; quantity: number }[] | null }
  >(sql`
    SELECT ${ORDER_FIGURE_COLUMNS}, r.order_id, r.created_at AS at, (r.wallet_cents + r.card_cents)::text AS amount, r.shipping_cents::text AS refund_shipping, r.lines,
           ${REFUND_LINE_SUMS}
    FROM order_refund r JOIN "order" o ON o.id = r.order_id
    ${REFUND_LINE_PARTS}
    WHERE r.id = ${refundId}
    GROUP BY r.id, o.id`);
  const row = result.rows[0];
  if (!row || Number(row.amount) <= 0) return undefined;
  const goodsCents = refundParts(orderPartsOf(row), {
    amountCents: Number(row.amount),
    shippingCents: Number(row.refund_shipping),
    giftCardCents: Number(row.refund_gift_cards),
    linesPaidCents: Number(row.lines_paid),
    linesTaxCents: Number(row.lines_tax),
  }).goodsCents;
  const named = row.lines ?? [];
  const base = { source: `refund:${refundId}`, orderId: row.order_id, earnedAt: new Date(row.at), goodsCents };
  return named.length > 0 ? { ...base, lines: await namedLineWeights(db, row.order_id, named) } : base;
}

/** Each named line's weight in a refund: the share of what the line paid that its refunded quantity is. */
async function namedLineWeights(db: Db | Tx, orderId: string, named: { lineId: number; quantity: number }[]): Promise<Map<number, number>> {
  const items = await db.execute<{ position: number; qty: number; unit: string; paid: string | null }>(
    sql`SELECT position, qty, unit_cents::text AS unit, paid_cents::text AS paid FROM order_item WHERE order_id = ${orderId}`,
  );
  const weights = new Map<number, number>();
  for (const { lineId, quantity } of named) {
    const item = items.rows.find((candidate) => candidate.position === lineId);
    if (!item) continue;
    const paid = item.paid === null ? Number(item.unit) * item.qty : Number(item.paid);
    weights.set(lineId, (weights.get(lineId) ?? 0) + Math.round((quantity * paid) / item.qty));
  }
  return weights;
}

/** A lost dispute's return: the goods part of what the card gave back, dated when it closed. */
export async function disputeReturnToPost(db: Db | Tx, input: { orderId: string; disputeId: string; amountCents: number; closedAt: Date }): Promise<ReturnToPost | undefined> {
  const order = await figureRow(db, input.orderId);
  if (!order || input.amountCents <= 0) return undefined;
  return { source: `dispute:${input.disputeId}`, orderId: input.orderId, earnedAt: input.closedAt, goodsCents: goodsOfAmount(order, input.amountCents) };
}

/**
 * What the card gave back outside the desk, as one return per order dated by the provider's
 * last refund event (undefined: nothing beyond the desk's refunds).
 */
export async function providerReturnOf(db: Db | Tx, orderId: string, eventId: string): Promise<ReturnToPost | undefined> {
  const result = await db.execute<OrderFigureRow & { beyond: string; at: Date | string | null }>(sql`
    SELECT ${ORDER_FIGURE_COLUMNS}, ${CARD_REFUNDED_BEYOND_DESK}::text AS beyond, ${LAST_PROVIDER_REFUND_AT} AS at
    FROM "order" o WHERE o.id = ${orderId} AND o.refund_status IS NOT NULL`);
  const row = result.rows[0];
  const beyond = row ? Number(row.beyond) : 0;
  if (!row || beyond <= 0 || !row.at) return undefined;
  return { source: `provider-refund:${eventId}`, orderId, earnedAt: new Date(row.at), goodsCents: goodsOfAmount(row, beyond) };
}
