import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { marketingConsents, productImages, products, productVariants, users, wishlistItems } from '../db/schema/index.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { publishLive } from '../live/live.publish.ts';
import { leaveLink, listUnsubscribeHeaders } from './list-unsubscribe.ts';
import { wishlistBackMail } from './wishlist.mail.ts';

/**
 * The wishlist (issue 37 part 5, decision 076): signed-in fans heart products; /wishlist lists
 * them with their state. A product becomes available (in stock: an active product with a
 * variant whose stock is unlimited or above zero; open for preorder: the same with a street
 * date ahead) after it was not: each row that saw it unavailable is told once, if the fan
 * consents to marketing mail (decision 074). Every change tells the fan's tabs ('profile').
 */

export const WISHLIST_MESSAGES = {
  noProduct: 'This product is not in the shop.',
  full: 'Your wishlist holds up to 500 items: remove some first.',
} as const;

const MAX_ITEMS = 500;

/**
 * Whether the product (the outer query's `product` row) can be bought now. Written out with its
 * table names: drizzle leaves them off in a one-table query, where `id` would be the variant's.
 */
const available = sql<boolean>`("product"."is_active" AND EXISTS (SELECT 1 FROM "product_variant" v WHERE v."product_id" = "product"."id" AND (v."stock" IS NULL OR v."stock" > 0)))`;
/** Whether it sells ahead of a street date (the product's or a variant's). */
const preorder = sql<boolean>`("product"."release_date" > current_date OR EXISTS (SELECT 1 FROM "product_variant" v WHERE v."product_id" = "product"."id" AND v."release_date" > current_date))`;

export type WishlistState = 'in-stock' | 'sold-out' | 'preorder';

/** The fan's wishlist, newest first, each item with its state and price now. */
export async function listWishlist(db: Db | Tx, userId: string) {
  const rows = await db
    .select({
      productId: products.id,
      name: products.name,
      priceCents: products.priceCents,
      minPriceCents: sql<number | null>`(SELECT min(${productVariants.priceCents}) FROM ${productVariants} WHERE ${productVariants.productId} = ${products.id})`.mapWith((v) =>
        v === null ? null : Number(v),
      ),
      image: sql<string | null>`(SELECT ${productImages.url} FROM ${productImages} WHERE ${productImages.productId} = ${products.id} ORDER BY ${productImages.position} LIMIT 1)`,
      available,
      preorder,
      addedAt: wishlistItems.createdAt,
    })
    .from(wishlistItems)
    .innerJoin(products, eq(products.id, wishlistItems.productId))
    .where(eq(wishlistItems.userId, userId))
    .orderBy(desc(wishlistItems.createdAt), products.id);
  return {
    items: rows.map((row) => ({
      productId: row.productId,
      name: row.name,
      image: row.image ?? '',
      priceCents: row.minPriceCents !== null && row.minPriceCents < row.priceCents ? row.minPriceCents : row.priceCents,
      state: (!row.available ? 'sold-out' : row.preorder ? 'preorder' : 'in-stock') as WishlistState,
      addedAt: row.addedAt.toISOString(),
    })),
  };
}

/** Hearts (`on`) or un-hearts a product; twice is once. Only products in the shop can be hearted. */
export async function setWishlisted(db: Db, userId: string, productId: string, on: boolean): Promise<void> {
  await runTransaction(db, async (tx) => {
    if (on) {
      const [product] = await tx
        .select({ id: products.id, available })
        .from(products)
        .where(and(eq(products.id, productId), eq(products.isActive, true)));
      if (!product) throw new AppError('not-found', WISHLIST_MESSAGES.noProduct);
      const [count] = await tx
        .select({ n: sql<number>`count(*)`.mapWith(Number) })
        .from(wishlistItems)
        .where(eq(wishlistItems.userId, userId));
      if ((count?.n ?? 0) >= MAX_ITEMS) throw new AppError('failed-precondition', WISHLIST_MESSAGES.full);
      await tx.insert(wishlistItems).values({ userId, productId, seenAvailable: product.available }).onConflictDoNothing();
    } else {
      await tx.delete(wishlistItems).where(and(eq(wishlistItems.userId, userId), eq(wishlistItems.productId, productId)));
    }
    await publishLive(tx, { topic: 'profile', userId });
  });
}

export interface TellDeps {
  db: Db;
  jobs: JobQueue;
  publicUrl: string;
  secret: string;
}

/**
 * One round (decision 076): rows whose product is no longer available remember it; rows whose
 * product became available are told once, in the round's transaction (mail queued with the
 * row's change, so a crash tells nobody twice), to fans whose address consents. One instance
 * at a time (an advisory lock); each row's change is conditional, so a second round finds
 * nothing to tell. Returns the mails queued.
 */
export async function tellWishlists(deps: TellDeps): Promise<number> {
  return runTransaction(
    deps.db,
    async (tx) => {
      const locked = await tx.execute<{ locked: boolean }>(sql`SELECT pg_try_advisory_xact_lock(hashtext('wishlist-tell')) AS locked`);
      if (!locked.rows[0]?.locked) return 0;
      await tx.execute(
        sql`UPDATE ${wishlistItems} SET seen_available = false FROM ${products} WHERE ${products.id} = ${wishlistItems.productId} AND ${wishlistItems.seenAvailable} AND NOT ${available}`,
      );
      const back = await tx
        .select({
          userId: wishlistItems.userId,
          productId: wishlistItems.productId,
          name: products.name,
          preorder,
          toldAt: wishlistItems.toldAt,
          email: users.email,
          fanName: users.name,
          consents: sql<boolean>`EXISTS (SELECT 1 FROM ${marketingConsents} WHERE ${marketingConsents.email} = lower(${users.email}) AND ${marketingConsents.status} = 'given')`,
        })
        .from(wishlistItems)
        .innerJoin(products, eq(products.id, wishlistItems.productId))
        .innerJoin(users, eq(users.id, wishlistItems.userId))
        .where(and(eq(wishlistItems.seenAvailable, false), available))
        .orderBy(wishlistItems.createdAt)
        .limit(1000);
      let told = 0;
      for (const row of back) {
        const tell = row.toldAt === null && row.consents;
        const changed = await tx
          .update(wishlistItems)
          .set({ seenAvailable: true, ...(tell ? { toldAt: new Date() } : {}) })
          .where(and(eq(wishlistItems.userId, row.userId), eq(wishlistItems.productId, row.productId), eq(wishlistItems.seenAvailable, false)))
          .returning({ userId: wishlistItems.userId });
        if (!tell || changed.length === 0) continue;
        const email = row.email.toLowerCase();
        await deps.jobs.sendInTransaction(tx, 'send-email', {
          ...wishlistBackMail(
            email,
            row.fanName,
            { name: row.name, preorder: row.preorder },
            `${deps.publicUrl}/product/${encodeURIComponent(row.productId)}`,
            `${deps.publicUrl}/wishlist`,
            leaveLink(deps.publicUrl, deps.secret, email),
          ),
          headers: listUnsubscribeHeaders(deps.publicUrl, deps.secret, email),
        });
        told += 1;
      }
      return told;
    },
    { isolationLevel: 'read committed' },
  );
}

/** Account deletion (decision 076): the wishlist goes in the deletion's transaction. */
export async function forgetWishlist(tx: Tx, userId: string): Promise<void> {
  await tx.delete(wishlistItems).where(eq(wishlistItems.userId, userId));
}

/** The data export: each wishlisted product with when it was added and when the fan was told. */
export async function exportWishlist(db: Db, userId: string) {
  const rows = await db
    .select({ productId: wishlistItems.productId, name: products.name, addedAt: wishlistItems.createdAt, toldAt: wishlistItems.toldAt })
    .from(wishlistItems)
    .innerJoin(products, eq(products.id, wishlistItems.productId))
    .where(eq(wishlistItems.userId, userId))
    .orderBy(wishlistItems.createdAt);
  return rows.map((row) => ({ productId: row.productId, name: row.name, addedAt: row.addedAt.toISOString(), toldAt: row.toldAt?.toISOString() ?? null }));
}
