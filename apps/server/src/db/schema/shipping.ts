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
