import { randomBytes } from 'node:crypto';
import { and, asc, eq, inArray, isNotNull, lte, sql } from 'drizzle-orm';
import type { SetStockInput, VariantInput } from '@storefront/domain/catalog-schemas.ts';
import { RELEASE_MESSAGES } from '@storefront/domain/catalog.ts';
import { LOW_STOCK_THRESHOLD, sameValues } from '@storefront/domain/variants.ts';
import { recordAudit, type Actor } from '../admin/audit.service.ts';
import type { Db } from '../db/client.ts';
import { products, productVariants, stockMovements } from '../db/schema/index.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import { AppError } from '../http/errors.ts';
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
      await tx.update(productVariants).set({ position, sku: variant.sku, priceCents: variant.priceCents, stock, updatedAt: new Date() }).where(eq(productVariants.id, match.id));
      if (match.stock !== stock) await tx.insert(stockMovements).values({ variantId: match.id, actorId, fromStock: match.stock, toStock: stock, reason: 'product edit' });
      continue;
    }
    // The default variant's id is the product's: a cart line without a variant means it.
    const id = variant.options.length === 0 && !existing.some((row) => row.id === productId) ? productId : `${productId}~${randomBytes(6).toString('base64url')}`;
    kept.add(id);
    await tx.insert(productVariants).values({ id, productId, position, optionValues: variant.options, sku: variant.sku, priceCents: variant.priceCents, stock: variant.stock });
    if (variant.stock !== null) await tx.insert(stockMovements).values({ variantId: id, actorId, fromStock: null, toStock: variant.stock, reason: 'release' });
  }
  const removed = existing.filter((row) => !kept.has(row.id));
  if (removed.some((row) => row.held > 0)) {
    throw new AppError('failed-precondition', 'A variant with unpaid checkouts cannot be removed yet. Please try again once they are paid or expired.');
  }
  if (removed.length > 0)
    await tx.delete(productVariants).where(
      inArray(
        productVariants.id,
        removed.map((row) => row.id),
      ),
    );
}

/** A restock or stock correction of one variant, audited (who, when, from, to) and announced live. */
export async function setStock(db: Db, actor: Actor, input: SetStockInput): Promise<{ from: number | null; to: number | null }> {
  return runTransaction(db, async (tx) => {
    const [row] = await tx.select().from(productVariants).where(eq(productVariants.id, input.variantId)).for('update');
    if (!row) throw new AppError('not-found', RELEASE_MESSAGES.notFound);
    // Already so (a repeated or concurrent request): nothing changed, nothing to audit.
    if (row.stock === input.stock) return { from: row.stock, to: input.stock };
    await tx.update(productVariants).set({ stock: input.stock, updatedAt: new Date() }).where(eq(productVariants.id, row.id));
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

/** The quantities a cart takes from each counted variant, sorted by id: rows are always locked in this order, so two carts never deadlock. */
export type StockDemand = [variantId: string, qty: number][];

export function sortedDemand(demand: Map<string, number>): StockDemand {
  return [...demand].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Takes stock for an order (`held` false) or sets it aside for a card checkout (`held`
 * true): `UPDATE ... SET stock = stock - n WHERE id = v AND stock >= n`, one variant at a
 * time in id order, and announces the change live on commit. Returns the variants that did not have enough (nothing is taken then:
 * the caller's transaction rolls back).
 */
export async function takeStock(tx: Tx, demand: StockDemand, held: boolean): Promise<{ variantId: string; left: number }[]> {
  for (const [index, [variantId, qty]] of demand.entries()) {
    // The 'products' announcement rides on the update (no round trip more while the row is
    // locked); it is sent only on commit, and once however many rows announce it.
    const taken = await tx.execute<{ stock: number }>(sql`
      UPDATE ${productVariants} SET stock = stock - ${qty}, held = held + ${held ? qty : 0}, updated_at = now()
      WHERE id = ${variantId} AND stock >= ${qty} RETURNING stock, ${liveNotification({ topic: 'products' })}`);
    if (taken.rows.length === 0) {
      // Not enough: say how many are left of this and every later line (nothing is locked past here).
      const ids = demand.slice(index).map(([id]) => id);
      const rows = await tx.select({ id: productVariants.id, stock: productVariants.stock }).from(productVariants).where(inArray(productVariants.id, ids));
      return demand
        .slice(index)
        .map(([id, wanted]) => ({ variantId: id, left: rows.find((row) => row.id === id)?.stock ?? 0, wanted }))
        .filter((row) => row.left < row.wanted)
        .map(({ variantId: id, left }) => ({ variantId: id, left }));
    }
  }
  return [];
}

/** A card checkout ended without an order: what it set aside can be bought again. */
export async function releaseStock(tx: Tx, demand: StockDemand): Promise<void> {
  for (const [variantId, qty] of demand) {
    await tx.execute(sql`
      UPDATE ${productVariants} SET stock = stock + ${qty}, held = held - ${qty}, updated_at = now() WHERE id = ${variantId}`);
  }
}

/** The verified payment made the order: what was set aside is sold. */
export async function captureStock(tx: Tx, demand: StockDemand): Promise<void> {
  for (const [variantId, qty] of demand) {
    await tx.execute(sql`UPDATE ${productVariants} SET held = held - ${qty}, updated_at = now() WHERE id = ${variantId}`);
  }
}
