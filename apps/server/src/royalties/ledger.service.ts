import { and, eq, inArray, sql } from 'drizzle-orm';
import { allocate, FULL_SHARE_BP, recoupedAfter, reserveOf, shareSigned } from '@storefront/domain/royalties.ts';
import { orderParts, refundParts, type OrderParts } from '@storefront/domain/sales-figures.ts';
import { royaltyCosts, royaltyEntries, royaltyParties, royaltyRules, royaltyRuleShares, royaltySlices } from '../db/schema/index.ts';
import type { Tx } from '../db/transaction.ts';

/**
 * The royalty ledger (issue 36 part 3, decisions 070 and 075). Each paid order, refund and lost
 * dispute posts, in the transaction that moves the money, append-only entries per party; the
 * unique key (source, line, part, party, kind) makes a second posting of one event a no-op.
 * What an event earns or returns is the sales overview's own figure (the domain's orderParts and
 * refundParts on the same order numbers), so the ledger sums to the overview's net sales.
 * The order rows are read as SQL text, read only, as the sales overview reads them (decision 075).
 */

type Slice = typeof royaltySlices.$inferSelect;
type Share = { partyId: number; shareBp: number };
type Rule = { id: number; reserveBp: number; reserveDays: number; shares: Share[] };

type OrderRow = {
  created_at: Date | string;
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

const ORDER_COLUMNS = sql`o.created_at, o.subtotal_cents::text AS subtotal, o.discount_cents::text AS discount, o.shipping_cents::text AS shipping,
  o.tax_cents::text AS tax, o.shipping_tax_cents::text AS shipping_tax, o.tax_included_cents::text AS included,
  coalesce((SELECT sum(g.amount_cents) FROM gift_card g WHERE g.order_id = o.id), 0)::text AS gift_cards,
  o.wallet_applied_cents::text AS wallet, o.charged_cents::text AS card`;

function partsOf(row: OrderRow): OrderParts {
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

async function orderRow(tx: Tx, orderId: string): Promise<OrderRow | undefined> {
  const result = await tx.execute<OrderRow>(sql`SELECT ${ORDER_COLUMNS} FROM "order" o WHERE o.id = ${orderId}`);
  return result.rows[0];
}

async function houseParty(tx: Tx): Promise<number> {
  const [house] = await tx.select({ id: royaltyParties.id }).from(royaltyParties).where(eq(royaltyParties.house, true));
  return house!.id;
}

/** The rule of a subject in force at `at`: the latest that applies from then or before (ties: the newest). */
async function ruleInForce(tx: Tx, kind: 'release' | 'product' | 'artist', subjectId: string, at: Date): Promise<number | null> {
  const [rule] = await tx
    .select({ id: royaltyRules.id })
    .from(royaltyRules)
    .where(and(eq(royaltyRules.subjectKind, kind), eq(royaltyRules.subjectId, subjectId), sql`${royaltyRules.effectiveFrom} <= ${at}`))
    .orderBy(sql`${royaltyRules.effectiveFrom} DESC, ${royaltyRules.id} DESC`)
    .limit(1);
  return rule?.id ?? null;
}

type Target = { productId: string; releaseId: number | null; ruleId: number | null };

/**
 * Who a product's sales go to (decision 070): its own rule; else its release's (the release it
 * sells or carries); else its credited artists' roster defaults, shared equally (those that have
 * one); else the label alone (no rule).
 */
async function targetsOf(tx: Tx, productId: string, at: Date): Promise<Target[]> {
  const links = await tx.execute<{ release_id: number }>(sql`SELECT release_id FROM release_product WHERE product_id = ${productId}`);
  const releaseId = links.rows[0]?.release_id ?? null;
  const own = await ruleInForce(tx, 'product', productId, at);
  if (own !== null) return [{ productId, releaseId, ruleId: own }];
  if (releaseId !== null) {
    const ofRelease = await ruleInForce(tx, 'release', String(releaseId), at);
    if (ofRelease !== null) return [{ productId, releaseId, ruleId: ofRelease }];
  }
  const credited = await tx.execute<{ artist_id: number }>(sql`
    SELECT artist_id FROM (
      SELECT artist_id, position, 0 AS source FROM product_artist WHERE product_id = ${productId}
      UNION ALL SELECT artist_id, position, 1 FROM release_artist WHERE release_id = ${releaseId ?? -1}
    ) credits ORDER BY source, position, artist_id`);
  const seen = new Set<number>();
  const defaults: Target[] = [];
  for (const { artist_id } of credited.rows) {
    if (seen.has(artist_id)) continue;
    seen.add(artist_id);
    const rule = await ruleInForce(tx, 'artist', String(artist_id), at);
    if (rule !== null) defaults.push({ productId, releaseId, ruleId: rule });
  }
  return defaults.length > 0 ? defaults : [{ productId, releaseId, ruleId: null }];
}

async function rulesById(tx: Tx, ids: number[]): Promise<Map<number, Rule>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rules = await tx.select().from(royaltyRules).where(inArray(royaltyRules.id, unique));
  const shares = await tx.select().from(royaltyRuleShares).where(inArray(royaltyRuleShares.ruleId, unique)).orderBy(royaltyRuleShares.ruleId, royaltyRuleShares.position);
  return new Map(
    rules.map((rule) => [
      rule.id,
      {
        id: rule.id,
        reserveBp: rule.reserveBp,
        reserveDays: rule.reserveDays,
        shares: shares.filter((share) => share.ruleId === rule.id).map((share) => ({ partyId: share.partyId, shareBp: share.shareBp })),
      },
    ]),
  );
}

type Posting = { source: string; kind: 'sale' | 'return'; orderId: string; earnedAt: Date };

/** Posts one slice's amount (positive: earned; negative: returned) to its rule's parties, with their reserves. */
async function postSlice(tx: Tx, posting: Posting, slice: Slice, amounts: { before: number; after: number }, rule: Rule | undefined, house: number): Promise<void> {
  const shares = rule?.shares ?? [{ partyId: house, shareBp: FULL_SHARE_BP }];
  const bps = shares.map((share) => share.shareBp);
  const after = allocate(amounts.after, bps);
  const before = allocate(amounts.before, bps);
  const base = {
    source: posting.source,
    orderId: posting.orderId,
    position: slice.position,
    part: slice.part,
    releaseId: slice.releaseId,
    productId: slice.productId,
    ruleId: slice.ruleId,
    earnedAt: posting.earnedAt,
  };
  const rows: (typeof royaltyEntries.$inferInsert)[] = [];
  shares.forEach((share, index) => {
    const amount = after[index]! - before[index]!;
    if (amount === 0) return;
    rows.push({ ...base, partyId: share.partyId, kind: posting.kind, amountCents: amount });
    const held = rule ? reserveOf(amount, rule.reserveBp) : 0;
    if (held > 0) {
      const releasedOn = new Date(posting.earnedAt.getTime() + rule!.reserveDays * 86_400_000).toISOString().slice(0, 10);
      rows.push({ ...base, partyId: share.partyId, kind: 'reserve', amountCents: -held });
      rows.push({ ...base, partyId: share.partyId, kind: 'release', amountCents: held, availableOn: releasedOn });
    }
  });
  if (rows.length > 0) await tx.insert(royaltyEntries).values(rows).onConflictDoNothing();
}

/**
 * Recoup (decision 070): after a posting, each party's recouped total of a release with costs is
 * min(costs, max(0, its earnings of the release)); the difference is posted as a recoup entry.
 */
async function settleRecoup(tx: Tx, posting: Posting, slices: Slice[]): Promise<void> {
  const releaseIds = [...new Set(slices.map((slice) => slice.releaseId).filter((id): id is number => id !== null))];
  if (releaseIds.length === 0) return;
  const costs = await tx
    .select({ releaseId: royaltyCosts.releaseId, partyId: royaltyCosts.partyId, total: sql<string>`sum(${royaltyCosts.amountCents})::text` })
    .from(royaltyCosts)
    .where(inArray(royaltyCosts.releaseId, releaseIds))
    .groupBy(royaltyCosts.releaseId, royaltyCosts.partyId);
  for (const cost of costs) {
    const [sums] = await tx
      .select({
        earned: sql<string>`coalesce(sum(${royaltyEntries.amountCents}) FILTER (WHERE ${royaltyEntries.kind} IN ('sale', 'return')), 0)::text`,
        recouped: sql<string>`coalesce(-sum(${royaltyEntries.amountCents}) FILTER (WHERE ${royaltyEntries.kind} = 'recoup'), 0)::text`,
      })
      .from(royaltyEntries)
      .where(and(eq(royaltyEntries.partyId, cost.partyId), eq(royaltyEntries.releaseId, cost.releaseId)));
    const delta = recoupedAfter(Number(sums!.earned), Number(cost.total)) - Number(sums!.recouped);
    if (delta === 0) continue;
    const slice = slices.find((candidate) => candidate.releaseId === cost.releaseId)!;
    await tx
      .insert(royaltyEntries)
      .values({
        source: posting.source,
        orderId: posting.orderId,
        position: slice.position,
        part: slice.part,
        releaseId: cost.releaseId,
        productId: slice.productId,
        ruleId: slice.ruleId,
        partyId: cost.partyId,
        kind: 'recoup',
        amountCents: -delta,
        earnedAt: posting.earnedAt,
      })
      .onConflictDoNothing();
  }
}

/**
 * A paid order's earnings, once (its slices are written with it; a second call finds them).
 * Net sales (goods after discount, net of included VAT, gift cards left out) are shared over its
 * goods lines by what each paid, a bundle line over its parts by their prices, and each slice
 * over its rule's parties.
 */
export async function postOrderEarnings(tx: Tx, orderId: string): Promise<void> {
  const [posted] = await tx.select({ orderId: royaltySlices.orderId }).from(royaltySlices).where(eq(royaltySlices.orderId, orderId)).limit(1);
  if (posted) return;
  const order = await orderRow(tx, orderId);
  if (!order) return;
  const soldAt = new Date(order.created_at);
  const parts = partsOf(order);
  const lines = await tx.execute<{
    position: number;
    product_id: string;
    qty: number;
    unit: string;
    paid: string | null;
    components: { productId: string; variantId: string; qty: number }[] | null;
  }>(sql`
    SELECT i.position, i.product_id, i.qty, i.unit_cents::text AS unit, i.paid_cents::text AS paid, i.components
    FROM order_item i WHERE i.order_id = ${orderId}
      AND NOT EXISTS (SELECT 1 FROM gift_card g WHERE g.order_id = i.order_id AND g.variant_id = i.variant_id)
    ORDER BY i.position`);
  if (lines.rows.length === 0) return;
  const lineNets = shareSigned(
    parts.goodsCents - parts.discountCents,
    lines.rows.map((line) => Number(line.paid ?? Number(line.unit) * line.qty)),
  );
  const slices: Slice[] = [];
  for (const [index, line] of lines.rows.entries()) {
    const pieces: { productId: string; weight: number }[] = [];
    if (line.components && line.components.length > 0) {
      const prices = await tx.execute<{ id: string; price: string }>(sql`
        SELECT v.id, coalesce(v.price_cents, p.price_cents)::text AS price FROM product_variant v JOIN product p ON p.id = v.product_id
        WHERE v.id IN (${sql.join(
          line.components.map((part) => sql`${part.variantId}`),
          sql`, `,
        )})`);
      const price = new Map(prices.rows.map((row) => [row.id, Number(row.price)]));
      for (const part of line.components) pieces.push({ productId: part.productId, weight: (price.get(part.variantId) ?? 0) * part.qty });
    } else pieces.push({ productId: line.product_id, weight: 1 });
    const pieceNets = shareSigned(
      lineNets[index]!,
      pieces.map((piece) => piece.weight),
    );
    for (const [pieceIndex, piece] of pieces.entries()) {
      const targets = await targetsOf(tx, piece.productId, soldAt);
      const targetNets = shareSigned(
        pieceNets[pieceIndex]!,
        targets.map(() => 1),
      );
      for (const [targetIndex, target] of targets.entries()) {
        slices.push({
          orderId,
          position: line.position,
          part: slices.filter((slice) => slice.position === line.position).length,
          ...target,
          netCents: targetNets[targetIndex]!,
          soldAt,
        });
      }
    }
  }
  await tx.insert(royaltySlices).values(slices).onConflictDoNothing();
  const rules = await rulesById(
    tx,
    slices.map((slice) => slice.ruleId).filter((id): id is number => id !== null),
  );
  const house = await houseParty(tx);
  const posting: Posting = { source: 'order', kind: 'sale', orderId, earnedAt: soldAt };
  for (const slice of slices) await postSlice(tx, posting, slice, { before: 0, after: slice.netCents }, slice.ruleId === null ? undefined : rules.get(slice.ruleId), house);
  await settleRecoup(tx, posting, slices);
}

/**
 * A return of `goodsCents` of an order's net sales: over the lines named (by their weights) or,
 * for an amount, over every line by what it has left; each line's total returned so far is shared
 * over its slices, and each slice's over the parties of the rule it was sold under, cumulatively
 * (decision 070), so a full return reverses exactly what the sale posted.
 */
export async function postReturn(tx: Tx, input: { source: string; orderId: string; earnedAt: Date; goodsCents: number; lines?: Map<number, number> }): Promise<void> {
  if (input.goodsCents === 0) return;
  const [seen] = await tx
    .select({ id: royaltyEntries.id })
    .from(royaltyEntries)
    .where(and(eq(royaltyEntries.orderId, input.orderId), eq(royaltyEntries.source, input.source)))
    .limit(1);
  if (seen) return;
  const slices = await tx.select().from(royaltySlices).where(eq(royaltySlices.orderId, input.orderId)).orderBy(royaltySlices.position, royaltySlices.part);
  if (slices.length === 0) return;
  const returned = await tx
    .select({ position: royaltyEntries.position, part: royaltyEntries.part, cents: sql<string>`coalesce(-sum(${royaltyEntries.amountCents}), 0)::text` })
    .from(royaltyEntries)
    .where(and(eq(royaltyEntries.orderId, input.orderId), eq(royaltyEntries.kind, 'return')))
    .groupBy(royaltyEntries.position, royaltyEntries.part);
  const returnedOf = new Map(returned.map((row) => [`${row.position}:${row.part}`, Number(row.cents)]));
  const positions = [...new Set(slices.map((slice) => slice.position))];
  const ofLine = (position: number) => slices.filter((slice) => slice.position === position);
  const lineReturned = (position: number) => ofLine(position).reduce((sum, slice) => sum + (returnedOf.get(`${slice.position}:${slice.part}`) ?? 0), 0);
  const weights = positions.map((position) =>
    input.lines ? (input.lines.get(position) ?? 0) : Math.max(0, ofLine(position).reduce((sum, slice) => sum + slice.netCents, 0) - lineReturned(position)),
  );
  const lineAmounts = shareSigned(input.goodsCents, weights);
  const rules = await rulesById(
    tx,
    slices.map((slice) => slice.ruleId).filter((id): id is number => id !== null),
  );
  const house = await houseParty(tx);
  const posting: Posting = { source: input.source, kind: 'return', orderId: input.orderId, earnedAt: input.earnedAt };
  for (const [index, position] of positions.entries()) {
    if (lineAmounts[index] === 0) continue;
    const lineSlices = ofLine(position);
    const before = lineSlices.map((slice) => returnedOf.get(`${slice.position}:${slice.part}`) ?? 0);
    const after = shareSigned(
      lineReturned(position) + lineAmounts[index]!,
      lineSlices.map((slice) => slice.netCents),
    );
    for (const [sliceIndex, slice] of lineSlices.entries()) {
      if (after[sliceIndex] === before[sliceIndex]) continue;
      // A return is a negative earning: the parties lose allocate(after) - allocate(before) of the sale's rule.
      await postSlice(tx, posting, slice, { before: -before[sliceIndex]!, after: -after[sliceIndex]! }, slice.ruleId === null ? undefined : rules.get(slice.ruleId), house);
    }
  }
  await settleRecoup(tx, posting, slices);
}

/** A desk refund's return (its goods part, as the sales overview splits it), posted with the refund's row. */
export async function postRefundReturn(tx: Tx, refundId: string): Promise<void> {
  const result = await tx.execute<
    OrderRow & {
      order_id: string;
      at: Date | string;
      amount: string;
      refund_shipping: string;
      refund_gift_cards: string;
      lines_paid: string;
      lines_tax: string;
      lines: { lineId: number; quantity: number }[];
    }
  >(sql`
    SELECT ${ORDER_COLUMNS}, r.order_id, r.created_at AS at, (r.wallet_cents + r.card_cents)::text AS amount, r.shipping_cents::text AS refund_shipping, r.lines,
           coalesce(sum(part.quantity * part.unit_cents) FILTER (WHERE part.gift_card), 0)::text AS refund_gift_cards,
           coalesce(sum(coalesce(round(part.quantity * part.paid_cents::numeric / part.qty), part.quantity * part.unit_cents)) FILTER (WHERE NOT part.gift_card), 0)::text AS lines_paid,
           coalesce(sum(coalesce(round(part.quantity * part.tax_cents::numeric / part.qty), round(part.quantity * part.unit_cents * 0.0925))) FILTER (WHERE NOT part.gift_card), 0)::text AS lines_tax
    FROM order_refund r JOIN "order" o ON o.id = r.order_id
    LEFT JOIN LATERAL (
      SELECT (line->>'quantity')::int AS quantity, i.qty, i.unit_cents, i.paid_cents, i.tax_cents,
             EXISTS (SELECT 1 FROM gift_card g WHERE g.order_id = i.order_id AND g.variant_id = i.variant_id) AS gift_card
      FROM jsonb_array_elements(r.lines) AS line JOIN order_item i ON i.order_id = r.order_id AND i.position = (line->>'lineId')::int
    ) AS part ON true
    WHERE r.id = ${refundId}
    GROUP BY r.id, o.id`);
  const row = result.rows[0];
  if (!row || Number(row.amount) <= 0) return;
  const goods = refundParts(partsOf(row), {
    amountCents: Number(row.amount),
    shippingCents: Number(row.refund_shipping),
    giftCardCents: Number(row.refund_gift_cards),
    linesPaidCents: Number(row.lines_paid),
    linesTaxCents: Number(row.lines_tax),
  }).goodsCents;
  const named = row.lines ?? [];
  const lines = named.length > 0 ? await namedLineWeights(tx, row.order_id, named) : undefined;
  await postReturn(tx, { source: `refund:${refundId}`, orderId: row.order_id, earnedAt: new Date(row.at), goodsCents: goods, ...(lines ? { lines } : {}) });
}

async function namedLineWeights(tx: Tx, orderId: string, named: { lineId: number; quantity: number }[]): Promise<Map<number, number>> {
  const items = await tx.execute<{ position: number; qty: number; unit: string; paid: string | null }>(
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

/** A counted refund that failed for good (the sales overview stops counting it): its entries reversed, once. */
export async function reverseFailedRefund(tx: Tx, refundId: string): Promise<void> {
  const entries = await tx
    .select()
    .from(royaltyEntries)
    .where(eq(royaltyEntries.source, `refund:${refundId}`));
  if (entries.length === 0) return;
  await tx
    .insert(royaltyEntries)
    .values(entries.map(({ id: _id, createdAt: _createdAt, ...entry }) => ({ ...entry, source: `refund-failed:${refundId}`, amountCents: -entry.amountCents })))
    .onConflictDoNothing();
}

/** A lost dispute: a return of the goods part of what the card gave back, as the sales overview splits it. */
export async function postDisputeLost(tx: Tx, input: { orderId: string; disputeId: string; amountCents: number; closedAt: Date }): Promise<void> {
  const order = await orderRow(tx, input.orderId);
  if (!order || input.amountCents <= 0) return;
  const goods = refundParts(partsOf(order), { amountCents: input.amountCents, shippingCents: 0, giftCardCents: 0, linesPaidCents: 0, linesTaxCents: 0 }).goodsCents;
  await postReturn(tx, { source: `dispute:${input.disputeId}`, orderId: input.orderId, earnedAt: input.closedAt, goodsCents: goods });
}

/**
 * What the card provider gave back outside the desk (a refund in Stripe's dashboard), as the
 * sales overview counts it: one return per order, the card refunded beyond the desk's refunds,
 * dated by the provider's last refund event. Each applied `charge.refunded` event moves that
 * return: the entries posted for the earlier events are reversed (dated as they were) and the
 * whole amount is posted again, dated by this event, so every day's sum stays the overview's.
 */
export async function repostProviderRefund(tx: Tx, orderId: string, eventId: string): Promise<void> {
  const outside = await tx.execute<OrderRow & { beyond: string; at: Date | string | null }>(sql`
    SELECT ${ORDER_COLUMNS},
           (o.refunded_card_cents - coalesce((SELECT sum(r.card_cents) FROM order_refund r WHERE r.order_id = o.id AND r.status <> 'failed'), 0))::text AS beyond,
           (SELECT max(e.created_at) FROM order_event e WHERE e.order_id = o.id AND e.kind = 'provider-refund') AS at
    FROM "order" o WHERE o.id = ${orderId} AND o.refund_status IS NOT NULL`);
  const row = outside.rows[0];
  const beyond = row ? Number(row.beyond) : 0;
  const posted = await tx
    .select()
    .from(royaltyEntries)
    .where(and(eq(royaltyEntries.orderId, orderId), sql`${royaltyEntries.source} LIKE 'provider-refund:%'`));
  const undone = new Set(
    (
      await tx
        .select({ source: royaltyEntries.source })
        .from(royaltyEntries)
        .where(and(eq(royaltyEntries.orderId, orderId), sql`${royaltyEntries.source} LIKE 'provider-refund-undo:%'`))
    ).map((entry) => entry.source.slice('provider-refund-undo:'.length)),
  );
  const live = posted.filter((entry) => !undone.has(entry.source.slice('provider-refund:'.length)));
  if (live.some((entry) => entry.source === `provider-refund:${eventId}`)) return;
  if (live.length > 0)
    await tx
      .insert(royaltyEntries)
      .values(
        live.map(({ id: _id, createdAt: _createdAt, ...entry }) => ({
          ...entry,
          source: `provider-refund-undo:${entry.source.slice('provider-refund:'.length)}`,
          amountCents: -entry.amountCents,
        })),
      )
      .onConflictDoNothing();
  if (!row || beyond <= 0 || !row.at) return;
  const goods = refundParts(partsOf(row), { amountCents: beyond, shippingCents: 0, giftCardCents: 0, linesPaidCents: 0, linesTaxCents: 0 }).goodsCents;
  await postReturn(tx, { source: `provider-refund:${eventId}`, orderId, earnedAt: new Date(row.at), goodsCents: goods });
}
