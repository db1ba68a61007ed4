import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Product } from '@storefront/domain/catalog.ts';
import type { Db } from '../db/client.ts';
import { productImages, products } from '../db/schema/index.ts';

/**
 * A product's street date (decision 054) and, for one that sells a release as files (issue 39
 * item 6), the release whose page is its address and whether it is a shop card of its own.
 */
export function placementOf(row: Pick<typeof products.$inferSelect, 'releaseDate' | 'releaseId' | 'listed'>): Pick<Product, 'releaseDate' | 'releaseId' | 'listed'> {
  return {
    ...(row.releaseDate ? { releaseDate: row.releaseDate } : {}),
    ...(row.releaseId !== null ? { releaseId: row.releaseId } : {}),
    ...(row.listed ? {} : { listed: false as const }),
  };
}

/** The products that credit the artist at an address (the shop's ?artist= filter, decision 070); undefined: no such artist. */
export type ProductsOfArtist = (slug: string) => Promise<string[] | undefined>;

export interface ProductCard {
  id: string;
  name: string;
  priceCents: number;
  /** The first image, or '' for none. */
  image: string;
}

/** Active products among `ids` as a small card (an artist's page lists their merch, decision 070), in shop order. */
export async function activeProductCards(db: Db, ids: string[]): Promise<ProductCard[]> {
  if (ids.length === 0) return [];
  return db
    .select({
      id: products.id,
      name: products.name,
      priceCents: products.priceCents,
      image: sql<string>`coalesce((SELECT ${productImages.url} FROM ${productImages} WHERE ${productImages.productId} = ${products.id} ORDER BY ${productImages.position} LIMIT 1), '')`,
    })
    .from(products)
    .where(and(inArray(products.id, ids), eq(products.isActive, true)))
    .orderBy(desc(products.sortOrder), asc(products.name), asc(products.id));
}

/** Names of products among `ids` (active or not), for the console's Roster tab. */
export async function productNames(db: Db, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.select({ id: products.id, name: products.name }).from(products).where(inArray(products.id, ids));
  return new Map(rows.map((row) => [row.id, row.name]));
}
