import { sql } from 'drizzle-orm';
import { bigint, check, index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './accounts.ts';

/**
 * Gift cards (issue 27, decision 053): one row per card (a unit of a gift card line). Written
 * `pending` with its card checkout, `active` by the verified payment (with its order), then
 * `redeemed` by one conditional UPDATE (... WHERE status = 'active'), or `void` by a refund.
 * The code is never stored: only its SHA-256 (`code_hash`), set when the card's email is sent.
 */
export const giftCards = pgTable(
  'gift_card',
  {
    id: text('id').primaryKey(),
    status: text('status', { enum: ['pending', 'active', 'redeemed', 'void'] })
      .notNull()
      .default('pending'),
    checkoutId: text('checkout_id').notNull(),
    orderId: text('order_id'),
    buyerId: text('buyer_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    productId: text('product_id').notNull(),
    variantId: text('variant_id').notNull(),
    amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
    recipientEmail: text('recipient_email').notNull(),
    message: text('message').notNull().default(''),
    /** hex SHA-256 of the code; null until the email with the code is sent. */
    codeHash: text('code_hash'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    activatedAt: timestamp('activated_at', { withTimezone: true }),
    mailedAt: timestamp('mailed_at', { withTimezone: true }),
    redeemedBy: text('redeemed_by').references(() => users.id, { onDelete: 'set null' }),
    redeemedAt: timestamp('redeemed_at', { withTimezone: true }),
    voidedAt: timestamp('voided_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('gift_card_code_hash_key').on(table.codeHash),
    index('gift_card_checkout_idx').on(table.checkoutId),
    index('gift_card_order_idx').on(table.orderId),
    check('gift_card_amount_positive', sql`${table.amountCents} > 0`),
    check('gift_card_redeemed_has_redeemer', sql`${table.status} <> 'redeemed' OR ${table.redeemedAt} IS NOT NULL`),
  ],
);
