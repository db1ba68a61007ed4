import { randomBytes } from 'node:crypto';
import { and, asc, desc, eq, inArray, lt, lte, or, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { EditProductInput, ReleaseProductInput } from '@storefront/domain/catalog-schemas.ts';
import type { Variant } from '@storefront/domain/variants.ts';
import { DEFAULT_CATEGORY, RELEASE_MESSAGES, SHOP_PAGE_SIZE, isProductCategory, type Product, type ProductCategory, type ShopPage } from '@storefront/domain/catalog.ts';
import { PREORDER_MESSAGES } from '@storefront/domain/preorders.ts';
import { CONSOLE_MESSAGES, type MoveProductInput, type SetProductActiveInput } from '@storefront/domain/console.ts';
import { recordAudit, type Actor } from '../audit/audit.service.ts';
import type { Db } from '../db/client.ts';
import { checkouts, orderItems, productImages, products, productVariants } from '../db/schema/index.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';
import { publishLive } from '../live/live.publish.ts';
import { shownStock } from './bundles.service.ts';
import { placementOf, type ProductsOfArtist } from './product-cards.service.ts';
import { partsOf, replaceVariants, type PartWithStock } from './variants.service.ts';

type ProductRow = typeof products.$inferSelect;
type VariantRow = typeof productVariants.$inferSelect;

function toVariant(product: ProductRow, row: VariantRow, parts: Map<string, PartWithStock[]>): Variant {
  // A bundle's variant shows what its parts allow (issue 27, decision 055): Sold out when a needed part is.
  const stock = product.bundle ? shownStock(parts.get(row.id)) : row.stock;
  return {
    id: row.id,
    options: row.optionValues,
    sku: row.sku,
    priceCents: row.priceCents ?? product.priceCents,
    stock,
    perCustomerLimit: row.perCustomerLimit,
    weightGrams: row.weightGrams,
    ...(row.releaseDate ? { releaseDate: row.releaseDate } : {}),
  };
}

/**
 * What a bundle includes, as the product page lists it: each part once, with its quantity (issue 39).
 * Parts are stored fixed first, then one per picked component in the order of the options, so a
 * picked part is named by its option (the component's name), a fixed one by its own name.
 */
function includesOf(row: ProductRow, variants: VariantRow[], parts: Map<string, PartWithStock[]>): string[] {
  const first = parts.get(variants[0]?.id ?? '') ?? [];
  const fixedCount = first.length - row.options.length;
  return first.map((part, position) => {
    const name = position >= fixedCount ? (row.options[position - fixedCount]?.name ?? part.name) : part.name;
    return part.qty > 1 ? `${part.qty} × ${name}` : name;
  });
}

function toProduct(row: ProductRow, images: string[], variants: VariantRow[], parts: Map<string, PartWithStock[]> = new Map()): Product {
  return {
    id: row.id,
    options: row.options,
    variants: variants.map((variant) => toVariant(row, variant, parts)),
    ...(row.bundle ? { includes: includesOf(row, variants, parts) } : {}),
    name: row.name,
    description: row.description,
    priceCents: row.priceCents,
    weightGrams: row.weightGrams,
    images,
    order: row.sortOrder,
    isActive: row.isActive,
    category: isProductCategory(row.category) ? row.category : DEFAULT_CATEGORY,
    updatedAt: row.updatedAt.toISOString(),
    ...placementOf(row),
  };
}

async function withImages(db: Db | Tx, rows: ProductRow[]): Promise<Product[]> {
  if (rows.length === 0) return [];
  const images = await db
    .select()
    .from(productImages)
    .where(
      inArray(
        productImages.productId,
        rows.map((row) => row.id),
      ),
    )
    .orderBy(asc(productImages.productId), asc(productImages.position));
  const variants = await db
    .select()
    .from(productVariants)
    .where(
      inArray(
        productVariants.productId,
        rows.map((row) => row.id),
      ),
    )
    .orderBy(asc(productVariants.productId), asc(productVariants.position));
  const byProduct = new Map<string, string[]>();
  for (const image of images) byProduct.set(image.productId, [...(byProduct.get(image.productId) ?? []), image.url]);
  const variantsOf = new Map<string, VariantRow[]>();
  for (const variant of variants) variantsOf.set(variant.productId, [...(variantsOf.get(variant.productId) ?? []), variant]);
  const bundles = new Set(rows.filter((row) => row.bundle).map((row) => row.id));
  const parts = await partsOf(
    db,
    variants.filter((variant) => bundles.has(variant.productId)).map((variant) => variant.id),
  );
  return rows.map((row) => toProduct(row, byProduct.get(row.id) ?? [], variantsOf.get(row.id) ?? [], parts));
}

/** The shop: active products, `order` highest first, then name. */
export async function listActiveProducts(db: Db): Promise<Product[]> {
  const rows = await db.select().from(products).where(eq(products.isActive, true)).orderBy(desc(products.sortOrder), asc(products.name), asc(products.id));
  return withImages(db, rows);
}

/**
 * A shop page's cursor: the last product's (order, name, id), the columns of the shop's
 * ORDER BY, as base64url JSON. A keyset: a page costs the same however deep it is.
 */
const cursorTuple = z.tuple([z.number().int().min(-2_147_483_648).max(2_147_483_647), z.string().max(1000), z.string().min(1).max(64)]);
const INVALID_CURSOR = 'That page cursor is not valid.';

export function shopCursor(product: Pick<Product, 'order' | 'name' | 'id'>): string {
  return Buffer.from(JSON.stringify([product.order, product.name, product.id])).toString('base64url');
}

function decodeShopCursor(after: string): [number, string, string] {
  let decoded: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(after)) throw new Error('not base64url');
    decoded = JSON.parse(Buffer.from(after, 'base64url').toString('utf8'));
  } catch {
    throw new AppError('invalid-argument', INVALID_CURSOR);
  }
  const parsed = cursorTuple.safeParse(decoded);
  if (!parsed.success || parsed.data.some((part) => typeof part === 'string' && part.includes('\u0000'))) throw new AppError('invalid-argument', INVALID_CURSOR);
  return parsed.data;
}

/** `%text%` for LIKE, with the pattern characters of the text taken literally. */
function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

export interface ShopPageOptions {
  q?: string | undefined;
  category?: ProductCategory | undefined;
  artist?: string | undefined; // an artist's address: the products that credit them (decision 070)
  after?: string | undefined;
  limit?: number | undefined;
}

/**
 * One page of the shop: active products in shop order, optionally those whose name or
 * description contains `q` (any case), of one category and crediting one artist, after a cursor.
 */
export async function listShopPage(db: Db, options: ShopPageOptions, productsOfArtist?: ProductsOfArtist): Promise<ShopPage> {
  const limit = options.limit ?? SHOP_PAGE_SIZE;
  const credited = options.artist ? ((await productsOfArtist?.(options.artist)) ?? []) : undefined;
  const conditions: (SQL | undefined)[] = [eq(products.isActive, true), eq(products.listed, true), credited && (credited.length > 0 ? inArray(products.id, credited) : sql`false`)];
  if (options.category) conditions.push(eq(products.category, options.category));
  if (options.q) conditions.push(sql`${products.searchText} LIKE ${containsPattern(options.q)}`);
  if (options.after) {
    const [order, name, id] = decodeShopCursor(options.after);
    // After (order desc, name asc, id asc). The first condition alone bounds the index scan:
    // it starts at the cursor's order instead of the top of the shop.
    conditions.push(lte(products.sortOrder, order), or(lt(products.sortOrder, order), sql`(${products.name}, ${products.id}) > (${name}, ${id})`));
  }
  const rows = await db
    .select()
    .from(products)
    .where(and(...conditions))
    .orderBy(desc(products.sortOrder), asc(products.name), asc(products.id))
    .limit(limit + 1);
  const page = await withImages(db, rows.slice(0, limit));
  return { products: page, next: rows.length > limit ? shopCursor(page.at(-1)!) : null };
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

/** The user behind a change, for the stock audit (null: the seed or the command line). */
function actorIdOf(actor: Actor | undefined): string | null {
  return actor && 'userId' in actor ? actor.userId : null;
}

export function newProductId(): string {
  return `p_${randomBytes(9).toString('base64url')}`;
}

/** The product as the audit log keeps it (before and after a change). */
async function auditView(tx: Tx, id: string) {
  const [row] = await tx.select().from(products).where(eq(products.id, id));
  if (!row) return null;
  const [product] = await withImages(tx, [row]);
  const { updatedAt: _updatedAt, ...view } = product!;
  return view;
}

/**
 * A new release goes first in the shop (decision 031): its `order` is one above the
 * highest. An admin's release is audited in its transaction; the seed passes no actor.
 */
export async function releaseProduct(db: Db, input: ReleaseProductInput, id = newProductId(), actor?: Actor, today?: string): Promise<string> {
  if (today !== undefined) refuseDatesNotAfter(today, [input.releaseDate, ...(input.variants ?? []).map((variant) => variant.releaseDate)]);
  await runTransaction(db, async (tx) => {
    await tx.insert(products).values({
      id,
      name: input.name,
      description: input.description,
      priceCents: input.priceCents,
      weightGrams: input.weightGrams ?? null,
      category: input.category ?? DEFAULT_CATEGORY,
      sortOrder: sql`(SELECT coalesce(max(${products.sortOrder}), 0) + 1 FROM ${products})`,
      options: input.options ?? [],
      releaseDate: input.releaseDate ?? null,
    });
    await replaceImages(tx, id, input.images);
    // Without options: one default variant, unlimited, at the product's price (decision 027).
    await replaceVariants(tx, id, input.variants ?? [{ options: [], sku: '', priceCents: null, stock: null }], actorIdOf(actor));
    if (actor) await recordAudit(tx, { actor, action: 'product.release', targetType: 'product', targetId: id, after: await auditView(tx, id) });
    await publishLive(tx, { topic: 'products', id });
  });
  return id;
}

/** A street date the label sets must be after the label's today (decision 054); an unchanged one is left as it is. */
function refuseDatesNotAfter(today: string, dates: (string | null | undefined)[]): void {
  if (dates.some((date) => date && date <= today)) throw new AppError('invalid-argument', PREORDER_MESSAGES.releaseDateFuture);
}

/** A variant's street date moved by an edit (decision 054): its preorder buyers are told. `to` null: out now. */
export interface DateMove {
  productId: string;
  productName: string;
  variantId: string;
  from: string;
  to: string | null;
}

export interface EditOptions {
  /** The label's day: a new or changed street date must be after it. */
  today?: string;
  /** Runs in the edit's transaction with the variants whose street date moved (preorder buyers are told once). */
  onDatesMoved?: (tx: Tx, moves: DateMove[]) => Promise<void>;
}

/** Each variant's street date (its own, else its product's), by variant id. */
async function effectiveDates(tx: Tx, productId: string): Promise<Map<string, string | null>> {
  const rows = await tx
    .select({ id: productVariants.id, date: sql<string | null>`coalesce(${productVariants.releaseDate}, ${products.releaseDate})::text` })
    .from(productVariants)
    .innerJoin(products, eq(products.id, productVariants.productId))
    .where(eq(productVariants.productId, productId));
  return new Map(rows.map((row) => [row.id, row.date]));
}

/**
 * The product row's update comes first and locks it: concurrent edits of one product queue
 * on that lock, each then replacing the images whole (read committed; under serializable,
 * a burst of identical edits ran out of retries, decision 019).
 */
export async function editProduct(db: Db, input: EditProductInput, actor?: Actor, options: EditOptions = {}): Promise<void> {
  await runTransaction(
    db,
    async (tx) => {
      const [locked] = await tx
        .select({ id: products.id, releaseDate: products.releaseDate, bundle: products.bundle })
        .from(products)
        .where(eq(products.id, input.id))
        .for('update');
      if (!locked) throw new AppError('not-found', RELEASE_MESSAGES.notFound);
      const datesBefore = await effectiveDates(tx, input.id);
      if (options.today !== undefined) {
        const ownBefore = new Set(
          (await tx.select({ date: productVariants.releaseDate }).from(productVariants).where(eq(productVariants.productId, input.id))).map((row) => row.date),
        );
        refuseDatesNotAfter(options.today, [
          input.releaseDate === locked.releaseDate ? null : input.releaseDate,
          ...(input.variants ?? []).map((variant) => (ownBefore.has(variant.releaseDate ?? null) ? null : variant.releaseDate)),
        ]);
      }
      // A bundle's options and variants are its components' (issue 27): changed in the Bundles tab only.
      if (locked.bundle) input = { ...input, options: undefined, variants: undefined };
      const before = actor ? await auditView(tx, input.id) : null;
      const updated = await tx
        .update(products)
        .set({
          name: input.name,
          description: input.description,
          priceCents: input.priceCents,
          ...(input.order === undefined ? {} : { sortOrder: input.order }),
          ...(input.isActive === undefined ? {} : { isActive: input.isActive }),
          ...(input.options === undefined ? {} : { options: input.options }),
          ...(input.category === undefined ? {} : { category: input.category }),
          ...(input.weightGrams === undefined ? {} : { weightGrams: input.weightGrams }),
          ...(input.releaseDate === undefined ? {} : { releaseDate: input.releaseDate }),
          updatedAt: new Date(),
        })
        .where(eq(products.id, input.id))
        .returning({ id: products.id });
      if (updated.length === 0) throw new AppError('not-found', RELEASE_MESSAGES.notFound);
      await replaceImages(tx, input.id, input.images);
      // Without variants in the request (an edit made as before issue 15) they stay as they are.
      if (input.variants) await replaceVariants(tx, input.id, input.variants, actorIdOf(actor));
      if (options.onDatesMoved) {
        const after = await effectiveDates(tx, input.id);
        const moves = [...datesBefore]
          .filter(([variantId, from]) => from !== null && after.has(variantId) && after.get(variantId) !== from)
          .map(([variantId, from]) => ({ productId: input.id, productName: input.name, variantId, from: from!, to: after.get(variantId) ?? null }));
        if (moves.length > 0) await options.onDatesMoved(tx, moves);
      }
      if (actor) await recordAudit(tx, { actor, action: 'product.edit', targetType: 'product', targetId: input.id, before, after: await auditView(tx, input.id) });
      await publishLive(tx, { topic: 'products', id: input.id });
    },
    { isolationLevel: 'read committed' },
  );
}

/** Every product, withdrawn ones too, in the shop's order: the console's list. */
export async function listAllProducts(db: Db): Promise<(Product & { deleteBlocked: 'ordered' | 'held' | null; giftCard: boolean })[]> {
  const rows = await db.select().from(products).orderBy(desc(products.sortOrder), asc(products.name), asc(products.id));
  // What deleteProduct would refuse, so the console offers Delete only where it can succeed (issue 29 item 5).
  const blocked = await db
    .select({
      id: products.id,
      ordered: sql<boolean>`EXISTS (SELECT 1 FROM ${orderItems} WHERE ${orderItems.productId} = ${products.id})`,
      held: sql<boolean>`EXISTS (SELECT 1 FROM ${checkouts} WHERE ${checkouts.status} = 'pending' AND ${checkouts.items} @> jsonb_build_array(jsonb_build_object('id', ${products.id})))`,
    })
    .from(products);
  const reason = new Map(blocked.map((row) => [row.id, row.ordered ? ('ordered' as const) : row.held ? ('held' as const) : null]));
  const giftCards = new Set(rows.filter((row) => row.giftCard).map((row) => row.id));
  return (await withImages(db, rows)).map((product) => ({ ...product, deleteBlocked: reason.get(product.id) ?? null, giftCard: giftCards.has(product.id) }));
}

/** Withdraw (isActive false: gone from the shop at once) or restore a product. */
export async function setProductActive(db: Db, input: SetProductActiveInput, actor: Actor): Promise<void> {
  await runTransaction(
    db,
    async (tx) => {
      const [row] = await tx.select().from(products).where(eq(products.id, input.id)).for('update');
      if (!row) throw new AppError('not-found', CONSOLE_MESSAGES.productNotFound);
      if (row.isActive === input.isActive) return;
      await tx.update(products).set({ isActive: input.isActive, updatedAt: new Date() }).where(eq(products.id, input.id));
      await recordAudit(tx, {
        actor,
        action: input.isActive ? 'product.restore' : 'product.withdraw',
        targetType: 'product',
        targetId: input.id,
        before: { name: row.name, isActive: row.isActive },
        after: { name: row.name, isActive: input.isActive },
      });
      await publishLive(tx, { topic: 'products', id: input.id });
    },
    { isolationLevel: 'read committed' },
  );
}

/**
 * Moves a product to a place in the shop's order: every product's `order` is rewritten
 * (highest first), under a lock on all of them, so two moves at once queue instead of
 * interleaving. A shop has tens of products, not thousands.
 */
export async function moveProduct(db: Db, input: MoveProductInput, actor: Actor): Promise<void> {
  await runTransaction(
    db,
    async (tx) => {
      const rows = await tx
        .select({ id: products.id, name: products.name, sortOrder: products.sortOrder })
        .from(products)
        .orderBy(desc(products.sortOrder), asc(products.name), asc(products.id))
        .for('update');
      const from = rows.findIndex((row) => row.id === input.id);
      if (from < 0) throw new AppError('not-found', CONSOLE_MESSAGES.productNotFound);
      const to = Math.min(input.position, rows.length - 1);
      if (from === to) return;
      const ordered = [...rows];
      const [moved] = ordered.splice(from, 1);
      ordered.splice(to, 0, moved!);
      const orders = ordered.map((row, index) => ({ id: row.id, sortOrder: ordered.length - index }));
      const changed = orders.filter((row, index) => row.sortOrder !== ordered[index]!.sortOrder);
      if (changed.length > 0) {
        const values = JSON.stringify(changed.map((row) => ({ id: row.id, sort_order: row.sortOrder })));
        await tx.execute(sql`UPDATE ${products} SET sort_order = v.sort_order, updated_at = now()
        FROM jsonb_to_recordset(${values}::jsonb) AS v(id text, sort_order integer) WHERE ${products.id} = v.id`);
      }
      await recordAudit(tx, {
        actor,
        action: 'product.move',
        targetType: 'product',
        targetId: input.id,
        before: { name: moved!.name, position: from },
        after: { name: moved!.name, position: to },
      });
      await publishLive(tx, { topic: 'products', id: input.id });
    },
    { isolationLevel: 'read committed' },
  );
}

/**
 * Deletes a product no one ever ordered and no open card checkout holds. An order
 * written at the same instant keeps its own copy of the name and price (order_item), so
 * it still reads; the product is then gone from the shop as if withdrawn.
 */
export async function deleteProduct(db: Db, id: string, actor: Actor): Promise<void> {
  await runTransaction(
    db,
    async (tx) => {
      const [row] = await tx.select({ id: products.id }).from(products).where(eq(products.id, id)).for('update');
      if (!row) throw new AppError('not-found', CONSOLE_MESSAGES.productNotFound);
      const [ordered] = await tx.select({ orderId: orderItems.orderId }).from(orderItems).where(eq(orderItems.productId, id)).limit(1);
      const [held] = await tx
        .select({ id: checkouts.id })
        .from(checkouts)
        .where(and(eq(checkouts.status, 'pending'), sql`${checkouts.items} @> ${JSON.stringify([{ id }])}::jsonb`))
        .limit(1);
      if (ordered || held) throw new AppError('failed-precondition', ordered ? CONSOLE_MESSAGES.productOrdered : CONSOLE_MESSAGES.productHeld);
      const before = await auditView(tx, id);
      await tx.delete(products).where(eq(products.id, id));
      await recordAudit(tx, { actor, action: 'product.delete', targetType: 'product', targetId: id, before });
      await publishLive(tx, { topic: 'products', id });
    },
    { isolationLevel: 'read committed' },
  );
}

/**
 * The release job's first step (decision 054): street dates on or before the label's day are
 * cleared, so those products and variants sell as ordinary items from now on. Returns the
 * products changed (announced live, so the shop's cached pages refresh).
 */
export async function clearDueReleaseDates(tx: Tx, today: string): Promise<string[]> {
  const fromProducts = await tx.update(products).set({ releaseDate: null, updatedAt: new Date() }).where(lte(products.releaseDate, today)).returning({ id: products.id });
  const fromVariants = await tx
    .update(productVariants)
    .set({ releaseDate: null, updatedAt: new Date() })
    .where(lte(productVariants.releaseDate, today))
    .returning({ id: productVariants.productId });
  const changed = [...new Set([...fromProducts, ...fromVariants].map((row) => row.id))];
  for (const id of changed) await publishLive(tx, { topic: 'products', id });
  return changed;
}
