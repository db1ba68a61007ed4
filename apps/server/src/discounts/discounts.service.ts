import { randomBytes } from 'node:crypto';
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { CreateDiscountCodeInput } from '@storefront/domain/discount-schemas.ts';
import { DISCOUNT_MESSAGES, normalizeCode, type DiscountRule } from '@storefront/domain/discounts.ts';
import { recordAudit, type Actor } from '../audit/audit.service.ts';
import type { Db } from '../db/client.ts';
import { discountCodes, discountUses } from '../db/schema/index.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';

/**
 * Discount codes and their uses (issue 27, decision 052). A use is taken by one conditional
 * UPDATE of the code's row (uses < limit, active, inside its dates) with the use's row in the
 * same statement, so many buyers racing for the last use get exactly one. A card checkout's
 * use is `held` like its units and credit: captured with the payment, released with the hold.
 */
type Reader = Db | Tx;

export type DiscountCodeRow = typeof discountCodes.$inferSelect;
export type Code = DiscountRule & { id: string };

function ruleOf(row: DiscountCodeRow): Code {
  return {
    id: row.id,
    code: row.code,
    kind: row.kind,
    value: row.value,
    scope: row.scope,
    categoryId: row.categoryId,
    productIds: row.productIds,
    minSubtotalCents: row.minSubtotalCents,
    startsAt: row.startsAt,
    endsAt: row.endsAt,
    useLimit: row.useLimit,
    uses: row.uses,
    oncePerAccount: row.oncePerAccount,
    active: row.active,
  };
}

/** The buyer's uses of this code: made by orders, and held by their open card checkouts (which a new one replaces). */
export async function buyerUses(db: Reader, codeId: string, userId: string): Promise<{ made: number; held: number }> {
  const [row] = await db
    .select({
      made: sql<number>`count(*) FILTER (WHERE ${discountUses.status} = 'used')`.mapWith(Number),
      held: sql<number>`count(*) FILTER (WHERE ${discountUses.status} = 'held')`.mapWith(Number),
    })
    .from(discountUses)
    .where(and(eq(discountUses.codeId, codeId), eq(discountUses.userId, userId)));
  return { made: row?.made ?? 0, held: row?.held ?? 0 };
}

/** The code a shopper typed (without case), or undefined. */
export async function findCode(db: Reader, typed: string): Promise<Code | undefined> {
  if (typed.trim() === '') return undefined;
  const [row] = await db
    .select()
    .from(discountCodes)
    .where(sql`upper(${discountCodes.code}) = ${normalizeCode(typed)}`);
  return row ? ruleOf(row) : undefined;
}

/**
 * Whether the buyer made (`made`) or also holds (`live`) a use of this code (once per account).
 * A use their open card checkout holds is counted only under their lock, after a new checkout
 * replaced (and released) it.
 */
export async function buyerUsedCode(db: Reader, codeId: string, userId: string, which: 'made' | 'live'): Promise<boolean> {
  const [row] = await db
    .select({ id: discountUses.id })
    .from(discountUses)
    .where(and(eq(discountUses.codeId, codeId), eq(discountUses.userId, userId), inArray(discountUses.status, which === 'live' ? ['held', 'used'] : ['used'])))
    .limit(1);
  return row !== undefined;
}

/**
 * Takes one use of the code for a checkout: `held` (a card checkout, until paid or released)
 * or `used` (an order made now). False when none is left, or the code stopped or is outside its
 * dates now. The code's row stays locked to the commit: callers take it after the buyer's and
 * wallet's rows and before the variants' (the stock step is always last).
 */
export async function takeUse(tx: Tx, use: { code: string; userId: string; checkoutId: string; status: 'held' | 'used'; discountCents: number }): Promise<boolean> {
  const rows = await tx.execute<{ id: number }>(sql`
    WITH taken AS (
      UPDATE ${discountCodes} SET uses = uses + 1
      WHERE upper(code) = ${normalizeCode(use.code)} AND active
        AND (use_limit IS NULL OR uses < use_limit)
        AND (starts_at IS NULL OR starts_at <= now()) AND (ends_at IS NULL OR ends_at > now())
      RETURNING id
    )
    INSERT INTO ${discountUses} (code_id, user_id, checkout_id, status, discount_cents)
    SELECT id, ${use.userId}, ${use.checkoutId}, ${use.status}, ${use.discountCents} FROM taken
    RETURNING id`);
  return rows.rows.length > 0;
}

/** A paid checkout's held use becomes an order's. False when it held none (it was released meanwhile). */
export async function captureUse(tx: Tx, checkoutId: string): Promise<boolean> {
  const rows = await tx
    .update(discountUses)
    .set({ status: 'used', settledAt: new Date() })
    .where(and(eq(discountUses.checkoutId, checkoutId), eq(discountUses.status, 'held')))
    .returning({ id: discountUses.id });
  return rows.length > 0;
}

/** Ended checkouts give their held uses back (once: only `held` rows change). */
export async function releaseUses(tx: Tx, checkoutIds: string[]): Promise<void> {
  if (checkoutIds.length === 0) return;
  await tx.execute(sql`
    WITH released AS (
      UPDATE ${discountUses} SET status = 'released', settled_at = now()
      WHERE checkout_id IN (${sql.join(
        checkoutIds.map((id) => sql`${id}`),
        sql`, `,
      )}) AND status = 'held'
      RETURNING code_id
    ), counted AS (SELECT code_id, count(*)::int AS n FROM released GROUP BY code_id)
    UPDATE ${discountCodes} c SET uses = c.uses - counted.n FROM counted WHERE c.id = counted.code_id`);
}

/** A refunded order's use counts no more (the label chose so). The code's text, or undefined when it had no live use. */
export async function returnUse(db: Db, checkoutId: string, actor: Actor, orderId: string): Promise<string | undefined> {
  return runTransaction(db, async (tx) => {
    const [use] = await tx
      .update(discountUses)
      .set({ status: 'returned', settledAt: new Date() })
      .where(and(eq(discountUses.checkoutId, checkoutId), eq(discountUses.status, 'used')))
      .returning({ codeId: discountUses.codeId });
    if (!use) return undefined;
    const [code] = await tx
      .update(discountCodes)
      .set({ uses: sql`${discountCodes.uses} - 1` })
      .where(eq(discountCodes.id, use.codeId))
      .returning({ code: discountCodes.code });
    await recordAudit(tx, { actor, action: 'discount.return-use', targetType: 'order', targetId: orderId, after: { code: code!.code } });
    return code!.code;
  });
}

export interface CodeSummary {
  id: string;
  code: string;
  kind: 'percent' | 'fixed';
  value: number;
  scope: 'order' | 'category' | 'products';
  categoryId: string | null;
  productIds: string[];
  minSubtotalCents: number;
  startsAt: string | null;
  endsAt: string | null;
  useLimit: number | null;
  oncePerAccount: boolean;
  active: boolean;
  uses: number;
  usedInOrders: number;
  held: number;
  returned: number;
  discountedCents: number;
  createdAt: string;
}

function summaryOf(row: DiscountCodeRow, counts?: { used: number; held: number; returned: number; cents: number }): CodeSummary {
  return {
    id: row.id,
    code: row.code,
    kind: row.kind,
    value: row.value,
    scope: row.scope,
    categoryId: row.categoryId,
    productIds: row.productIds,
    minSubtotalCents: row.minSubtotalCents,
    startsAt: row.startsAt?.toISOString() ?? null,
    endsAt: row.endsAt?.toISOString() ?? null,
    useLimit: row.useLimit,
    oncePerAccount: row.oncePerAccount,
    active: row.active,
    uses: row.uses,
    usedInOrders: counts?.used ?? 0,
    held: counts?.held ?? 0,
    returned: counts?.returned ?? 0,
    discountedCents: counts?.cents ?? 0,
    createdAt: row.createdAt.toISOString(),
  };
}

/** Every code with its uses, newest first. */
export async function listCodes(db: Db): Promise<CodeSummary[]> {
  const rows = await db.select().from(discountCodes).orderBy(desc(discountCodes.createdAt), desc(discountCodes.id));
  const counts = await db
    .select({
      codeId: discountUses.codeId,
      used: sql<number>`count(*) FILTER (WHERE ${discountUses.status} = 'used')`.mapWith(Number),
      held: sql<number>`count(*) FILTER (WHERE ${discountUses.status} = 'held')`.mapWith(Number),
      returned: sql<number>`count(*) FILTER (WHERE ${discountUses.status} = 'returned')`.mapWith(Number),
      cents: sql<number>`coalesce(sum(${discountUses.discountCents}) FILTER (WHERE ${discountUses.status} IN ('used', 'returned')), 0)`.mapWith(Number),
    })
    .from(discountUses)
    .groupBy(discountUses.codeId);
  const byCode = new Map(counts.map((row) => [row.codeId, row]));
  return rows.map((row) => summaryOf(row, byCode.get(row.id)));
}

async function summaryOne(tx: Reader, codeId: string): Promise<CodeSummary> {
  const [row] = await tx.select().from(discountCodes).where(eq(discountCodes.id, codeId));
  if (!row) throw new AppError('not-found', DISCOUNT_MESSAGES.unknown);
  const [counts] = await tx
    .select({
      used: sql<number>`count(*) FILTER (WHERE ${discountUses.status} = 'used')`.mapWith(Number),
      held: sql<number>`count(*) FILTER (WHERE ${discountUses.status} = 'held')`.mapWith(Number),
      returned: sql<number>`count(*) FILTER (WHERE ${discountUses.status} = 'returned')`.mapWith(Number),
      cents: sql<number>`coalesce(sum(${discountUses.discountCents}) FILTER (WHERE ${discountUses.status} IN ('used', 'returned')), 0)`.mapWith(Number),
    })
    .from(discountUses)
    .where(eq(discountUses.codeId, codeId));
  return summaryOf(row, counts);
}

/** The label makes a code; a code already taken (without case) is refused. */
export async function createCode(db: Db, actor: Actor, input: CreateDiscountCodeInput): Promise<CodeSummary> {
  const id = `dc_${randomBytes(9).toString('base64url')}`;
  return runTransaction(db, async (tx) => {
    const inserted = await tx
      .insert(discountCodes)
      .values({
        id,
        code: input.code,
        kind: input.kind,
        value: input.value,
        scope: input.scope,
        categoryId: input.scope === 'category' ? (input.categoryId ?? null) : null,
        productIds: input.scope === 'products' ? [...new Set(input.productIds ?? [])] : [],
        minSubtotalCents: input.minSubtotalCents ?? 0,
        startsAt: input.startsAt ? new Date(input.startsAt) : null,
        endsAt: input.endsAt ? new Date(input.endsAt) : null,
        useLimit: input.useLimit ?? null,
        oncePerAccount: input.oncePerAccount ?? false,
      })
      .onConflictDoNothing()
      .returning({ id: discountCodes.id });
    if (inserted.length === 0) throw new AppError('already-exists', DISCOUNT_MESSAGES.codeTaken);
    await recordAudit(tx, { actor, action: 'discount.create', targetType: 'discount-code', targetId: id, after: { ...input } });
    return summaryOne(tx, id);
  });
}

/** Stops a code (no new uses; held ones may still be paid) or starts it again. */
export async function setCodeActive(db: Db, actor: Actor, codeId: string, active: boolean): Promise<CodeSummary> {
  return runTransaction(db, async (tx) => {
    const [row] = await tx.update(discountCodes).set({ active }).where(eq(discountCodes.id, codeId)).returning({ code: discountCodes.code });
    if (!row) throw new AppError('not-found', DISCOUNT_MESSAGES.unknown);
    await recordAudit(tx, { actor, action: active ? 'discount.start' : 'discount.stop', targetType: 'discount-code', targetId: codeId, after: { code: row.code, active } });
    return summaryOne(tx, codeId);
  });
}

// ---- The reconciler's invariant (decision 052) ----------------------------------------------

/** Codes whose `uses` is not the number of their live (held or used) uses. */
export async function codeUseBreaks(db: Reader): Promise<{ codeId: string; code: string; uses: number; live: number }[]> {
  const rows = await db.execute<{ code_id: string; code: string; uses: number; live: number }>(sql`
    SELECT c.id AS code_id, c.code, c.uses, coalesce(u.live, 0)::int AS live
    FROM ${discountCodes} c
    LEFT JOIN (SELECT code_id, count(*)::int AS live FROM ${discountUses} WHERE status IN ('held', 'used') GROUP BY code_id) u ON u.code_id = c.id
    WHERE c.uses <> coalesce(u.live, 0)`);
  return rows.rows.map((row) => ({ codeId: row.code_id, code: row.code, uses: row.uses, live: row.live }));
}

/** The checkouts holding a code use (each must be pending). */
export async function checkoutsHoldingUses(db: Reader): Promise<string[]> {
  const rows = await db.selectDistinct({ checkoutId: discountUses.checkoutId }).from(discountUses).where(eq(discountUses.status, 'held'));
  return rows.map((row) => row.checkoutId);
}
