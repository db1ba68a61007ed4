import { sql } from 'drizzle-orm';
import { check, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import type { ShippingTaxConfig } from '@storefront/domain/shipping-tax.ts';

/**
 * Shipping zones, rates and the tax table (issue 26, decision 051): one row, one document,
 * saved whole by the console with the version it was read at. No row: the spec's default
 * (flat 999 cents, 9.25%).
 */
export const shippingTaxSettings = pgTable(
  'shipping_tax_settings',
  {
    id: text('id').primaryKey().default('main'),
    config: jsonb('config').$type<ShippingTaxConfig>().notNull(),
    /** Bumped by every save: a save made from an older version is refused. */
    version: integer('version').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [check('shipping_tax_settings_one_row', sql`${table.id} = 'main'`)],
);

/**
 * Stripe Tax calculations kept for 10 minutes (issue 40 item 7): a quote or checkout of an
 * unchanged cart, address, code and shipping method reuses the calculation (one billed call, and
 * the order is charged the tax it was quoted), shared by every instance. `key`: SHA-256 of the
 * request as sent. Expired rows are overwritten by the next calculation of that key and swept.
 */
export const taxCalculations = pgTable('tax_calculation', {
  key: text('key').primaryKey(),
  result: jsonb('result').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
});
