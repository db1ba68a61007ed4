import { sql } from 'drizzle-orm';
import { addDays, daysOf, todayIn, type SalesFigures, type SalesOverview } from '@storefront/domain/sales.ts';
import type { Db } from '../db/client.ts';
import { giftCardLiability } from '../giftcards/giftcards.service.ts';
import { giftCreditIn, orderPartsIn, refundPartsIn } from './sales-figures.service.ts';

type Period = { days?: number | undefined; from?: string | undefined; to?: string | undefined };

const zero = (): SalesFigures => ({
  orders: 0,
  grossSalesCents: 0,
  discountsCents: 0,
  returnsCents: 0,
  netSalesCents: 0,
  shippingCents: 0,
  taxCollectedCents: 0,
  taxIncludedCents: 0,
  cardFeesCents: 0,
  giftCardsSoldCents: 0,
  totalCollectedCents: 0,
  paidWalletCents: 0,
  paidCardCents: 0,
  refundsCents: 0,
  refundedWalletCents: 0,
  refundedCardCents: 0,
  refundedShippingCents: 0,
  refundedTaxCents: 0,
  refundedCardFeesCents: 0,
  refundedGiftCardsCents: 0,
  netReceiptsCents: 0,
});

/**
 * The sales overview as an accountant reads it (issue 29 item 1, decision 045), for the days
 * `from`..`to` (or the last `days` days) in the label's time zone:
 * - an order counts on the day it was placed: its goods without gift cards and net of included
 *   VAT (gross sales), discounts, shipping, tax collected (added and included), gift cards sold
 *   and the card fee the buyer paid, split by what paid it (issue 39, `orderParts`);
 * - a refund counts on the day it was given, whatever day its order was placed: every refund of
 *   the order desk that did not fail (a pending one is promised to the buyer), and what the card
 *   provider gave back outside the desk (the order's refunded card part beyond the desk's),
 *   dated by the provider's last refund event;
 *   each refund split into returns (goods), shipping, tax, card fee and gift cards (`refundParts`);
 * - net sales = gross sales - discounts - returns; net receipts = total collected - refunds;
 * - products and variants are goods only, gift cards left out: units and their line price, and the units refunded
 *   by desk refunds of lines in the period (at their line price).
 * Each order and refund is one row of these sums, so every figure adds up to the rows.
 */
export async function salesOverview(db: Db, timeZone: string, period: Period): Promise<SalesOverview> {
  const to = period.to ?? todayIn(timeZone);
  const from = period.from ?? addDays(to, -((period.days ?? 30) - 1));
  const start = sql`(${from}::date)::timestamp AT TIME ZONE ${timeZone}`;
  const end = sql`(${to}::date + 1)::timestamp AT TIME ZONE ${timeZone}`;
  const dayOf = (column: ReturnType<typeof sql>) => sql`to_char(${column} AT TIME ZONE ${timeZone}, 'YYYY-MM-DD')`;

  const placed = await orderPartsIn(db, start, end, dayOf);
  const given = await refundPartsIn(db, start, end, dayOf);

  // Grouped by the line's kind too (issue 28): a product is sold as files or as a parcel.
  const goods = await db.execute<{
    product_id: string;
    variant_id: string | null;
    digital: boolean;
    line_name: string;
    sold: string;
    gross: string;
    refunded: string;
    refunded_goods: string;
  }>(sql`
    WITH lines AS (
      SELECT i.product_id, i.variant_id, i.digital, i.name, o.created_at AS at, i.qty AS sold, i.qty * i.unit_cents AS gross, 0 AS refunded, 0 AS refunded_goods
      FROM order_item i JOIN "order" o ON o.id = i.order_id
      WHERE o.created_at >= ${start} AND o.created_at < ${end} AND NOT EXISTS (SELECT 1 FROM gift_card g WHERE g.order_id = i.order_id AND g.variant_id = i.variant_id)
      UNION ALL
      SELECT i.product_id, i.variant_id, i.digital, i.name, r.created_at, 0, 0, (line->>'quantity')::int, (line->>'quantity')::int * i.unit_cents
      FROM order_refund r CROSS JOIN LATERAL jsonb_array_elements(r.lines) AS line
      JOIN order_item i ON i.order_id = r.order_id AND i.position = (line->>'lineId')::int
      WHERE r.status <> 'failed' AND r.created_at >= ${start} AND r.created_at < ${end}
        AND NOT EXISTS (SELECT 1 FROM gift_card g WHERE g.order_id = i.order_id AND g.variant_id = i.variant_id)
    )
    SELECT product_id, variant_id, digital, (array_agg(name ORDER BY at DESC))[1] AS line_name, sum(sold)::text AS sold, sum(gross)::text AS gross,
           sum(refunded)::text AS refunded, sum(refunded_goods)::text AS refunded_goods
    FROM lines GROUP BY product_id, variant_id, digital`);
  const byKind = (['digital', 'physical'] as const).map((kind) => {
    const rows = goods.rows.filter((row) => row.digital === (kind === 'digital'));
    const sum = (key: 'sold' | 'gross' | 'refunded' | 'refunded_goods') => rows.reduce((total, row) => total + Number(row[key]), 0);
    return { kind, unitsSold: sum('sold'), grossSalesCents: sum('gross'), unitsRefunded: sum('refunded'), refundedGoodsCents: sum('refunded_goods') };
  });

  // Names as the catalogue has them now (a line's name carries its variant: "Tour Tee 2026 - M").
  const productIds = [...new Set(goods.rows.map((row) => row.product_id))];
  const names = productIds.length
    ? await db.execute<{ id: string; name: string; variant_id: string | null; option_values: string[] | null; position: number | null }>(sql`
        SELECT p.id, p.name, v.id AS variant_id, v.option_values, v.position
        FROM product p LEFT JOIN product_variant v ON v.product_id = p.id
        WHERE p.id IN (${sql.join(
          productIds.map((id) => sql`${id}`),
          sql`, `,
        )})`)
    : { rows: [] };
  const productName = new Map(names.rows.map((row) => [row.id, row.name]));
  const variantOf = new Map(
    names.rows.filter((row) => row.variant_id).map((row) => [row.variant_id!, { label: (row.option_values ?? []).join(' / '), position: row.position ?? 0 }]),
  );

  const byDay = new Map(daysOf(from, to).map((day) => [day, { day, ...zero() }]));
  for (const { day, walletCents, cardCents, parts } of placed) {
    const figures = byDay.get(day);
    if (!figures) continue;
    figures.orders += 1;
    figures.grossSalesCents += parts.goodsCents;
    figures.discountsCents += parts.discountCents;
    figures.shippingCents += parts.shippingCents;
    figures.taxCollectedCents += parts.taxCents;
    figures.taxIncludedCents += parts.taxIncludedCents;
    figures.cardFeesCents += parts.cardFeeCents;
    figures.giftCardsSoldCents += parts.giftCardCents;
    figures.totalCollectedCents += parts.paidCents;
    figures.paidWalletCents += walletCents;
    figures.paidCardCents += cardCents;
  }
  for (const { day, walletCents, cardCents, parts } of given) {
    const figures = byDay.get(day);
    if (!figures) continue;
    figures.refundedWalletCents += walletCents;
    figures.refundedCardCents += cardCents;
    figures.returnsCents += parts.goodsCents;
    figures.refundedShippingCents += parts.shippingCents;
    figures.refundedTaxCents += parts.taxCents;
    figures.refundedCardFeesCents += parts.cardFeeCents;
    figures.refundedGiftCardsCents += parts.giftCardCents;
  }
  const totals = zero();
  for (const figures of byDay.values()) {
    figures.refundsCents = figures.refundedWalletCents + figures.refundedCardCents;
    figures.netSalesCents = figures.grossSalesCents - figures.discountsCents - figures.returnsCents;
    figures.netReceiptsCents = figures.totalCollectedCents - figures.refundsCents;
    for (const key of Object.keys(totals) as (keyof SalesFigures)[]) totals[key] += figures[key];
  }

  // One row per product and variant, whatever the kind of its lines.
  const merged = new Map<string, (typeof goods.rows)[number]>();
  for (const row of goods.rows) {
    const key = `${row.product_id}\u0000${row.variant_id ?? ''}`;
    const seen = merged.get(key);
    if (!seen) merged.set(key, { ...row });
    else
      merged.set(key, {
        ...seen,
        sold: String(Number(seen.sold) + Number(row.sold)),
        gross: String(Number(seen.gross) + Number(row.gross)),
        refunded: String(Number(seen.refunded) + Number(row.refunded)),
        refunded_goods: String(Number(seen.refunded_goods) + Number(row.refunded_goods)),
      });
  }
  const byVariant = [...merged.values()]
    .map((row) => {
      const variant = row.variant_id ? variantOf.get(row.variant_id) : undefined;
      return {
        productId: row.product_id,
        variantId: row.variant_id,
        name: productName.get(row.product_id) ?? row.line_name,
        variant: variant?.label ?? '',
        position: variant?.position ?? -1,
        unitsSold: Number(row.sold),
        grossSalesCents: Number(row.gross),
        unitsRefunded: Number(row.refunded),
        refundedGoodsCents: Number(row.refunded_goods),
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name) || a.productId.localeCompare(b.productId) || a.position - b.position || (a.variantId ?? '').localeCompare(b.variantId ?? ''));
  const byProduct = new Map<string, SalesOverview['byProduct'][number]>();
  for (const row of byVariant) {
    const product = byProduct.get(row.productId) ?? { productId: row.productId, name: row.name, unitsSold: 0, grossSalesCents: 0, unitsRefunded: 0, refundedGoodsCents: 0 };
    product.unitsSold += row.unitsSold;
    product.grossSalesCents += row.grossSalesCents;
    product.unitsRefunded += row.unitsRefunded;
    product.refundedGoodsCents += row.refundedGoodsCents;
    byProduct.set(row.productId, product);
  }

  // Issue 26: the tax line's jurisdiction of each order placed in the period.
  const taxes = await db.execute<{ jurisdiction: string; orders: string; tax: string; included: string }>(sql`
    SELECT tax_jurisdiction AS jurisdiction, count(*)::text AS orders, sum(tax_cents)::text AS tax, sum(tax_included_cents)::text AS included
    FROM "order" WHERE created_at >= ${start} AND created_at < ${end} GROUP BY 1 ORDER BY 1`);
  // The codes the period's orders used (issue 27).
  const codes = await db.execute<{ code: string; orders: string; discounts: string }>(sql`
    SELECT discount_code AS code, count(*)::text AS orders, sum(discount_cents)::text AS discounts
    FROM "order" WHERE created_at >= ${start} AND created_at < ${end} AND discount_code IS NOT NULL GROUP BY 1 ORDER BY 3::bigint DESC, 1`);

  // Gift cards sold and their credit not yet spent: a liability (decision 053, amended in session 12).
  const cards = await giftCardLiability(db, start, end);
  const credit = await giftCreditIn(db, start, end);
  const giftCards = { ...cards, walletCreditCents: credit.leftCents, spentCents: credit.spentCents, liabilityCents: cards.outstandingCents + credit.leftCents };
  // The parts the period's bundles sent out (issue 27, decision 055), from the bundle lines' components.
  const parts = await db.execute<{ bundle_id: string; bundle: string; variant_id: string; part: string; units: string }>(sql`
    SELECT i.product_id AS bundle_id, min(i.name) AS bundle, part->>'variantId' AS variant_id, part->>'name' AS part, sum(i.qty * (part->>'qty')::int)::text AS units
    FROM "order" o JOIN order_item i ON i.order_id = o.id, jsonb_array_elements(i.components) AS part
    WHERE o.created_at >= ${start} AND o.created_at < ${end} AND i.components IS NOT NULL
    GROUP BY 1, 3, 4 ORDER BY 1, 4`);
  // Preorders sold in the period (issue 27, decision 054), by street date: paid now, out on their date.
  const preorders = await db.execute<{ product_id: string; variant_id: string | null; line_name: string; ships_on: string; units: string; gross: string; waiting: string }>(sql`
    SELECT i.product_id, i.variant_id, (array_agg(i.name ORDER BY o.created_at DESC))[1] AS line_name, i.ships_on::text AS ships_on,
           sum(i.qty)::text AS units, sum(i.qty * i.unit_cents)::text AS gross, coalesce(sum(i.qty) FILTER (WHERE i.released_at IS NULL), 0)::text AS waiting
    FROM order_item i JOIN "order" o ON o.id = i.order_id
    WHERE o.created_at >= ${start} AND o.created_at < ${end} AND i.ships_on IS NOT NULL
    GROUP BY i.product_id, i.variant_id, i.ships_on ORDER BY i.ships_on, 3`);
  const [toShip] = (await db.execute<{ count: string }>(sql`SELECT count(*)::text AS count FROM "order" WHERE NOT order_fulfilled`)).rows;
  return {
    timeZone,
    from,
    to,
    totals,
    byDay: [...byDay.values()],
    byProduct: [...byProduct.values()].sort((a, b) => b.grossSalesCents - a.grossSalesCents || a.name.localeCompare(b.name) || a.productId.localeCompare(b.productId)),
    byVariant: byVariant.map(({ position: _position, ...row }) => row),
    ordersToShip: Number(toShip?.count ?? 0),
    byTaxJurisdiction: taxes.rows.map((row) => ({ jurisdiction: row.jurisdiction, orders: Number(row.orders), taxCents: Number(row.tax), taxIncludedCents: Number(row.included) })),
    byCode: codes.rows.map((row) => ({ code: row.code, orders: Number(row.orders), discountsCents: Number(row.discounts) })),
    byKind,
    giftCards,
    byPreorder: preorders.rows.map((row) => ({
      productId: row.product_id,
      variantId: row.variant_id,
      name: row.line_name,
      shipsOn: row.ships_on,
      unitsSold: Number(row.units),
      grossSalesCents: Number(row.gross),
      unitsWaiting: Number(row.waiting),
    })),
    byBundlePart: parts.rows.map((row) => ({
      bundleId: row.bundle_id,
      bundle: productName.get(row.bundle_id) ?? row.bundle,
      variantId: row.variant_id,
      part: row.part,
      units: Number(row.units),
    })),
  };
}
