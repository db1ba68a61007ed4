import { sql, type SQL } from 'drizzle-orm';
import { giftCreditLeft, orderParts, refundParts, type CreditEntry, type OrderParts, type RefundParts } from '@storefront/domain/sales-figures.ts';
import type { Db } from '../db/client.ts';

/**
 * The rows the sales overview's figures are made of (issue 39, decision 045 amended in session
 * 12), read in SQL text across the orders, gift card and wallet tables (a read-only report, as
 * decision 045 says) and made into figures by the domain's rules (`sales-figures.ts`).
 */

type OrderRow = {
  day: string;
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

/** The gift cards an order sold: its cards' amounts, whatever became of them. */
const orderGiftCards = (orderId: SQL) => sql`coalesce((SELECT sum(g.amount_cents) FROM gift_card g WHERE g.order_id = ${orderId}), 0)`;

/** Each order placed between `start` and `end`, its day (`dayOf`) and its parts. */
export async function orderPartsIn(
  db: Db,
  start: SQL,
  end: SQL,
  dayOf: (column: SQL) => SQL,
): Promise<{ day: string; walletCents: number; cardCents: number; parts: OrderParts }[]> {
  const result = await db.execute<OrderRow>(sql`
    SELECT ${dayOf(sql`o.created_at`)} AS day, o.subtotal_cents::text AS subtotal, o.discount_cents::text AS discount, o.shipping_cents::text AS shipping,
           o.tax_cents::text AS tax, o.shipping_tax_cents::text AS shipping_tax, o.tax_included_cents::text AS included,
           ${orderGiftCards(sql`o.id`)}::text AS gift_cards, o.wallet_applied_cents::text AS wallet, o.charged_cents::text AS card
    FROM "order" o WHERE o.created_at >= ${start} AND o.created_at < ${end}`);
  return result.rows.map((row) => ({ day: row.day, walletCents: Number(row.wallet), cardCents: Number(row.card), parts: partsOf(row) }));
}

function partsOf(row: Omit<OrderRow, 'day'>): OrderParts {
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
 * Each refund given between `start` and `end` (desk refunds that did not fail, and what the card
 * provider gave back beyond them, as decision 045 dates them), split wallet/card and into parts.
 */
export async function refundPartsIn(
  db: Db,
  start: SQL,
  end: SQL,
  dayOf: (column: SQL) => SQL,
): Promise<{ day: string; walletCents: number; cardCents: number; parts: RefundParts }[]> {
  const result = await db.execute<
    Omit<OrderRow, 'day'> & { day: string; refund_wallet: string; refund_card: string; refund_shipping: string; refund_gift_cards: string; lines_paid: string; lines_tax: string }
  >(sql`
    WITH given AS (
      SELECT r.order_id, r.created_at AS at, r.wallet_cents AS wallet, r.card_cents AS card, r.shipping_cents AS shipping,
             coalesce(sum(part.quantity * part.unit_cents) FILTER (WHERE part.gift_card), 0) AS gift_cards,
             coalesce(sum(coalesce(round(part.quantity * part.paid_cents::numeric / part.qty), part.quantity * part.unit_cents)) FILTER (WHERE NOT part.gift_card), 0) AS lines_paid,
             coalesce(sum(coalesce(round(part.quantity * part.tax_cents::numeric / part.qty), round(part.quantity * part.unit_cents * 0.0925))) FILTER (WHERE NOT part.gift_card), 0) AS lines_tax
      FROM order_refund r
      LEFT JOIN LATERAL (
        SELECT (line->>'quantity')::int AS quantity, i.qty, i.unit_cents, i.paid_cents, i.tax_cents,
               EXISTS (SELECT 1 FROM gift_card g WHERE g.order_id = i.order_id AND g.variant_id = i.variant_id) AS gift_card
        FROM jsonb_array_elements(r.lines) AS line JOIN order_item i ON i.order_id = r.order_id AND i.position = (line->>'lineId')::int
      ) AS part ON true
      WHERE r.status <> 'failed' AND r.created_at >= ${start} AND r.created_at < ${end}
      GROUP BY r.id
      UNION ALL
      SELECT o.id, coalesce((SELECT max(e.created_at) FROM order_event e WHERE e.order_id = o.id AND e.kind = 'provider-refund'), o.created_at),
             0, o.refunded_card_cents - coalesce((SELECT sum(r.card_cents) FROM order_refund r WHERE r.order_id = o.id AND r.status <> 'failed'), 0), 0, 0, 0, 0
      FROM "order" o WHERE o.refund_status IS NOT NULL AND o.refunded_card_cents > 0
      UNION ALL
      -- A lost card dispute (decision 075): a return of that amount, on the day it closed.
      SELECT o.id, o.dispute_closed_at, 0, o.dispute_amount_cents, 0, 0, 0, 0
      FROM "order" o WHERE o.dispute_status = 'lost' AND o.dispute_closed_at IS NOT NULL
    )
    SELECT ${dayOf(sql`g.at`)} AS day, g.wallet::text AS refund_wallet, g.card::text AS refund_card, g.shipping::text AS refund_shipping, g.gift_cards::text AS refund_gift_cards, g.lines_paid::text AS lines_paid, g.lines_tax::text AS lines_tax,
           o.subtotal_cents::text AS subtotal, o.discount_cents::text AS discount, o.shipping_cents::text AS shipping,
           o.tax_cents::text AS tax, o.shipping_tax_cents::text AS shipping_tax, o.tax_included_cents::text AS included,
           ${orderGiftCards(sql`o.id`)}::text AS gift_cards, o.wallet_applied_cents::text AS wallet, o.charged_cents::text AS card
    FROM given g JOIN "order" o ON o.id = g.order_id
    WHERE g.at >= ${start} AND g.at < ${end} AND g.wallet + g.card > 0`);
  return result.rows.map((row) => {
    const walletCents = Number(row.refund_wallet);
    const cardCents = Number(row.refund_card);
    const parts = refundParts(partsOf(row), {
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
