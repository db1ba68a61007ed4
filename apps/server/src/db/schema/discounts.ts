import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './accounts.ts';

/**
 * Discount codes (issue 27, decision 052). `uses` counts the uses held by pending card
 * checkouts and made by orders; one conditional UPDATE takes a use (never past `use_limit`,
 * which a check also keeps), so a code with one use left raced by many buyers gives exactly one.
 */
export const discountCodes = pgTable(
  'discount_code',
  {
    id: text('id').primaryKey(),
    /** As the label wrote it; matched without case. */
    code: text('code').notNull(),
    kind: text('kind', { enum: ['percent', 'fixed'] }).notNull(),
    /** Percent (1-100) or cents. */
    value: bigint('value', { mode: 'number' }).notNull(),
    scope: text('scope', { enum: ['order', 'category', 'products'] }).notNull(),
    categoryId: text('category_id'),
    productIds: jsonb('product_ids').$type<string[]>().notNull().default([]),
    minSubtotalCents: bigint('min_subtotal_cents', { mode: 'number' }).notNull().default(0),
    startsAt: timestamp('starts_at', { withTimezone: true }),
    endsAt: timestamp('ends_at', { withTimezone: true }),
    useLimit: integer('use_limit'),
    uses: integer('uses').notNull().default(0),
    oncePerAccount: boolean('once_per_account').notNull().default(false),
    active: boolean('active').notNull().default(true),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('discount_code_code_key').on(sql`upper(${table.code})`),
    check('discount_code_uses_within_limit', sql`${table.uses} >= 0 AND (${table.useLimit} IS NULL OR ${table.uses} <= ${table.useLimit})`),
    check('discount_code_value', sql`${table.value} > 0 AND (${table.kind} <> 'percent' OR ${table.value} <= 100)`),
  ],
);

/**
 * One use of a code by a checkout: `held` while its card checkout waits for payment, `used` once
 * an order was made, `released` when the checkout ended unpaid, `returned` when the label gave
 * a refunded order's use back. One live (held or used) use per checkout; with once per account,
 * one per buyer too (the service checks under the buyer's lock; this index is the backstop).
 */
export const discountUses = pgTable(
  'discount_use',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    codeId: text('code_id')
      .notNull()
      .references(() => discountCodes.id),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    /** The checkout (card) or the wallet-only order's checkout id: an order's `checkout_id`. */
    checkoutId: text('checkout_id').notNull(),
    status: text('status', { enum: ['held', 'used', 'released', 'returned'] }).notNull(),
    discountCents: bigint('discount_cents', { mode: 'number' }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    settledAt: timestamp('settled_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('discount_use_live_checkout_key')
      .on(table.checkoutId)
      .where(sql`${table.status} IN ('held', 'used')`),
    index('discount_use_code_idx').on(table.codeId, table.status),
    index('discount_use_user_idx').on(table.userId, table.codeId),
  ],
);
