import { randomBytes, randomUUID } from 'node:crypto';
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { DROP_MESSAGES, GUARDED_DROP_STATUSES, type DropStatus } from '@storefront/domain/drops.ts';
import type { EditDropInput, ScheduleDropInput } from '@storefront/domain/drops-schemas.ts';
import { sha256Hex } from '@storefront/domain/drops.ts';
import { lineName } from '@storefront/domain/variants.ts';
import { recordAudit, type Actor } from '../audit/audit.service.ts';
import type { Db } from '../db/client.ts';
import { dropEntries, dropItems, drops, productImages, products, productVariants } from '../db/schema/index.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import { sqlState } from '../db/errors.ts';
import { AppError } from '../errors.ts';

/**
 * Drops as the label schedules them (issue 35, decision 066): the drop row, its variants and
 * the public and console views. The queue itself is drop-queue.service.ts.
 */

export type DropRow = typeof drops.$inferSelect;

export interface DropItemView {
  productId: string;
  variantId: string;
  name: string;
  priceCents: number;
  image: string | null;
  unitsLeft: number | null;
}

/** The drop's variants with their names, prices, first image and units left. */
export async function itemsOf(db: Db | Tx, dropIds: string[]): Promise<Map<string, DropItemView[]>> {
  const result = new Map<string, DropItemView[]>(dropIds.map((id) => [id, []]));
  if (dropIds.length === 0) return result;
  const rows = await db
    .select({
      dropId: dropItems.dropId,
      productId: products.id,
      variantId: productVariants.id,
      productName: products.name,
      optionValues: productVariants.optionValues,
      priceCents: sql<number>`coalesce(${productVariants.priceCents}, ${products.priceCents})`.mapWith(Number),
      image: sql<string | null>`(SELECT ${productImages.url} FROM ${productImages} WHERE ${productImages.productId} = ${products.id} ORDER BY ${productImages.position} LIMIT 1)`,
      stock: productVariants.stock,
    })
    .from(dropItems)
    .innerJoin(productVariants, eq(productVariants.id, dropItems.variantId))
    .innerJoin(products, eq(products.id, productVariants.productId))
    .where(inArray(dropItems.dropId, dropIds))
    .orderBy(products.name, productVariants.position);
  for (const row of rows) {
    result.get(row.dropId)!.push({
      productId: row.productId,
      variantId: row.variantId,
      name: lineName(row.productName, row.optionValues),
      priceCents: row.priceCents,
      image: row.image,
      unitsLeft: row.stock,
    });
  }
  return result;
}

/** What everyone may see of a drop (the seed only once revealed). */
export function publicView(drop: DropRow, items: DropItemView[], now = new Date()) {
  return {
    id: drop.id,
    slug: drop.slug,
    name: drop.name,
    status: drop.status,
    items,
    startsAt: drop.startsAt.toISOString(),
    queueOpensAt: drop.queueOpensAt.toISOString(),
    perCustomerLimit: drop.perCustomerLimit,
    admissionsPerMinute: drop.admissionsPerMinute,
    checkoutWindowSeconds: drop.checkoutWindowSeconds,
    challenge: drop.challenge,
    seedHash: drop.seedHash,
    entryListHash: drop.entryListHash,
    seed: drop.seedRevealedAt ? drop.seed : null,
    preQueueCount: drop.preQueueCount,
    entrants: drop.entryCount,
    nowServing: drop.nowServing,
    startedAt: drop.startedAt?.toISOString() ?? null,
    soldOutAt: drop.soldOutAt?.toISOString() ?? null,
    note: drop.note,
    serverTime: now.toISOString(),
  };
}

async function adminView(db: Db | Tx, drop: DropRow) {
  const items = (await itemsOf(db, [drop.id])).get(drop.id)!;
  const [counts] = await db
    .select({
      admittedNow: sql<number>`count(*) FILTER (WHERE ${dropEntries.status} = 'admitted')`.mapWith(Number),
      bought: sql<number>`count(*) FILTER (WHERE ${dropEntries.status} = 'bought')`.mapWith(Number),
    })
    .from(dropEntries)
    .where(eq(dropEntries.dropId, drop.id));
  return {
    ...publicView(drop, items),
    maxAdmitted: drop.maxAdmitted,
    admittedNow: counts?.admittedNow ?? 0,
    bought: counts?.bought ?? 0,
    challengeFailures: drop.challengeFailures,
    createdAt: drop.createdAt.toISOString(),
  };
}

export type AdminDropView = Awaited<ReturnType<typeof adminView>>;

export async function findDrop(db: Db | Tx, ref: { dropId: string } | { slug: string }): Promise<DropRow | undefined> {
  const [row] = await db
    .select()
    .from(drops)
    .where('dropId' in ref ? eq(drops.id, ref.dropId) : eq(drops.slug, ref.slug));
  return row;
}

export async function requireDrop(db: Db | Tx, ref: { dropId: string } | { slug: string }): Promise<DropRow> {
  const drop = await findDrop(db, ref);
  if (!drop) throw new AppError('not-found', DROP_MESSAGES.notFound);
  return drop;
}

export async function getPublicDrop(db: Db, ref: { dropId: string } | { slug: string }) {
  const drop = await requireDrop(db, ref);
  return publicView(drop, (await itemsOf(db, [drop.id])).get(drop.id)!);
}

/** Checks the chosen variants: they exist, none is a bundle, none is in another drop that has not ended. */
async function checkVariants(tx: Tx, variantIds: string[], dropId: string): Promise<void> {
  const unique = [...new Set(variantIds)];
  const found = await tx
    .select({ id: productVariants.id, bundle: products.bundle })
    .from(productVariants)
    .innerJoin(products, eq(products.id, productVariants.productId))
    .where(inArray(productVariants.id, unique));
  if (found.length !== unique.length) throw new AppError('invalid-argument', DROP_MESSAGES.unknownVariant, { variantIds: DROP_MESSAGES.unknownVariant });
  if (found.some((row) => row.bundle)) throw new AppError('invalid-argument', DROP_MESSAGES.bundleNotAllowed, { variantIds: DROP_MESSAGES.bundleNotAllowed });
  const taken = await tx
    .select({ variantId: dropItems.variantId })
    .from(dropItems)
    .innerJoin(drops, eq(drops.id, dropItems.dropId))
    .where(and(inArray(dropItems.variantId, unique), inArray(drops.status, [...GUARDED_DROP_STATUSES]), sql`${drops.id} <> ${dropId}`));
  if (taken.length > 0) throw new AppError('failed-precondition', DROP_MESSAGES.variantInOtherDrop, { variantIds: DROP_MESSAGES.variantInOtherDrop });
}

function refuseSlugTaken(error: unknown): never {
  if (sqlState(error) === '23505') throw new AppError('already-exists', DROP_MESSAGES.slugTaken, { slug: DROP_MESSAGES.slugTaken });
  throw error;
}

/** The label schedules a drop: the seed is made here and only its SHA-256 is shown until the start. */
export async function scheduleDrop(db: Db, actor: Actor, input: ScheduleDropInput, now = new Date()): Promise<AdminDropView> {
  if (Date.parse(input.startsAt) <= now.getTime()) throw new AppError('invalid-argument', DROP_MESSAGES.startInFuture, { startsAt: DROP_MESSAGES.startInFuture });
  const seed = randomBytes(32).toString('hex');
  const seedHash = await sha256Hex(seed);
  const id = randomUUID();
  return runTransaction(db, async (tx) => {
    await checkVariants(tx, input.variantIds, id);
    const [drop] = await tx
      .insert(drops)
      .values({
        id,
        slug: input.slug,
        name: input.name,
        startsAt: new Date(input.startsAt),
        queueOpensAt: new Date(input.queueOpensAt),
        perCustomerLimit: input.perCustomerLimit,
        admissionsPerMinute: input.admissionsPerMinute,
        maxAdmitted: input.maxAdmitted,
        checkoutWindowSeconds: input.checkoutWindowSeconds,
        challenge: input.challenge,
        seed,
        seedHash,
        createdBy: 'userId' in actor ? actor.userId : null,
      })
      .returning()
      .catch(refuseSlugTaken);
    await tx.insert(dropItems).values([...new Set(input.variantIds)].map((variantId) => ({ dropId: id, variantId })));
    const view = await adminView(tx, drop!);
    await recordAudit(tx, { actor, action: 'drop.schedule', targetType: 'drop', targetId: id, after: auditOf(view) });
    return view;
  });
}

/** What the audit log keeps of a drop (never the seed). */
function auditOf(view: AdminDropView) {
  const { items, serverTime: _serverTime, seed: _seed, ...rest } = view;
  return { ...rest, variantIds: items.map((item) => item.variantId) };
}

async function lockDrop(tx: Tx, dropId: string): Promise<DropRow> {
  const [drop] = await tx.select().from(drops).where(eq(drops.id, dropId)).for('update');
  if (!drop) throw new AppError('not-found', DROP_MESSAGES.notFound);
  return drop;
}

/** Changes a scheduled or postponed drop; the seed and its commitment stay. */
export async function editDrop(db: Db, actor: Actor, input: EditDropInput): Promise<AdminDropView> {
  return runTransaction(db, async (tx) => {
    const drop = await lockDrop(tx, input.dropId);
    if (drop.status !== 'scheduled' && drop.status !== 'postponed') throw new AppError('failed-precondition', DROP_MESSAGES.notEditable);
    const before = await adminView(tx, drop);
    const startsAt = input.startsAt ? new Date(input.startsAt) : drop.startsAt;
    const queueOpensAt = input.queueOpensAt ? new Date(input.queueOpensAt) : drop.queueOpensAt;
    if (input.startsAt && startsAt.getTime() <= Date.now()) throw new AppError('invalid-argument', DROP_MESSAGES.startInFuture, { startsAt: DROP_MESSAGES.startInFuture });
    if (queueOpensAt >= startsAt) throw new AppError('invalid-argument', DROP_MESSAGES.queueOpensBeforeStart, { queueOpensAt: DROP_MESSAGES.queueOpensBeforeStart });
    if (input.variantIds) {
      await checkVariants(tx, input.variantIds, drop.id);
      await tx.delete(dropItems).where(eq(dropItems.dropId, drop.id));
      await tx.insert(dropItems).values([...new Set(input.variantIds)].map((variantId) => ({ dropId: drop.id, variantId })));
    }
    const [updated] = await tx
      .update(drops)
      .set({
        ...(input.name ? { name: input.name } : {}),
        ...(input.slug ? { slug: input.slug } : {}),
        startsAt,
        queueOpensAt,
        ...(input.perCustomerLimit ? { perCustomerLimit: input.perCustomerLimit } : {}),
        ...(input.admissionsPerMinute ? { admissionsPerMinute: input.admissionsPerMinute } : {}),
        ...(input.maxAdmitted ? { maxAdmitted: input.maxAdmitted } : {}),
        ...(input.checkoutWindowSeconds ? { checkoutWindowSeconds: input.checkoutWindowSeconds } : {}),
        ...(input.challenge !== undefined ? { challenge: input.challenge } : {}),
        updatedAt: new Date(),
      })
      .where(eq(drops.id, drop.id))
      .returning()
      .catch(refuseSlugTaken);
    const view = await adminView(tx, updated!);
    await recordAudit(tx, { actor, action: 'drop.edit', targetType: 'drop', targetId: drop.id, before: auditOf(before), after: auditOf(view) });
    return view;
  });
}

/** Cancels or postpones a drop: entries are kept; the caller announces the new status after the commit. */
export async function changeDropStatus(
  db: Db,
  actor: Actor,
  dropId: string,
  change: { to: 'cancelled'; note: string | undefined } | { to: 'postponed'; startsAt: string; queueOpensAt: string | undefined; note: string | undefined },
): Promise<AdminDropView> {
  return runTransaction(db, async (tx) => {
    const drop = await lockDrop(tx, dropId);
    const allowed: DropStatus[] = change.to === 'cancelled' ? ['scheduled', 'postponed', 'live'] : ['scheduled', 'postponed'];
    if (!allowed.includes(drop.status)) throw new AppError('failed-precondition', change.to === 'cancelled' ? DROP_MESSAGES.alreadyEnded : DROP_MESSAGES.notEditable);
    const before = await adminView(tx, drop);
    let values: Partial<DropRow>;
    if (change.to === 'cancelled') values = { status: 'cancelled', note: change.note ?? null };
    else {
      const startsAt = new Date(change.startsAt);
      if (startsAt.getTime() <= Date.now()) throw new AppError('invalid-argument', DROP_MESSAGES.startInFuture, { startsAt: DROP_MESSAGES.startInFuture });
      const queueOpensAt = change.queueOpensAt ? new Date(change.queueOpensAt) : drop.queueOpensAt < startsAt ? drop.queueOpensAt : new Date(startsAt.getTime() - 60_000);
      values = { status: 'postponed', startsAt, queueOpensAt, note: change.note ?? null };
    }
    const [updated] = await tx
      .update(drops)
      .set({ ...values, updatedAt: new Date() })
      .where(eq(drops.id, dropId))
      .returning();
    // A cancelled drop's admissions end: its variants are no longer guarded.
    if (change.to === 'cancelled') {
      await tx
        .update(dropEntries)
        .set({ status: 'closed', endedAt: new Date() })
        .where(and(eq(dropEntries.dropId, dropId), eq(dropEntries.status, 'admitted')));
    }
    const view = await adminView(tx, updated!);
    await recordAudit(tx, {
      actor,
      action: `drop.${change.to === 'cancelled' ? 'cancel' : 'postpone'}`,
      targetType: 'drop',
      targetId: dropId,
      before: auditOf(before),
      after: auditOf(view),
    });
    return view;
  });
}

/** Every drop, latest start first, for the console. */
export async function listDrops(db: Db): Promise<AdminDropView[]> {
  const rows = await db.select().from(drops).orderBy(desc(drops.startsAt));
  const views: AdminDropView[] = [];
  for (const row of rows) views.push(await adminView(db, row));
  return views;
}

/** Drops whose queue may need a round: live, scheduled or postponed and due to start, or sold out with admissions still to end. */
export async function dropsToAdvance(db: Db, now = new Date()): Promise<string[]> {
  const rows = await db
    .select({ id: drops.id })
    .from(drops)
    .where(
      sql`${drops.status} = 'live' OR (${drops.status} IN ('scheduled', 'postponed') AND ${drops.startsAt} <= ${now})
        OR (${drops.status} = 'sold-out' AND EXISTS (SELECT 1 FROM ${dropEntries} WHERE ${dropEntries.dropId} = ${drops.id} AND ${dropEntries.status} = 'admitted'))`,
    );
  return rows.map((row) => row.id);
}

/** Drops a fan can still meet, soonest start first, with their products (the shop's links, a drop product's page). */
export async function listOpenDrops(db: Db) {
  const rows = await db
    .select()
    .from(drops)
    .where(inArray(drops.status, [...GUARDED_DROP_STATUSES]))
    .orderBy(drops.startsAt);
  const items = await itemsOf(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({
    id: row.id,
    slug: row.slug,
    name: row.name,
    status: row.status,
    startsAt: row.startsAt.toISOString(),
    productIds: [...new Set((items.get(row.id) ?? []).map((item) => item.productId))],
  }));
}
