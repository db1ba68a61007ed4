import { randomBytes } from 'node:crypto';
import { and, asc, eq, inArray, isNotNull, lte, sql } from 'drizzle-orm';
import type { SetStockInput, VariantInput } from '@storefront/domain/catalog-schemas.ts';
import { BUNDLE_MESSAGES, type BundlePart } from '@storefront/domain/bundles.ts';
import { RELEASE_MESSAGES } from '@storefront/domain/catalog.ts';
import { LOW_STOCK_THRESHOLD, lineName, sameValues } from '@storefront/domain/variants.ts';
import { recordAudit, type Actor } from '../audit/audit.service.ts';
import type { Db } from '../db/client.ts';
import { bundleComponents, products, productVariants, stockMovements } from '../db/schema/index.ts';
import { sqlState } from '../db/errors.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';
import { liveNotification, publishLive } from '../live/live.publish.ts';

/**
 * Variants and their stock (issue 15, decision 027). Every change of a variant's stock is
 * one conditional UPDATE on its row: the row lock Postgres takes for it is the only lock,
 * held to the commit of the order or checkout that makes the change, and a row that would
 * go below zero is simply not updated.
 */

/** Sets a product's variants to `wanted` (in order): kept by option values, stock changes audited. */
export async function replaceVariants(tx: Tx, productId: string, wanted: VariantInput[], actorId: string | null): Promise<void> {
  const existing = await tx.select().from(productVariants).where(eq(productVariants.productId, productId)).orderBy(asc(productVariants.id)).for('update');
  const kept = new Set<string>();
  for (const [position, variant] of wanted.entries()) {
    const match = existing.find((row) => !kept.has(row.id) && sameValues(row.optionValues, variant.options));
    if (match) {
      kept.add(match.id);
      const stock = variant.keepStock ? match.stock : variant.stock;
      await tx
        .update(productVariants)
        .set({
          position,
          sku: variant.sku,
          priceCents: variant.priceCents,
          stock,
          perCustomerLimit: variant.perCustomerLimit === undefined ? match.perCustomerLimit : variant.perCustomerLimit,
          weightGrams: variant.weightGrams === undefined ? match.weightGrams : variant.weightGrams,
          releaseDate: variant.releaseDate === undefined ? match.releaseDate : variant.releaseDate,
          updatedAt: new Date(),
        })
        .where(eq(productVariants.id, match.id));
      if (match.stock !== stock) await tx.insert(stockMovements).values({ variantId: match.id, actorId, fromStock: match.stock, toStock: stock, reason: 'product edit' });
      continue;
    }
    // The default variant's id is the product's: a cart line without a variant means it.
    const id = variant.options.length === 0 && !existing.some((row) => row.id === productId) ? productId : `${productId}~${randomBytes(6).toString('base64url')}`;
    kept.add(id);
    await tx.insert(productVariants).values({
      id,
      productId,
      position,
      optionValues: variant.options,
      sku: variant.sku,
      priceCents: variant.priceCents,
      stock: variant.stock,
      perCustomerLimit: variant.perCustomerLimit ?? null,
      weightGrams: variant.weightGrams ?? null,
      releaseDate: variant.releaseDate ?? null,
    });
    if (variant.stock !== null) await tx.insert(stockMovements).values({ variantId: id, actorId, fromStock: null, toStock: variant.stock, reason: 'release' });
  }
  const removed = existing.filter((row) => !kept.has(row.id));
  if (removed.some((row) => row.held > 0)) {
    throw new AppError('failed-precondition', 'A variant with unpaid checkouts cannot be removed yet. Please try again once they are paid or expired.');
  }
  if (removed.length > 0) {
    // A bundle never sells without one of its parts (issue 27, decision 055).
    const [inBundle] = await tx
      .select({ id: bundleComponents.componentVariantId })
      .from(bundleComponents)
      .where(
        inArray(
          bundleComponents.componentVariantId,
          removed.map((row) => row.id),
        ),
      )
      .limit(1);
    if (inBundle) throw new AppError('failed-precondition', BUNDLE_MESSAGES.componentInBundle);
  }
  if (removed.length > 0)
    await tx.delete(productVariants).where(
      inArray(
        productVariants.id,
        removed.map((row) => row.id),
      ),
    );
}

/**
 * A restock or stock correction of one variant, audited (who, when, from, to) and announced live.
 * A variant that sold unlimited and is now given a stock starts counting: its `sold` becomes what
 * its orders bought (`soldByOrders`, from the orders area), so stock + held + sold holds from here on.
 */
export async function setStock(
  db: Db,
  actor: Actor,
  input: SetStockInput,
  soldByOrders: (tx: Tx, variantId: string) => Promise<number>,
): Promise<{ from: number | null; to: number | null }> {
  return runTransaction(db, async (tx) => {
    const [row] = await tx.select().from(productVariants).where(eq(productVariants.id, input.variantId)).for('update');
    if (!row) throw new AppError('not-found', RELEASE_MESSAGES.notFound);
    // Already so (a repeated or concurrent request): nothing changed, nothing to audit.
    if (row.stock === input.stock) return { from: row.stock, to: input.stock };
    const startsCounting = row.stock === null && input.stock !== null;
    const sold = startsCounting ? await soldByOrders(tx, row.id) : row.sold;
    await tx.update(productVariants).set({ stock: input.stock, sold, updatedAt: new Date() }).where(eq(productVariants.id, row.id));
    const actorId = 'userId' in actor ? actor.userId : null;
    await tx.insert(stockMovements).values({ variantId: row.id, actorId, fromStock: row.stock, toStock: input.stock, reason: input.reason || 'restock' });
    // Also in the admin activity log (decision 031), beside the other admin changes.
    await recordAudit(tx, {
      actor,
      action: 'stock.set',
      targetType: 'variant',
      targetId: row.id,
      before: { stock: row.stock },
      after: { stock: input.stock, reason: input.reason || 'restock' },
    });
    await publishLive(tx, { topic: 'products', id: row.productId });
    return { from: row.stock, to: input.stock };
  });
}

export interface LowStockRow {
  productId: string;
  productName: string;
  variantId: string;
  options: string[];
  sku: string;
  stock: number;
}

/** Variants with LOW_STOCK_THRESHOLD or fewer left, fewest first (the /release low-stock list). */
export async function listLowStock(db: Db): Promise<LowStockRow[]> {
  const rows = await db
    .select({
      productId: products.id,
      productName: products.name,
      variantId: productVariants.id,
      options: productVariants.optionValues,
      sku: productVariants.sku,
      stock: productVariants.stock,
    })
    .from(productVariants)
    .innerJoin(products, eq(products.id, productVariants.productId))
    .where(and(isNotNull(productVariants.stock), lte(productVariants.stock, LOW_STOCK_THRESHOLD)))
    .orderBy(asc(productVariants.stock), asc(products.name), asc(productVariants.position))
    .limit(200);
  return rows.map((row) => ({ ...row, stock: row.stock ?? 0 }));
}

/** A bundle part with what is left of it now (null: unlimited; 0 when its product is withdrawn). */
export type PartWithStock = BundlePart & { stock: number | null };

/** The parts of these bundle variants, in position order, with their components' stock. */
export async function partsOf(db: Db | Tx, bundleVariantIds: string[]): Promise<Map<string, PartWithStock[]>> {
  const parts = new Map<string, PartWithStock[]>();
  if (bundleVariantIds.length === 0) return parts;
  const rows = await db
    .select({
      bundleVariantId: bundleComponents.bundleVariantId,
      qty: bundleComponents.qty,
      productId: products.id,
      productName: products.name,
      isActive: products.isActive,
      variantId: productVariants.id,
      optionValues: productVariants.optionValues,
      stock: productVariants.stock,
    })
    .from(bundleComponents)
    .innerJoin(productVariants, eq(productVariants.id, bundleComponents.componentVariantId))
    .innerJoin(products, eq(products.id, productVariants.productId))
    .where(inArray(bundleComponents.bundleVariantId, bundleVariantIds))
    .orderBy(asc(bundleComponents.bundleVariantId), asc(bundleComponents.position));
  for (const row of rows) {
    const part: PartWithStock = {
      productId: row.productId,
      variantId: row.variantId,
      name: lineName(row.productName, row.optionValues),
      qty: row.qty,
      counted: row.stock !== null,
      // A withdrawn component cannot be sold: its bundle is sold out until it is back.
      stock: row.isActive ? row.stock : 0,
    };
    parts.set(row.bundleVariantId, [...(parts.get(row.bundleVariantId) ?? []), part]);
  }
  return parts;
}

/** One variant of an active product, at its database price (issue 15). */
export interface PricedVariant {
  /** The product. */
  id: string;
  name: string;
  priceCents: number;
  variantId: string;
  optionValues: string[];
  /** null: unlimited. */
  stock: number | null;
  /** A digital item: no shipping (issue 28). */
  digital?: boolean;
  /** Grams of one unit (decision 060); null: not weighed. */
  weightGrams?: number | null;
  /** A preorder's street date, the variant's own or its product's (decision 054); null: out now. */
  releaseDate?: string | null;
  /** The buyer names the price, at least priceCents (issue 28). */
  nameYourPrice?: boolean;
  /** A gift card (issue 27, decision 053): ships nothing, never taxed, bought by card alone. */
  giftCard?: boolean;
  /** A bundle's variant (issue 27): the parts it takes, with their stock. */
  components?: PartWithStock[];
}

/** The variants of these products that are on sale, at their prices (checkout re-prices every cart from here). */
export async function pricedVariants(db: Db | Tx, productIds: string[]): Promise<PricedVariant[]> {
  const rows = await db
    .select({
      id: products.id,
      name: products.name,
      priceCents: sql<number>`coalesce(${productVariants.priceCents}, ${products.priceCents})`.mapWith(Number),
      variantId: productVariants.id,
      optionValues: productVariants.optionValues,
      stock: productVariants.stock,
      // A gift card ships nothing either (decision 053).
      digital: sql<boolean>`${products.digital} OR ${products.giftCard}`,
      giftCard: products.giftCard,
      // A variant not weighed weighs its product's default (decision 060).
      weightGrams: sql<number | null>`coalesce(${productVariants.weightGrams}, ${products.weightGrams})`,
      releaseDate: sql<string | null>`coalesce(${productVariants.releaseDate}, ${products.releaseDate})::text`,
      nameYourPrice: products.nameYourPrice,
      bundle: products.bundle,
    })
    .from(products)
    .innerJoin(productVariants, eq(productVariants.productId, products.id))
    .where(and(inArray(products.id, productIds), eq(products.isActive, true)));
  return withParts(db, rows);
}

/** A bundle's variants with their parts (one more read, only when the cart has a bundle). */
export async function withParts<T extends { variantId: string; bundle?: boolean }>(db: Db | Tx, rows: T[]): Promise<(Omit<T, 'bundle'> & { components?: PartWithStock[] })[]> {
  const bundled = rows.filter((row) => row.bundle).map((row) => row.variantId);
  const parts = await partsOf(db, bundled);
  return rows.map(({ bundle, ...row }) => (bundle ? { ...row, components: parts.get(row.variantId) ?? [] } : row));
}

/** The quantities a cart takes from each counted variant, sorted by id: rows are always locked in this order, so two carts never deadlock. */
export type StockDemand = [variantId: string, qty: number][];

export function sortedDemand(demand: Map<string, number>): StockDemand {
  return [...demand].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** A variant that did not have enough: how many were left when its update found too few (at most wanted - 1). */
export interface ShortLine {
  variantId: string;
  left: number;
}

/**
 * Takes stock for an order (`held` false: stock to sold) or sets it aside for a card checkout
 * (`held` true: stock to held), one conditional UPDATE per variant in id order:
 * `... WHERE id = v AND stock >= n`. Whether a variant ran short is decided by that UPDATE's
 * own result and nothing else (issue 23: a second read could see a unit given back meanwhile
 * and report "enough" for a hold that was never taken). On the first short variant it stops
 * and returns it, with what a read says is left for the message (clamped below what was
 * wanted): the caller must roll its transaction back. Announced live on commit.
 */
export async function takeStock(tx: Tx, demand: StockDemand, held: boolean): Promise<ShortLine[]> {
  for (const [variantId, qty] of demand) {
    // The 'products' announcement rides on the update (no round trip more while the row is
    // locked); it is sent only on commit, and once however many rows announce it.
    const taken = await tx.execute<{ stock: number }>(sql`
      UPDATE ${productVariants} SET stock = stock - ${qty}, held = held + ${held ? qty : 0}, sold = sold + ${held ? 0 : qty}, updated_at = now()
      WHERE id = ${variantId} AND stock >= ${qty} RETURNING stock, ${liveNotification({ topic: 'products' })}`);
    if (taken.rows.length === 0) {
      // Only for the message: the decision was made above.
      const [row] = await tx.select({ stock: productVariants.stock }).from(productVariants).where(eq(productVariants.id, variantId));
      return [{ variantId, left: Math.max(0, Math.min(row?.stock ?? 0, qty - 1)) }];
    }
  }
  return [];
}

/** SQLSTATE of storefront_take_stock (migration 0022) when a variant has too few. */
const SHORT_STOCK = 'SF001';
const PLAIN_ID = /^[A-Za-z0-9_~.-]{1,100}$/;

/**
 * takeStock as the last statement of a transaction, sent with its COMMIT in one round trip
 * (runTransactionEndingWith, decision 044): one storefront_take_stock call per variant, in
 * id order, each raising SQLSTATE SF001 when its own UPDATE finds too few. Null when an id is
 * not plain (never for our ids): the caller then takes the stock with takeStock.
 */
export function takeStockStatement(demand: StockDemand, held: boolean): string | null {
  if (demand.length === 0) return '';
  if (!demand.every(([variantId, qty]) => PLAIN_ID.test(variantId) && Number.isSafeInteger(qty) && qty > 0)) return null;
  return demand.map(([variantId, qty]) => `SELECT storefront_take_stock('${variantId}', ${qty}, ${held})`).join(';\n');
}

/** The variant a storefront_take_stock call found short, with what a read says is left now (for the message), or undefined for any other error. */
export async function shortStockOf(db: Db, error: unknown, demand: StockDemand): Promise<ShortLine | undefined> {
  if (sqlState(error) !== SHORT_STOCK) return undefined;
  const detail = (error as { detail?: string }).detail;
  const wanted = demand.find(([variantId]) => variantId === detail);
  if (!wanted) return undefined;
  const [row] = await db.select({ stock: productVariants.stock }).from(productVariants).where(eq(productVariants.id, wanted[0]));
  return { variantId: wanted[0], left: Math.max(0, Math.min(row?.stock ?? 0, wanted[1] - 1)) };
}

/**
 * A card checkout ended without an order: what it set aside can be bought again. Each update
 * is conditional on the units being held; a variant whose held count is short is returned (the
 * reconciler reports it) instead of failing the release for ever on the database's check.
 */
export async function releaseStock(tx: Tx, demand: StockDemand): Promise<string[]> {
  const missing: string[] = [];
  for (const [variantId, qty] of demand) {
    const released = await tx.execute(sql`
      UPDATE ${productVariants} SET stock = stock + ${qty}, held = held - ${qty}, updated_at = now()
      WHERE id = ${variantId} AND held >= ${qty} RETURNING id, ${liveNotification({ topic: 'products' })}`);
    if (released.rows.length === 0) missing.push(variantId);
  }
  return missing;
}

/**
 * The verified payment made the order: what was set aside is sold. A variant whose held units
 * are not there (never expected: the invariant) is taken from the available stock instead; the
 * variants that had neither are returned, and the caller refunds instead of failing for ever.
 */
export async function captureStock(tx: Tx, demand: StockDemand): Promise<string[]> {
  const missing: string[] = [];
  for (const [variantId, qty] of demand) {
    const captured = await tx.execute(sql`
      UPDATE ${productVariants} SET held = held - ${qty}, sold = sold + ${qty}, updated_at = now()
      WHERE id = ${variantId} AND held >= ${qty} RETURNING id`);
    if (captured.rows.length > 0) continue;
    const taken = await tx.execute(sql`
      UPDATE ${productVariants} SET stock = stock - ${qty}, sold = sold + ${qty}, updated_at = now()
      WHERE id = ${variantId} AND stock >= ${qty} RETURNING id, ${liveNotification({ topic: 'products' })}`);
    if (taken.rows.length === 0) missing.push(variantId);
  }
  return missing;
}

/**
 * The per-customer limits of these variants ("limit 2 per customer"): the variants that have
 * one, with it. Read in the buyer's transaction after their lock (checkout.flow.ts).
 */
export async function customerLimits(tx: Tx, variantIds: string[]): Promise<Map<string, number>> {
  if (variantIds.length === 0) return new Map();
  const rows = await tx
    .select({ id: productVariants.id, limit: productVariants.perCustomerLimit })
    .from(productVariants)
    .where(and(inArray(productVariants.id, variantIds), isNotNull(productVariants.perCustomerLimit)));
  return new Map(rows.map((row) => [row.id, row.limit!]));
}

export interface StockCounts {
  variantId: string;
  stock: number;
  held: number;
  sold: number;
  updatedAt: Date;
}

/** The stock, held and sold counts of every counted variant (the reconciler's invariant check). */
export async function countedVariants(db: Db | Tx): Promise<StockCounts[]> {
  const rows = await db
    .select({ variantId: productVariants.id, stock: productVariants.stock, held: productVariants.held, sold: productVariants.sold, updatedAt: productVariants.updatedAt })
    .from(productVariants)
    .where(isNotNull(productVariants.stock))
    .orderBy(asc(productVariants.id));
  return rows.map((row) => ({ ...row, stock: row.stock ?? 0 }));
}

/**
 * Puts a variant's held count right (the reconciler, decision 044): `held` becomes what the live
 * checkouts hold, the difference going back to (or coming from) the available stock, never
 * below zero. Locks the row, so every hold or release before it has committed.
 */
export async function correctHeld(tx: Tx, variantId: string, liveHeld: () => Promise<number>): Promise<{ from: number; to: number } | null> {
  const [row] = await tx.select({ held: productVariants.held, stock: productVariants.stock }).from(productVariants).where(eq(productVariants.id, variantId)).for('update');
  if (!row || row.stock === null) return null;
  const held = await liveHeld();
  if (held === row.held) return null;
  const stock = Math.max(0, row.stock + row.held - held);
  await tx.update(productVariants).set({ held, stock, updatedAt: new Date() }).where(eq(productVariants.id, variantId));
  await publishLive(tx, { topic: 'products' });
  return { from: row.held, to: held };
}
