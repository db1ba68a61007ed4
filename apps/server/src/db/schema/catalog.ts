import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/** Products and their ordered images (spec section 3), one row per image. */
export const products = pgTable(
  'product',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    description: text('description').notNull(),
    priceCents: bigint('price_cents', { mode: 'number' }).notNull(),
    sortOrder: integer('sort_order').notNull().default(0),
    isActive: boolean('is_active').notNull().default(true),
    /** merch, music or bundles (domain PRODUCT_CATEGORIES): the shop's category filter. */
    category: text('category').notNull().default('merch'),
    /** What the shop search looks in: the name and description in lower case, kept by Postgres. */
    searchText: text('search_text')
      .notNull()
      .generatedAlwaysAs(sql`lower(name || ' ' || description)`),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    check('product_price_positive', sql`${table.priceCents} > 0`),
    // The shop's list: active products, `order` highest first, then name, then id (as its
    // ORDER BY, where DESC sorts nulls first).
    index('product_shop_order_idx').on(table.isActive, table.sortOrder.desc().nullsFirst(), table.name, table.id),
    check('product_category_known', sql`${table.category} IN ('merch', 'music', 'bundles')`),
    // One category's shop list, in the same order (issue 17).
    index('product_category_order_idx').on(table.isActive, table.category, table.sortOrder.desc().nullsFirst(), table.name, table.id),
    // The shop search: a substring of the name or description, any case (pg_trgm, created by the migration).
    index('product_search_trgm_idx').using('gin', sql`${table.searchText} gin_trgm_ops`),
  ],
);

export const productImages = pgTable(
  'product_image',
  {
    productId: text('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    url: text('url').notNull(),
  },
  (table) => [primaryKey({ columns: [table.productId, table.position] })],
);
