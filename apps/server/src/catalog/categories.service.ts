import { asc, count, eq, inArray, sql } from 'drizzle-orm';
import { CATEGORY_MESSAGES, DEFAULT_CATEGORY, categorySlug, type Category } from '@storefront/domain/catalog.ts';
import { recordAudit, type Actor } from '../audit/audit.service.ts';
import type { Db } from '../db/client.ts';
import { constraintOf, sqlState } from '../db/errors.ts';
import { productCategories, products } from '../db/schema/index.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';
import { publishLive } from '../live/live.publish.ts';

/**
 * The shop's categories (issue 29 item 3, decision 046): rows the console adds, renames, orders
 * and removes when empty. A product names its category by id (a foreign key), so a category
 * with products cannot be removed, whatever the console shows, and a product cannot name one
 * that does not exist. Changes publish on the `products` topic: open shops and forms follow.
 */
export async function listCategories(db: Db | Tx): Promise<Category[]> {
  return db.select({ id: productCategories.id, name: productCategories.name }).from(productCategories).orderBy(asc(productCategories.position), asc(productCategories.id));
}

/** True when `id` names a category (the release and edit forms' check before the foreign key's). */
export async function categoryExists(db: Db | Tx, id: string): Promise<boolean> {
  return (await db.select({ id: productCategories.id }).from(productCategories).where(eq(productCategories.id, id))).length > 0;
}

/** Each product's category (a discount code for a category judges a cart by it, issue 27). */
export async function categoriesOfProducts(db: Db | Tx, productIds: string[]): Promise<Map<string, string | null>> {
  if (productIds.length === 0) return new Map();
  const rows = await db.select({ id: products.id, category: products.category }).from(products).where(inArray(products.id, productIds));
  return new Map(rows.map((row) => [row.id, row.category]));
}

function nameTaken(error: unknown): boolean {
  return sqlState(error) === '23505' && constraintOf(error) === 'product_category_name_key';
}

/** Adds a category last; its id is the slug of its name, with -2, -3... when that is taken. */
export async function createCategory(db: Db, input: { name: string }, actor: Actor): Promise<string> {
  try {
    return await runTransaction(db, async (tx) => {
      await tx.execute(sql`LOCK TABLE ${productCategories} IN SHARE ROW EXCLUSIVE MODE`);
      const taken = new Set((await tx.select({ id: productCategories.id }).from(productCategories)).map((row) => row.id));
      const base = categorySlug(input.name);
      let id = base;
      for (let n = 2; taken.has(id); n += 1) id = `${base.slice(0, 36)}-${n}`;
      await tx.insert(productCategories).values({ id, name: input.name, position: sql`(SELECT coalesce(max(${productCategories.position}), 0) + 1 FROM ${productCategories})` });
      await recordAudit(tx, { actor, action: 'category.create', targetType: 'category', targetId: id, after: { name: input.name } });
      await publishLive(tx, { topic: 'products', id });
      return id;
    });
  } catch (error) {
    if (nameTaken(error)) throw new AppError('already-exists', CATEGORY_MESSAGES.nameTaken);
    throw error;
  }
}

export async function renameCategory(db: Db, input: { id: string; name: string }, actor: Actor): Promise<void> {
  try {
    await runTransaction(db, async (tx) => {
      const [before] = await tx.select().from(productCategories).where(eq(productCategories.id, input.id)).for('update');
      if (!before) throw new AppError('not-found', CATEGORY_MESSAGES.notFound);
      if (before.name === input.name) return;
      await tx.update(productCategories).set({ name: input.name }).where(eq(productCategories.id, input.id));
      await recordAudit(tx, { actor, action: 'category.rename', targetType: 'category', targetId: input.id, before: { name: before.name }, after: { name: input.name } });
      await publishLive(tx, { topic: 'products', id: input.id });
    });
  } catch (error) {
    if (nameTaken(error)) throw new AppError('already-exists', CATEGORY_MESSAGES.nameTaken);
    throw error;
  }
}

/** Moves a category to a 0-based place; every row is locked and renumbered 1..n, so two moves queue. */
export async function moveCategory(db: Db, input: { id: string; position: number }, actor: Actor): Promise<void> {
  await runTransaction(db, async (tx) => {
    const rows = await tx.select().from(productCategories).orderBy(asc(productCategories.position), asc(productCategories.id)).for('update');
    const from = rows.findIndex((row) => row.id === input.id);
    if (from < 0) throw new AppError('not-found', CATEGORY_MESSAGES.notFound);
    const to = Math.min(input.position, rows.length - 1);
    if (from === to) return;
    const [moved] = rows.splice(from, 1);
    rows.splice(to, 0, moved!);
    for (const [index, row] of rows.entries()) {
      if (row.position !== index + 1)
        await tx
          .update(productCategories)
          .set({ position: index + 1 })
          .where(eq(productCategories.id, row.id));
    }
    await recordAudit(tx, {
      actor,
      action: 'category.move',
      targetType: 'category',
      targetId: input.id,
      before: { name: moved!.name, position: from },
      after: { name: moved!.name, position: to },
    });
    await publishLive(tx, { topic: 'products', id: input.id });
  });
}

/** Removes a category no product is in (withdrawn ones count: restoring one needs its category). */
export async function deleteCategory(db: Db, input: { id: string }, actor: Actor): Promise<void> {
  if (input.id === DEFAULT_CATEGORY) throw new AppError('failed-precondition', CATEGORY_MESSAGES.isDefault);
  await runTransaction(db, async (tx) => {
    const [category] = await tx.select().from(productCategories).where(eq(productCategories.id, input.id)).for('update');
    if (!category) throw new AppError('not-found', CATEGORY_MESSAGES.notFound);
    // The row lock above queues a release into this category (its foreign key check locks the row too).
    const [used] = await tx.select({ n: count() }).from(products).where(eq(products.category, input.id));
    if ((used?.n ?? 0) > 0) throw new AppError('failed-precondition', CATEGORY_MESSAGES.notEmpty(used!.n));
    await tx.delete(productCategories).where(eq(productCategories.id, input.id));
    await recordAudit(tx, { actor, action: 'category.delete', targetType: 'category', targetId: input.id, before: { name: category.name } });
    await publishLive(tx, { topic: 'products', id: input.id });
  });
}
