import { randomBytes } from 'node:crypto';
import { and, asc, desc, eq, inArray } from 'drizzle-orm';
import type { EditProductInput, ReleaseProductInput } from '@storefront/domain/catalog-schemas.ts';
import type { Variant } from '@storefront/domain/variants.ts';
import type { Product } from '@storefront/domain/catalog.ts';
import { RELEASE_MESSAGES } from '@storefront/domain/catalog.ts';
import type { Db } from '../db/client.ts';
import { productImages, products, productVariants } from '../db/schema/index.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import { AppError } from '../http/errors.ts';
import { publishLive } from '../live/live.publish.ts';
import { replaceVariants } from './variants.service.ts';

type ProductRow = typeof products.$inferSelect;

type VariantRow = typeof productVariants.$inferSelect;

function toVariant(product: ProductRow, row: VariantRow): Variant {
  return { id: row.id, options: row.optionValues, sku: row.sku, priceCents: row.priceCents ?? product.priceCents, stock: row.stock };
}

function toProduct(row: ProductRow, images: string[], variants: VariantRow[]): Product {
  return {
    id: row.id,
    options: row.options,
    variants: variants.map((variant) => toVariant(row, variant)),
    name: row.name,
    description: row.description,
    priceCents: row.priceCents,
    images,
    order: row.sortOrder,
    isActive: row.isActive,
    updatedAt: row.updatedAt.toISOString(),
  };
}

async function withImages(db: Db | Tx, rows: ProductRow[]): Promise<Product[]> {
  if (rows.length === 0) return [];
  const images = await db
    .select()
    .from(productImages)
    .where(inArray(productImages.productId, rows.map((row) => row.id)))
    .orderBy(asc(productImages.productId), asc(productImages.position));
  const variants = await db
    .select()
    .from(productVariants)
    .where(inArray(productVariants.productId, rows.map((row) => row.id)))
    .orderBy(asc(productVariants.productId), asc(productVariants.position));
  const byProduct = new Map<string, string[]>();
  for (const image of images) byProduct.set(image.productId, [...(byProduct.get(image.productId) ?? []), image.url]);
  const variantsOf = new Map<string, VariantRow[]>();
  for (const variant of variants) variantsOf.set(variant.productId, [...(variantsOf.get(variant.productId) ?? []), variant]);
  return rows.map((row) => toProduct(row, byProduct.get(row.id) ?? [], variantsOf.get(row.id) ?? []));
}

/** The shop: active products, `order` highest first, then name. */
export async function listActiveProducts(db: Db): Promise<Product[]> {
  const rows = await db
    .select()
    .from(products)
    .where(eq(products.isActive, true))
    .orderBy(desc(products.sortOrder), asc(products.name), asc(products.id));
  return withImages(db, rows);
}

/** One product; an inactive one only for admins (others get not-found, as for unknown ids). */
export async function getProduct(db: Db, id: string, options: { includeInactive: boolean }): Promise<Product> {
  const where = options.includeInactive ? eq(products.id, id) : and(eq(products.id, id), eq(products.isActive, true));
  const [row] = await db.select().from(products).where(where);
  if (!row) throw new AppError('not-found', RELEASE_MESSAGES.notFound);
  const [product] = await withImages(db, [row]);
  return product!;
}

async function replaceImages(tx: Tx, productId: string, images: string[]) {
  await tx.delete(productImages).where(eq(productImages.productId, productId));
  if (images.length > 0) {
    await tx.insert(productImages).values(images.map((url, position) => ({ productId, position, url })));
  }
}

export function newProductId(): string {
  return `p_${randomBytes(9).toString('base64url')}`;
}

export async function releaseProduct(db: Db, input: ReleaseProductInput, id = newProductId(), actorId: string | null = null): Promise<string> {
  await runTransaction(db, async (tx) => {
    await tx.insert(products).values({ id, name: input.name, description: input.description, priceCents: input.priceCents, options: input.options ?? [] });
    await replaceImages(tx, id, input.images);
    await replaceVariants(tx, id, input.variants ?? [{ options: [], sku: '', priceCents: null, stock: null }], actorId);
    await publishLive(tx, { topic: 'products', id });
  });
  return id;
}

/**
 * The product row's update comes first and locks it: concurrent edits of one product queue
 * on that lock, each then replacing the images whole (read committed; under serializable,
 * a burst of identical edits ran out of retries, decision 019).
 */
export async function editProduct(db: Db, input: EditProductInput, actorId: string | null = null): Promise<void> {
  await runTransaction(db, async (tx) => {
    const updated = await tx
      .update(products)
      .set({
        name: input.name,
        description: input.description,
        priceCents: input.priceCents,
        ...(input.order === undefined ? {} : { sortOrder: input.order }),
        ...(input.isActive === undefined ? {} : { isActive: input.isActive }),
        ...(input.options === undefined ? {} : { options: input.options }),
        updatedAt: new Date(),
      })
      .where(eq(products.id, input.id))
      .returning({ id: products.id });
    if (updated.length === 0) throw new AppError('not-found', RELEASE_MESSAGES.notFound);
    await replaceImages(tx, input.id, input.images);
    // Without variants in the request (an edit made as before issue 15) they stay as they are.
    if (input.variants) await replaceVariants(tx, input.id, input.variants, actorId);
    await publishLive(tx, { topic: 'products', id: input.id });
  }, { isolationLevel: 'read committed' });
}
