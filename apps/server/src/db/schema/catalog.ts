import { sql } from 'drizzle-orm';
import { bigint, boolean, check, date, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './accounts.ts';

/**
 * The shop's categories (issue 29 item 3, decision 046): managed in the console (add, rename,
 * order, remove when no product is in it). `id` is the slug in the shop's address
 * (/shop?category=music) and never changes; `name` is what people read.
 */
export const productCategories = pgTable(
  'product_category',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    /** The shop's and the forms' order, lowest first. */
    position: integer('position').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex('product_category_name_key').on(sql`lower(${table.name})`)],
);

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
    /** A digital item (issue 28): a release or track sold as files; ships nothing, so checkout adds no shipping for it. */
    digital: boolean('digital').notNull().default(false),
    /** The release a digital product sells (issue 39 item 6): its address is the release page, /music/<id>. */
    releaseId: integer('release_id'),
    /** Whether the shop lists it: a release is one card (its album's product), its tracks' products are not cards. */
    listed: boolean('listed').notNull().default(true),
    /** The default weight of one unit in grams (decision 060): a variant not weighed weighs this; null: 0. */
    weightGrams: integer('weight_grams'),
    /** "Name your price" (issue 28): the buyer may pay more than priceCents, which is then the minimum. */
    nameYourPrice: boolean('name_your_price').notNull().default(false),
    /** A gift card (issue 27, decision 053): its variants' prices are the amounts; each unit bought is a card with a code. */
    giftCard: boolean('gift_card').notNull().default(false),
    /** A bundle (issue 27, decision 055): its variants take other products' variants (bundle_component) and have no stock of their own. */
    bundle: boolean('bundle').notNull().default(false),
    /** Up to 3 options, e.g. [{ name: 'Size', values: ['S', 'M'] }]; [] for a product without options (issue 15). */
    options: jsonb('options').$type<{ name: string; values: string[] }[]>().notNull().default([]),
    /** The product's category (the shop's category filter); a category with products cannot be removed. */
    category: text('category')
      .notNull()
      .default('merch')
      .references(() => productCategories.id),
    /** What the shop search looks in: the name and description in lower case, kept by Postgres. */
    /** The street date of a preorder (issue 27, decision 054): set while it is in the future; the release job clears it on the day. */
    releaseDate: date('release_date', { mode: 'string' }),
    searchText: text('search_text')
      .notNull()
      .generatedAlwaysAs(sql`lower(name || ' ' || description)`),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    check('product_price_positive', sql`${table.priceCents} > 0`),
    check('product_weight_range', sql`${table.weightGrams} IS NULL OR ${table.weightGrams} BETWEEN 0 AND 100000`),
    // The shop's list: active products, `order` highest first, then name, then id (as its
    // ORDER BY, where DESC sorts nulls first).
    index('product_shop_order_idx').on(table.isActive, table.sortOrder.desc().nullsFirst(), table.name, table.id),
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

/**
 * What is sold (decision 027): one row per combination of a product's option values, or
 * one default variant (no option values, id = the product's id) for a product without
 * options. `stock` is what can still be bought (null: unlimited); `held` is what pending
 * card checkouts set aside. Both only move by conditional updates, never below zero.
 */
export const productVariants = pgTable(
  'product_variant',
  {
    id: text('id').primaryKey(),
    productId: text('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    optionValues: jsonb('option_values').$type<string[]>().notNull().default([]),
    sku: text('sku').notNull().default(''),
    /** Overrides the product's price when set. */
    priceCents: bigint('price_cents', { mode: 'number' }),
    stock: integer('stock'),
    held: integer('held').notNull().default(0),
    /** Units sold by orders (decision 044): stock + held + sold changes only by an admin's stock edit. */
    sold: integer('sold').notNull().default(0),
    /** "Limit N per customer", counted across a buyer's orders and open checkouts; null: no limit. */
    perCustomerLimit: integer('per_customer_limit'),
    /** Weight of one unit in grams, for weight-based shipping rates (decision 060); null: not weighed (0). */
    weightGrams: integer('weight_grams'),
    /** A variant's own street date (decision 054), over the product's; cleared by the release job on the day. */
    releaseDate: date('release_date', { mode: 'string' }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index('product_variant_product_idx').on(table.productId, table.position),
    check('product_variant_stock_not_negative', sql`${table.stock} IS NULL OR ${table.stock} >= 0`),
    check('product_variant_held_not_negative', sql`${table.held} >= 0`),
    check('product_variant_sold_not_negative', sql`${table.sold} >= 0`),
    check('product_variant_limit_positive', sql`${table.perCustomerLimit} IS NULL OR ${table.perCustomerLimit} > 0`),
    check('product_variant_price_positive', sql`${table.priceCents} IS NULL OR ${table.priceCents} > 0`),
    check('product_variant_weight_range', sql`${table.weightGrams} IS NULL OR ${table.weightGrams} BETWEEN 0 AND 100000`),
  ],
);

/** Every stock change an admin makes (restock, correction, tracking on or off): who, when, from, to. */
export const stockMovements = pgTable(
  'stock_movement',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    variantId: text('variant_id')
      .notNull()
      .references(() => productVariants.id, { onDelete: 'cascade' }),
    actorId: text('actor_id').references(() => users.id, { onDelete: 'set null' }),
    /** null: unlimited. */
    fromStock: integer('from_stock'),
    toStock: integer('to_stock'),
    reason: text('reason').notNull().default(''),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('stock_movement_variant_idx').on(table.variantId, table.id)],
);

/**
 * What one variant of a bundle takes (issue 27, decision 055): `qty` of a component variant per
 * bundle. Removed with the bundle's variant; a component variant in a bundle cannot be removed
 * (restrict), so a bundle never sells without one of its parts.
 */
export const bundleComponents = pgTable(
  'bundle_component',
  {
    bundleVariantId: text('bundle_variant_id')
      .notNull()
      .references(() => productVariants.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    componentVariantId: text('component_variant_id')
      .notNull()
      .references(() => productVariants.id, { onDelete: 'restrict' }),
    qty: integer('qty').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.bundleVariantId, table.position] }),
    // Which bundles take a variant (a component's stock change shows on them; its removal is refused).
    index('bundle_component_component_idx').on(table.componentVariantId),
    check('bundle_component_qty_positive', sql`${table.qty} > 0`),
  ],
);
