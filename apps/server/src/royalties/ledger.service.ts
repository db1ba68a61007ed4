import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { allocate, FULL_SHARE_BP, recoupedAfter, reserveOf, shareSigned } from '@storefront/domain/royalties.ts';
import { royaltyCosts, royaltyEntries, royaltyParties, royaltyRules, royaltyRuleShares, royaltySlices } from '../db/schema/index.ts';
import type { Tx } from '../db/transaction.ts';

/**
 * The royalty ledger (issue 36 part 3, decisions 070 and 075). Each paid order, refund and lost
 * dispute posts, in the transaction that moves the money, append-only entries per party; the
 * unique key (source, line, part, party, kind) makes a second posting of one event a no-op.
 * What an event earns or returns is the sales overview's own figure, so the ledger sums to the
 * overview's net sales: the flows that move the money hand it over, read by the orders' read
 * model (orders/order-figures.service.ts), and the ledger reads no order itself.
 */

type Slice = typeof royaltySlices.$inferSelect;
type Share = { partyId: number; shareBp: number };
type Rule = { id: number; reserveBp: number; reserveDays: number; shares: Share[] };

/** A paid order as the ledger earns it (orders' `saleToPost`). */
export type SaleToPost = {
  orderId: string;
  soldAt: Date;
  /** Net sales: goods after discount, net of included VAT, without gift cards. */
  netCents: number;
  /** The goods lines (gift cards left out) with what each paid; a bundle's parts. */
  lines: { position: number; productId: string; paidCents: number; components: { productId: string; variantId: string; qty: number }[] }[];
};

/** A return of `goodsCents` of an order's net sales, over the named lines by their weights or, without, over every line. */
export type ReturnToPost = { source: string; orderId: string; earnedAt: Date; goodsCents: number; lines?: Map<number, number> };

async function houseParty(tx: Tx): Promise<number> {
  const [house] = await tx.select({ id: royaltyParties.id }).from(royaltyParties).where(eq(royaltyParties.house, true));
  return house!.id;
}

type Target = { productId: string; releaseId: number | null; ruleId: number | null };

/** The rule of a subject in force at `at` (SQL, for the subject `kind` whose id is `subjectId`): the latest that applies from then or before (ties: the newest). */
const ruleInForce = (kind: 'release' | 'product' | 'artist', subjectId: SQL, at: Date) => sql`(
  SELECT r.id FROM royalty_rule r WHERE r.subject_kind = ${kind} AND r.subject_id = ${subjectId} AND r.effective_from <= ${at}
  ORDER BY r.effective_from DESC, r.id DESC LIMIT 1)`;

type EarningsPlan = {
  /** The order's slices are written already: a second call posts nothing. */
  posted: boolean;
  house: number;
  targets: Map<string, Target[]>;
  /** Releases among the targets with recoupable costs (recoup is settled only for them). */
  withCosts: Set<number>;
};

/**
 * Everything a sale's posting needs to know, in one round trip (issue 35's order cost): whether
 * it is posted, the label's party, and who each product's sales go to (decision 070): its own
 * rule; else its release's (the release it sells or carries); else its credited artists' roster
 * defaults, shared equally (those that have one, product credits first, each artist once); else
 * the label alone (no rule).
 */
async function earningsPlan(tx: Tx, orderId: string, productIds: string[], at: Date): Promise<EarningsPlan> {
  const result = await tx.execute<{
    product_id: string;
    release_id: number | null;
    product_rule: number | null;
    release_rule: number | null;
    artist_rules: number[];
    has_costs: boolean;
    posted: boolean;
    house: number;
  }>(sql`
    SELECT p.product_id, l.release_id,
           ${ruleInForce('product', sql`p.product_id`, at)} AS product_rule,
           ${ruleInForce('release', sql`l.release_id::text`, at)} AS release_rule,
           (SELECT coalesce(json_agg(c.rule ORDER BY c.source, c.position, c.artist_id), '[]'::json) FROM (
              SELECT DISTINCT ON (a.artist_id) a.artist_id, a.source, a.position, ${ruleInForce('artist', sql`a.artist_id::text`, at)} AS rule
              FROM (SELECT artist_id, position, 0 AS source FROM product_artist WHERE product_id = p.product_id
                    UNION ALL SELECT artist_id, position, 1 FROM release_artist WHERE release_id = l.release_id) a
              ORDER BY a.artist_id, a.source, a.position) c
            WHERE c.rule IS NOT NULL) AS artist_rules,
           EXISTS (SELECT 1 FROM royalty_cost k WHERE k.release_id = l.release_id) AS has_costs,
           EXISTS (SELECT 1 FROM royalty_slice s WHERE s.order_id = ${orderId}) AS posted,
           (SELECT h.id FROM royalty_party h WHERE h.house) AS house
    FROM unnest(ARRAY[${sql.join(
      productIds.map((id) => sql`${id}`),
      sql`, `,
    )}]::text[]) AS p(product_id)
    LEFT JOIN release_product l ON l.product_id = p.product_id`);
  const targets = new Map<string, Target[]>();
  const withCosts = new Set<number>();
  for (const row of result.rows) {
    const base = { productId: row.product_id, releaseId: row.release_id };
    if (row.has_costs && row.release_id !== null) withCosts.add(row.release_id);
    if (row.product_rule !== null) targets.set(row.product_id, [{ ...base, ruleId: row.product_rule }]);
    else if (row.release_rule !== null) targets.set(row.product_id, [{ ...base, ruleId: row.release_rule }]);
    else if (row.artist_rules.length > 0)
      targets.set(
        row.product_id,
        row.artist_rules.map((ruleId) => ({ ...base, ruleId })),
      );
    else targets.set(row.product_id, [{ ...base, ruleId: null }]);
  }
  const first = result.rows[0];
  return { posted: first?.posted ?? false, house: first?.house ?? (await houseParty(tx)), targets, withCosts };
}

/** Rules with their shares (in order), in one round trip. */
async function rulesById(tx: Tx, ids: number[]): Promise<Map<number, Rule>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rules = await tx
    .select({
      id: royaltyRules.id,
      reserveBp: royaltyRules.reserveBp,
      reserveDays: royaltyRules.reserveDays,
      shares: sql<Share[]>`coalesce((SELECT json_agg(json_build_object('partyId', s.party_id, 'shareBp', s.share_bp) ORDER BY s.position)
        FROM ${royaltyRuleShares} s WHERE s.rule_id = ${royaltyRules.id}), '[]'::json)`,
    })
    .from(royaltyRules)
    .where(inArray(royaltyRules.id, unique));
  return new Map(rules.map((rule) => [rule.id, rule]));
}

type Posting = { source: string; kind: 'sale' | 'return'; orderId: string; earnedAt: Date };

/** The entries of one slice's amount (positive: earned; negative: returned) to its rule's parties, with their reserves. */
function entryRows(posting: Posting, slice: Slice, amounts: { before: number; after: number }, rule: Rule | undefined, house: number): (typeof royaltyEntries.$inferInsert)[] {
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
  return rows;
}

async function insertEntries(tx: Tx, rows: (typeof royaltyEntries.$inferInsert)[]): Promise<void> {
  if (rows.length > 0) await tx.insert(royaltyEntries).values(rows).onConflictDoNothing();
}

/**
 * Recoup (decision 070): after a posting, each party's recouped total of a release with costs is
 * min(costs, max(0, its earnings of the release)); the difference is posted as a recoup entry.
 */
async function settleRecoup(tx: Tx, posting: Posting, slices: Slice[], withCosts?: Set<number>): Promise<void> {
  const releaseIds = [...new Set(slices.map((slice) => slice.releaseId).filter((id): id is number => id !== null && (!withCosts || withCosts.has(id))))];
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
export async function postOrderEarnings(tx: Tx, sale: SaleToPost): Promise<void> {
  const { orderId, soldAt } = sale;
  if (sale.lines.length === 0) return;
  const productIds = new Set(sale.lines.flatMap((line) => (line.components.length > 0 ? line.components.map((part) => part.productId) : [line.productId])));
  const plan = await earningsPlan(tx, orderId, [...productIds], soldAt);
  if (plan.posted) return;
  const lineNets = shareSigned(
    sale.netCents,
    sale.lines.map((line) => line.paidCents),
  );
  // A bundle's parts share its line by their prices: one more read, only for a bundle.
  const partVariants = sale.lines.flatMap((line) => line.components.map((part) => part.variantId));
  const price = partVariants.length > 0 ? await variantPrices(tx, partVariants) : new Map<string, number>();
  const slices: Slice[] = [];
  for (const [index, line] of sale.lines.entries()) {
    const pieces =
      line.components.length > 0
        ? line.components.map((part) => ({ productId: part.productId, weight: (price.get(part.variantId) ?? 0) * part.qty }))
        : [{ productId: line.productId, weight: 1 }];
    const pieceNets = shareSigned(
      lineNets[index]!,
      pieces.map((piece) => piece.weight),
    );
    let part = 0;
    for (const [pieceIndex, piece] of pieces.entries()) {
      const targets = plan.targets.get(piece.productId)!;
      const targetNets = shareSigned(
        pieceNets[pieceIndex]!,
        targets.map(() => 1),
      );
      for (const [targetIndex, target] of targets.entries()) {
        slices.push({ orderId, position: line.position, part, ...target, netCents: targetNets[targetIndex]!, soldAt });
        part += 1;
      }
    }
  }
  await tx.insert(royaltySlices).values(slices).onConflictDoNothing();
  const rules = await rulesById(
    tx,
    slices.map((slice) => slice.ruleId).filter((id): id is number => id !== null),
  );
  const posting: Posting = { source: 'order', kind: 'sale', orderId, earnedAt: soldAt };
  await insertEntries(
    tx,
    slices.flatMap((slice) => entryRows(posting, slice, { before: 0, after: slice.netCents }, slice.ruleId === null ? undefined : rules.get(slice.ruleId), plan.house)),
  );
  if (plan.withCosts.size > 0) await settleRecoup(tx, posting, slices, plan.withCosts);
}

/** The list prices of variants (a variant without its own price: its product's). */
async function variantPrices(tx: Tx, variantIds: string[]): Promise<Map<string, number>> {
  const prices = await tx.execute<{ id: string; price: string }>(sql`
    SELECT v.id, coalesce(v.price_cents, p.price_cents)::text AS price FROM product_variant v JOIN product p ON p.id = v.product_id
    WHERE v.id IN (${sql.join(
      variantIds.map((id) => sql`${id}`),
      sql`, `,
    )})`);
  return new Map(prices.rows.map((row) => [row.id, Number(row.price)]));
}

/**
 * A return of `goodsCents` of an order's net sales: over the lines named (by their weights) or,
 * for an amount, over every line by what it has left; each line's total returned so far is shared
 * over its slices, and each slice's over the parties of the rule it was sold under, cumulatively
 * (decision 070), so a full return reverses exactly what the sale posted.
 */
export async function postReturn(tx: Tx, input: ReturnToPost | undefined): Promise<void> {
  if (!input || input.goodsCents === 0) return;
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
  const rows: (typeof royaltyEntries.$inferInsert)[] = [];
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
      rows.push(...entryRows(posting, slice, { before: -before[sliceIndex]!, after: -after[sliceIndex]! }, slice.ruleId === null ? undefined : rules.get(slice.ruleId), house));
    }
  }
  await insertEntries(tx, rows);
  await settleRecoup(tx, posting, slices);
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

/**
 * What the card provider gave back outside the desk (a refund in Stripe's dashboard), as the
 * sales overview counts it: one return per order, the card refunded beyond the desk's refunds,
 * dated by the provider's last refund event. Each applied `charge.refunded` event moves that
 * return: the entries posted for the earlier events are reversed (dated as they were) and the
 * whole amount is posted again, dated by this event, so every day's sum stays the overview's.
 */
export async function repostProviderRefund(tx: Tx, orderId: string, eventId: string, outside: ReturnToPost | undefined): Promise<void> {
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
  await postReturn(tx, outside);
}
