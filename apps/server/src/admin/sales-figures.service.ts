import { sql, type SQL } from 'drizzle-orm';
import { giftCreditLeft, refundParts, type CreditEntry, type OrderParts, type RefundParts } from '@storefront/domain/sales-figures.ts';
import type { Db } from '../db/client.ts';
import {
  CARD_REFUNDED_BEYOND_DESK,
  LAST_PROVIDER_REFUND_AT,
  ORDER_FIGURE_COLUMNS,
  orderPartsOf,
  REFUND_LINE_PARTS,
  REFUND_LINE_SUMS,
  type OrderFigureRow,
  type RefundLineSums,
} from '../orders/order-figures.service.ts';

/**
 * The rows the sales overview's figures are made of (issue 39, decision 045 amended in session
 * 12): orders and refunds through the orders' read model (`orders/order-figures.service.ts`, the
 * one the royalty ledger's figures come from too), wallet credit from the ledger's rows, made
 * into figures by the domain's rules (`sales-figures.ts`).
 */

/** Each order placed between `start` and `end`, its day (`dayOf`) and its parts. */
export async function orderPartsIn(
  db: Db,
  start: SQL,
  end: SQL,
  dayOf: (column: SQL) => SQL,
): Promise<{ day: string; walletCents: number; cardCents: number; parts: OrderParts }[]> {
  const result = await db.execute<OrderFigureRow & { day: string }>(sql`
    SELECT ${dayOf(sql`o.created_at`)} AS day, ${ORDER_FIGURE_COLUMNS}
    FROM "order" o WHERE o.created_at >= ${start} AND o.created_at < ${end}`);
  return result.rows.map((row) => ({ day: row.day, walletCents: Number(row.wallet), cardCents: Number(row.card), parts: orderPartsOf(row) }));
}

/**
 * Each refund given between `start` and `end` (desk refunds that did not fail, and what the card
 * provider gave back beyond them, as decision 045 dates them), split wallet/card and into parts.
 */
export async function refundPartsIn(
  db: Db,
  start: SQL,
  end: SQL,
  dayOf: (column: SQL) => SQL,
): Promise<{ day: string; walletCents: number; cardCents: number; parts: RefundParts }[]> {
  const result = await db.execute<OrderFigureRow & RefundLineSums & { day: string; refund_wallet: string; refund_card: string; refund_shipping: string }>(sql`
    WITH given AS (
      SELECT r.order_id, r.created_at AS at, r.wallet_cents AS wallet, r.card_cents AS card, r.shipping_cents AS shipping,
             ${REFUND_LINE_SUMS}
      FROM order_refund r
      ${REFUND_LINE_PARTS}
      WHERE r.status <> 'failed' AND r.created_at >= ${start} AND r.created_at < ${end}
      GROUP BY r.id
      UNION ALL
      SELECT o.id, coalesce(${LAST_PROVIDER_REFUND_AT}, o.created_at), 0, ${CARD_REFUNDED_BEYOND_DESK}, 0, '0', '0', '0'
      FROM "order" o WHERE o.refund_status IS NOT NULL AND o.refunded_card_cents > 0
      UNION ALL
      -- A lost card dispute (decision 075): a return of that amount, on the day it closed.
      SELECT o.id, o.dispute_closed_at, 0, o.dispute_amount_cents, 0, '0', '0', '0'
      FROM "order" o WHERE o.dispute_status = 'lost' AND o.dispute_closed_at IS NOT NULL
    )
    SELECT ${dayOf(sql`g.at`)} AS day, g.wallet::text AS refund_wallet, g.card::text AS refund_card, g.shipping::text AS refund_shipping, g.refund_gift_cards, g.lines_paid, g.lines_tax,
           ${ORDER_FIGURE_COLUMNS}
    FROM given g JOIN "order" o ON o.id = g.order_id
    WHERE g.at >= ${start} AND g.at < ${end} AND g.wallet + g.card > 0`);
  return result.rows.map((row) => {
    const walletCents = Number(row.refund_wallet);
    const cardCents = Number(row.refund_card);
    const parts = refundParts(orderPartsOf(row), {
      amountCents: walletCents + cardCents,
      shippingCents: Number(row.refund_shipping),
      giftCardCents: Number(row.refund_gift_cards),
      linesPaidCents: Number(row.lines_paid),
      linesTaxCents: Number(row.lines_tax),
    });
    return { day: row.day, walletCents, cardCents, parts };
  });
}

/**
 * Gift-card credit in wallets at `end` and spent between `start` and `end`, by the rule of
 * decision 053 (amended in session 12): a wallet payment spends gift-card credit first; a
 * refund's wallet part comes back as gift-card credit up to what its order spent of it.
 */
export async function giftCreditIn(db: Db, start: SQL, end: SQL): Promise<{ leftCents: number; spentCents: number }> {
  const result = await db.execute<{ user_id: string; kind: string; available: string; held: string; reference: string; in_period: boolean; order_id: string | null }>(sql`
    SELECT e.user_id, e.kind, e.available_delta_cents::text AS available, e.held_delta_cents::text AS held, e.reference, e.created_at >= ${start} AS in_period,
           CASE e.kind
             WHEN 'debit' THEN coalesce((SELECT o.id FROM "order" o WHERE o.id = e.reference),
                                        (SELECT o.id FROM "order" o WHERE e.reference LIKE 'late:%' AND o.checkout_id = substr(e.reference, 6)))
             WHEN 'capture' THEN (SELECT o.id FROM "order" o WHERE o.checkout_id = e.reference)
             WHEN 'refund' THEN (SELECT r.order_id FROM order_refund r WHERE e.reference LIKE 'refund:%' AND r.id = substr(e.reference, 8))
           END AS order_id
    FROM ledger_entry e
    WHERE e.created_at < ${end}
      -- Only wallets that ever held gift-card credit: the others have none to spend.
      AND e.user_id IN (SELECT g.user_id FROM ledger_entry g WHERE g.kind = 'grant' AND g.reference LIKE 'gift-card:%' AND g.created_at < ${end})
    ORDER BY e.id`);
  const entries: CreditEntry[] = result.rows.map((row) => {
    const base = { userId: row.user_id, orderId: row.order_id, inPeriod: row.in_period };
    if (row.kind === 'grant') return { ...base, kind: row.reference.startsWith('gift-card:') ? 'gift' : 'grant', cents: Number(row.available) };
    if (row.kind === 'debit') return { ...base, kind: 'spend', cents: -Number(row.available) };
    if (row.kind === 'capture') return { ...base, kind: 'spend', cents: -Number(row.held) };
    if (row.kind === 'refund') return { ...base, kind: 'refund', cents: Number(row.available) };
    return { ...base, kind: 'other', cents: 0 };
  });
  return giftCreditLeft(entries);
}
