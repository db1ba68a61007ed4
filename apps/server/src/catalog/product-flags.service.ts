import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { publishLive } from '../live/live.publish.ts';
import { products, productVariants } from '../db/schema/index.ts';
import type { Tx } from '../db/transaction.ts';

/**
 * A product's kind and price flags, set by the areas that sell it that way (digital/ marks a
 * product sold as files, giftcards/ a gift card) and read back as its variant prices; split
 * from catalog.service.ts (the product's life: release, edit, withdraw, move, delete).
 */
/** A product sold as files (issue 28): checkout charges no shipping for it. */
export async function markProductDigital(db: Db, id: string): Promise<void> {
  await db.update(products).set({ digital: true, updatedAt: new Date() }).where(eq(products.id, id));
}

/** The release a digital product sells, its page's address (issue 39 item 6); `listed`: whether it is the release's one shop card. */
export async function setProductRelease(db: Db, id: string, releaseId: number, listed: boolean): Promise<void> {
  await db.update(products).set({ releaseId, listed, updatedAt: new Date() }).where(eq(products.id, id));
  // The shop's cached cards change with it (decision 046).
  await publishLive(db, { topic: 'products', id });
}

/** "Name your price" on or off (issue 28): the price becomes the minimum a buyer may pay. */
export async function setProductNameYourPrice(db: Db, id: string, nameYourPrice: boolean): Promise<void> {
  await db.update(products).set({ nameYourPrice, updatedAt: new Date() }).where(eq(products.id, id));
}

/** A product's variant prices (a gift card's amounts: issue 27, decision 053); [] when there is no such product. */
export async function variantPricesOf(db: Db, id: string): Promise<number[]> {
  const prices = await db
    .select({ cents: sql<number>`coalesce(${productVariants.priceCents}, ${products.priceCents})`.mapWith(Number) })
    .from(products)
    .innerJoin(productVariants, eq(productVariants.productId, products.id))
    .where(eq(products.id, id));
  return prices.map((row) => row.cents);
}

/** Makes a product a gift card or an ordinary product again (issue 27, decision 053). */
export async function setProductGiftCard(db: Db | Tx, id: string, giftCard: boolean): Promise<void> {
  await db.update(products).set({ giftCard, updatedAt: new Date() }).where(eq(products.id, id));
}
