import { and, asc, desc, eq, gt, inArray, isNull, lte, lt, ne, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { checkouts, needsAttention, orders, paymentRefunds, products, productVariants, releaseProducts, users, wallets, type CheckoutLine } from '../db/schema/index.ts';
import { prepared } from '../db/prepared.ts';
import type { Tx } from '../db/transaction.ts';
import type { PricedVariant } from '../catalog/variants.service.ts';
import { checkoutStatesBefore, RefusedCheckoutTransition, type CheckoutStatus } from '@storefront/domain/checkout-states.ts';

/**
 * The checkout area's tables (decision 044): `checkout` (the pending side of a card payment),
 * `payment_refund` (card payments given back without an order) and `needs_attention` (what the
 * reconciler found). Every transition out of `pending` is one conditional UPDATE, so exactly
 * one caller ends a checkout and releases (or captures) its holds.
 */
type Reader = Db | Tx;

export type Checkout = typeof checkouts.$inferSelect;
// The table's statuses are the domain's checkout states, no more and no fewer (checked by the compiler).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const checkoutStatesMatch: Same<Checkout['status'], CheckoutStatus> = true;
export type { CheckoutLine };
export type NewCheckout = typeof checkouts.$inferInsert;
export type EndedCheckout = Pick<Checkout, 'id' | 'userId' | 'walletHeldCents' | 'providerSessionId' | 'items'> & Partial<Pick<Checkout, 'discountCode' | 'expiresAt'>>;

/**
 * Serialises one buyer's checkouts and limited orders (a transaction-scoped advisory lock):
 * "at most one open card checkout" and "limit N per customer" are then counted with nothing
 * of theirs in flight. Taken before any row lock, so it never waits while holding one.
 */
export async function lockBuyer(tx: Tx, userId: string): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`checkout-buyer:${userId}`}, 0))`);
}

/** One checkout by its id (ids are at most 100 characters). */
export async function findCheckout(db: Reader, checkoutId: string): Promise<Checkout | undefined> {
  const [checkout] = await db
    .select()
    .from(checkouts)
    .where(eq(checkouts.id, checkoutId.slice(0, 100)));
  return checkout;
}

/** The checkout, locked to the commit (a payment event applies to it once). */
export async function lockCheckout(tx: Tx, checkoutId: string): Promise<Checkout | undefined> {
  const [checkout] = await tx.select().from(checkouts).where(eq(checkouts.id, checkoutId)).for('update');
  return checkout;
}

export async function insertCheckout(tx: Tx, checkout: NewCheckout): Promise<void> {
  await tx.insert(checkouts).values(checkout);
}

export async function setPaymentSession(db: Db, checkoutId: string, session: { sessionId: string; url: string }): Promise<void> {
  await db.update(checkouts).set({ providerSessionId: session.sessionId, paymentUrl: session.url }).where(eq(checkouts.id, checkoutId));
}

/** The buyer's open card checkout, if any (at most one: a new one replaces it). */
export async function openCheckoutOf(db: Reader, userId: string): Promise<Checkout | undefined> {
  const [checkout] = await db
    .select()
    .from(checkouts)
    .where(and(eq(checkouts.userId, userId), eq(checkouts.status, 'pending')))
    .orderBy(desc(checkouts.createdAt))
    .limit(1);
  return checkout;
}

/**
 * Ends the pending checkouts `where` names with `status`, in the caller's transaction: one
 * conditional update decides, so a payment being applied (which holds the row's lock) and an
 * end never both win. Returns the rows it ended; the caller releases their holds.
 */
export async function endPending(tx: Tx, where: SQL | undefined, status: 'failed' | 'expired' | 'cancelled'): Promise<EndedCheckout[]> {
  return tx
    .update(checkouts)
    .set({ status, settledAt: new Date() })
    .where(and(where, eq(checkouts.status, 'pending')))
    .returning({
      id: checkouts.id,
      userId: checkouts.userId,
      walletHeldCents: checkouts.walletHeldCents,
      providerSessionId: checkouts.providerSessionId,
      items: checkouts.items,
      discountCode: checkouts.discountCode,
      expiresAt: checkouts.expiresAt,
    });
}

export const checkoutIs = (checkoutId: string) => eq(checkouts.id, checkoutId);
export const checkoutOf = (userId: string, checkoutId: string) => and(eq(checkouts.id, checkoutId), eq(checkouts.userId, userId));
export const otherCheckoutsOf = (userId: string, keep: string) => and(eq(checkouts.userId, userId), ne(checkouts.id, keep));

/**
 * Settles a checkout as paid or refunded, through the transition table (packages/domain,
 * checkout-states.ts): one conditional update from the states the table allows; any other
 * state (or no checkout) throws RefusedCheckoutTransition, so the caller's transaction rolls
 * back and the reconciler records the checkout as needing attention.
 */
export async function markCheckout(tx: Tx, checkoutId: string, status: 'paid' | 'refunded'): Promise<void> {
  const changed = await tx
    .update(checkouts)
    .set({ status, settledAt: new Date() })
    .where(and(eq(checkouts.id, checkoutId), inArray(checkouts.status, checkoutStatesBefore(status))))
    .returning({ id: checkouts.id });
  if (changed.length > 0) return;
  const current = await findCheckout(tx, checkoutId);
  throw new RefusedCheckoutTransition(checkoutId, current?.status ?? 'missing', status);
}

/**
 * Units of these variants the buyer's open checkouts would buy, alone or as a bundle's part
 * (their per-customer limits count them however they are bought: issue 40 item 6).
 */
export async function heldByBuyer(tx: Tx, userId: string, variantIds: string[]): Promise<Map<string, number>> {
  const ids = sql.join(
    variantIds.map((id) => sql`${id}`),
    sql`, `,
  );
  const rows = await tx.execute<{ variant_id: string; qty: number }>(sql`
    SELECT variant_id, sum(qty)::int AS qty FROM (
      SELECT line->>'variantId' AS variant_id, (line->>'qty')::int AS qty
      FROM ${checkouts} c, jsonb_array_elements(c.items) AS line
      WHERE c.user_id = ${userId} AND c.status = 'pending' AND line->'components' IS NULL AND line->>'variantId' IN (${ids})
      UNION ALL
      SELECT part->>'variantId', (line->>'qty')::int * (part->>'qty')::int
      FROM ${checkouts} c, jsonb_array_elements(c.items) AS line, jsonb_array_elements(line->'components') AS part
      WHERE c.user_id = ${userId} AND c.status = 'pending' AND jsonb_typeof(line->'components') = 'array' AND part->>'variantId' IN (${ids})
    ) AS taken GROUP BY 1`);
  return new Map(rows.rows.map((row) => [row.variant_id, row.qty]));
}

/** Which of these checkouts are pending (a held code use belongs to a pending checkout, decision 052). */
export async function pendingAmong(db: Reader, checkoutIds: string[]): Promise<Set<string>> {
  if (checkoutIds.length === 0) return new Set();
  const rows = await db
    .select({ id: checkouts.id })
    .from(checkouts)
    .where(and(inArray(checkouts.id, checkoutIds), eq(checkouts.status, 'pending')));
  return new Set(rows.map((row) => row.id));
}

/** Units every open checkout holds, per variant (the reconciler's invariant: a variant's `held`). */
export async function liveHeldUnits(db: Reader, variantId?: string): Promise<Map<string, number>> {
  // A bundle line (issue 27, decision 055) holds its counted parts, qty of each per bundle.
  const rows = await db.execute<{ variant_id: string; qty: number }>(sql`
    SELECT held.variant_id, sum(held.qty)::int AS qty FROM (
      SELECT line->>'variantId' AS variant_id, (line->>'qty')::int AS qty
      FROM ${checkouts} c, jsonb_array_elements(c.items) AS line
      WHERE c.status = 'pending' AND (line->>'stockHeld')::boolean IS TRUE AND line->'components' IS NULL
      UNION ALL
      SELECT part->>'variantId', (line->>'qty')::int * (part->>'qty')::int
      FROM ${checkouts} c, jsonb_array_elements(c.items) AS line, jsonb_array_elements(line->'components') AS part
      WHERE c.status = 'pending' AND (line->>'stockHeld')::boolean IS TRUE AND jsonb_typeof(line->'components') = 'array' AND (part->>'counted')::boolean IS TRUE
    ) AS held ${variantId ? sql`WHERE held.variant_id = ${variantId}` : sql``}
    GROUP BY 1`);
  return new Map(rows.rows.map((row) => [row.variant_id, row.qty]));
}

/** Wallet credit every open checkout holds, per buyer (the reconciler's invariant: a wallet's `held_cents`). */
export async function liveHeldCredit(db: Reader): Promise<Map<string, number>> {
  const rows = await db
    .select({ userId: checkouts.userId, cents: sql<number>`sum(${checkouts.walletHeldCents})`.mapWith(Number) })
    .from(checkouts)
    .where(eq(checkouts.status, 'pending'))
    .groupBy(checkouts.userId);
  return new Map(rows.map((row) => [row.userId, row.cents]));
}

/** Pending checkouts whose hold ended by `now`, oldest deadline first, after a cursor. */
export async function dueCheckouts(db: Reader, now: Date, limit: number, after?: { expiresAt: Date; id: string }): Promise<Checkout[]> {
  const cursor = after ? sql`(${checkouts.expiresAt}, ${checkouts.id}) > (${after.expiresAt}, ${after.id})` : undefined;
  return db
    .select()
    .from(checkouts)
    .where(and(eq(checkouts.status, 'pending'), lte(checkouts.expiresAt, now), cursor))
    .orderBy(asc(checkouts.expiresAt), asc(checkouts.id))
    .limit(limit);
}

/** Pending checkouts still inside their hold but older than `before` (their payment event may have been missed), oldest first. */
export async function quietCheckouts(db: Reader, now: Date, before: Date, limit: number): Promise<Checkout[]> {
  return db
    .select()
    .from(checkouts)
    .where(and(eq(checkouts.status, 'pending'), gt(checkouts.expiresAt, now), lt(checkouts.createdAt, before)))
    .orderBy(asc(checkouts.createdAt))
    .limit(limit);
}

/** Paid checkouts settled since `since` that have no order, and refunded ones with no refund row: breaks of the invariant. */
export async function settledWithoutOutcome(db: Reader, since: Date): Promise<{ id: string; status: string }[]> {
  const rows = await db.execute<{ id: string; status: string }>(sql`
    SELECT c.id, c.status FROM ${checkouts} c
    WHERE c.settled_at >= ${since} AND (
      (c.status = 'paid' AND NOT EXISTS (SELECT 1 FROM ${orders} o WHERE o.checkout_id = c.id))
      OR (c.status = 'refunded' AND NOT EXISTS (SELECT 1 FROM ${paymentRefunds} r WHERE r.checkout_id = c.id)))
    ORDER BY c.settled_at`);
  return rows.rows;
}

/** A card payment to give back without an order, once per checkout (the refund job sends it). */
export async function recordPaymentRefund(tx: Tx, refund: typeof paymentRefunds.$inferInsert): Promise<boolean> {
  const recorded = await tx.insert(paymentRefunds).values(refund).onConflictDoNothing().returning({ checkoutId: paymentRefunds.checkoutId });
  return recorded.length > 0;
}

export async function findPaymentRefund(db: Reader, checkoutId: string) {
  const [row] = await db.select().from(paymentRefunds).where(eq(paymentRefunds.checkoutId, checkoutId));
  return row;
}

export async function settlePaymentRefund(db: Db, checkoutId: string, outcome: { providerRefundId?: string; refundedAt?: Date; failure?: string }): Promise<void> {
  await db.update(paymentRefunds).set(outcome).where(eq(paymentRefunds.checkoutId, checkoutId));
}

// ---- Needs attention (decision 044) ---------------------------------------------------------

export interface Attention {
  kind: string;
  subject: string;
  detail: string;
  healed?: boolean;
}

/** Records a finding once per kind and subject (found again: its detail is brought up to date). True when new. */
export async function recordAttention(db: Reader, finding: Attention): Promise<boolean> {
  const rows = await db
    .insert(needsAttention)
    .values({ ...finding, healed: finding.healed ?? false })
    .onConflictDoUpdate({
      target: [needsAttention.kind, needsAttention.subject],
      set: { detail: finding.detail, healed: finding.healed ?? false, resolvedAt: null },
      setWhere: isNull(needsAttention.resolvedAt),
    })
    .returning({ created: sql<boolean>`(xmax = 0)` });
  return rows[0]?.created ?? false;
}

export async function listAttention(db: Reader, options: { open: boolean; limit: number }) {
  return db
    .select()
    .from(needsAttention)
    .where(options.open ? isNull(needsAttention.resolvedAt) : undefined)
    .orderBy(desc(needsAttention.createdAt), desc(needsAttention.id))
    .limit(options.limit);
}

export async function countOpenAttention(db: Reader): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(needsAttention)
    .where(isNull(needsAttention.resolvedAt));
  return row?.n ?? 0;
}

export async function resolveAttention(db: Db, id: number): Promise<boolean> {
  const rows = await db
    .update(needsAttention)
    .set({ resolvedAt: new Date() })
    .where(and(eq(needsAttention.id, id), isNull(needsAttention.resolvedAt)))
    .returning({ id: needsAttention.id });
  return rows.length > 0;
}

// ---- The wallet-only order's start (a read model, decision 044) -----------------------------

function walletOrderStartQuery(db: Db) {
  return db
    .select({
      email: users.email,
      name: users.name,
      balanceCents: wallets.balanceCents,
      orderId: orders.id,
      paymentIntentId: orders.paymentIntentId,
      products: sql<(PricedVariant & { limited: boolean; bundle: boolean; grants: boolean })[]>`(
        SELECT coalesce(json_agg(json_build_object('id', p.id, 'name', p.name, 'priceCents', coalesce(v.price_cents, p.price_cents),
          'variantId', v.id, 'optionValues', v.option_values, 'stock', v.stock, 'limited', v.per_customer_limit IS NOT NULL, 'digital', p.digital OR p.gift_card,
          'giftCard', p.gift_card,
          'weightGrams', coalesce(v.weight_grams, p.weight_grams),
          'releaseDate', coalesce(v.release_date, p.release_date)::text,
          'nameYourPrice', p.name_your_price,
          'bundle', p.bundle,
          'grants', EXISTS (SELECT 1 FROM ${releaseProducts} rp WHERE rp.product_id = p.id))), '[]')
        FROM ${products} p JOIN ${productVariants} v ON v.product_id = p.id
        WHERE p.id = ANY(${sql.placeholder('productIds')}::text[]) AND p.is_active)`,
    })
    .from(users)
    .leftJoin(wallets, eq(wallets.userId, users.id))
    .leftJoin(orders, eq(orders.checkoutId, sql.placeholder('checkoutId')))
    .where(eq(users.id, sql.placeholder('userId')))
    .prepare('wallet_order_start');
}

/**
 * What a wallet-only order starts from, in one read (a prepared statement): the buyer (for
 * the receipt), their balance, the order already made for this checkout id if any, and the
 * cart's active variants with their database prices. The one read of this area that joins
 * other areas' tables: it is the hot path of a drop, and one round trip instead of four
 * (decision 015); it only reads.
 */
export async function walletOrderStart(db: Db, userId: string, checkoutId: string, productIds: string[]) {
  const [row] = await prepared(db, 'wallet_order_start', walletOrderStartQuery).execute({ userId, checkoutId, productIds });
  return row;
}
