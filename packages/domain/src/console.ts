import { z } from 'zod';
import type { adminAccountOutput, auditEntryOutput, salesOverviewOutput } from './contracts/console.ts';
import { nullableDefault, optionalNullable } from './contracts/define.ts';
import type { FunctionOutput } from './contracts/index.ts';
import { csvCell } from './order-desk.ts';

/**
 * The label's console on /release (issue 18, decision 031): the requests of its callable
 * functions, their messages and result types, shared by the server and the web.
 */
export const CONSOLE_MESSAGES = {
  productOrdered: 'This product has been ordered, so it cannot be deleted: withdraw it instead.',
  productNotFound: 'Product not found.',
  accountNotFound: 'No account has that email.',
  accountNotVerified: 'That account has not verified its email yet, so it cannot become an admin.',
  adminFromSetting: 'This admin comes from the ADMIN_EMAILS setting: remove the email there to revoke it.',
  notYourself: 'You cannot revoke your own admin rights: ask another admin.',
  noLongerAdmin: 'You are no longer an admin, so this change was not made.',
  lastAdmin: 'This is the shop’s last admin: make another account admin first.',
  cursor: 'That page cursor is not valid.',
} as const;

const productId = z.string().min(1).max(64);

export const setProductActiveInput = z.object({ id: productId, isActive: z.boolean() }).strict();
/** Moves a product to a 0-based place in the shop's order (the first is shown first). */
export const moveProductInput = z.object({ id: productId, position: z.number().int().min(0).max(10_000) }).strict();
export const deleteProductInput = z.object({ id: productId }).strict();
export const setAdminInput = z.object({ email: z.string().trim().toLowerCase().email('Please enter a valid email address.').max(254), isAdmin: z.boolean() }).strict();

export const auditCursor = z.string().regex(/^\d{1,18}$/, CONSOLE_MESSAGES.cursor);
export const listAuditInput = z
  .object({ limit: nullableDefault(z.number().int().min(1).max(100), 25), after: optionalNullable(auditCursor) })
  .strict()
  .nullish()
  .transform((value) => value ?? { limit: 25, after: undefined });

export type SetProductActiveInput = z.infer<typeof setProductActiveInput>;
export type MoveProductInput = z.infer<typeof moveProductInput>;
export type SetAdminInput = z.infer<typeof setAdminInput>;

/** The console's types are its contracts' (decision 025). */
export type AuditEntry = z.output<typeof auditEntryOutput>;

export type AuditPage = FunctionOutput<'listAdminActivity'>;

export type AdminAccount = z.output<typeof adminAccountOutput>;

/** What the console's activity list calls each action. */
export const AUDIT_ACTION_LABELS: Record<string, string> = {
  'product.release': 'Released a product',
  'product.edit': 'Edited a product',
  'product.withdraw': 'Withdrew a product',
  'product.restore': 'Restored a product',
  'product.move': 'Moved a product in the shop',
  'product.delete': 'Deleted a product',
  'order.fulfil': 'Marked an order fulfilled',
  'order.refund': 'Refunded an order',
  'order.refund-retry': 'Retried a card refund',
  'admin.grant': 'Made an account admin',
  'admin.revoke': 'Revoked admin',
  'content.edit': 'Edited a page',
  'content.history': 'Edited the history',
};

export const salesOverviewInput = z
  .object({ days: nullableDefault(z.number().int().min(1, 'Choose between 1 and 366 days.').max(366, 'Choose between 1 and 366 days.'), 30) })
  .strict()
  .nullish()
  .transform((value) => value ?? { days: 30 });

/** Money is integer cents; card is what the card paid (fees included), wallet what credit paid. */
export type SalesOverview = z.output<typeof salesOverviewOutput>;

/** The sales overview as CSV (one file, two tables), for a spreadsheet; cells through the one escaper. */
export function salesCsv(overview: SalesOverview): string {
  const cents = (value: number) => (value / 100).toFixed(2);
  const lines = ['day,orders,wallet_usd,card_usd,total_usd'];
  for (const day of overview.byDay) lines.push([day.day, day.orders, cents(day.walletCents), cents(day.cardCents), cents(day.walletCents + day.cardCents)].join(','));
  lines.push('', 'product_id,product,qty,wallet_usd,card_usd,total_usd');
  for (const row of overview.byProduct) {
    lines.push([csvCell(row.productId), csvCell(row.name), row.qty, cents(row.walletCents), cents(row.cardCents), cents(row.walletCents + row.cardCents)].join(','));
  }
  lines.push('', `orders_to_ship,${overview.ordersToShip}`);
  return `${lines.join('\r\n')}\r\n`;
}
