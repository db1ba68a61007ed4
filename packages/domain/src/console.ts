import { z } from 'zod';
import type { adminAccountOutput, auditEntryOutput } from './contracts/console.ts';
import { nullableDefault, optionalNullable } from './contracts/define.ts';
import type { FunctionOutput } from './contracts/index.ts';

/**
 * The label's console on /release (issue 18, decision 031): the requests of its callable
 * functions, their messages and result types, shared by the server and the web.
 */
export const CONSOLE_MESSAGES = {
  productOrdered: 'This product has been ordered, so it cannot be deleted: withdraw it instead.',
  productHeld: 'A buyer’s open card checkout holds this product, so it cannot be deleted now: withdraw it instead.',
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
  'order.ship-part': 'Shipped part of an order',
  'order.refund': 'Refunded an order',
  'order.refund-retry': 'Retried a card refund',
  'admin.grant': 'Made an account admin',
  'admin.revoke': 'Revoked admin',
  'content.edit': 'Edited a page',
  'content.history': 'Edited the history',
  'category.create': 'Added a category',
  'category.rename': 'Renamed a category',
  'category.move': 'Moved a category',
  'category.delete': 'Removed a category',
  'artist.create': 'Added an artist to the roster',
  'artist.edit': 'Edited an artist',
  'artist.link': 'Credited an artist',
  'artist.unlink': 'Took an artist’s credit away',
  'artist.merge': 'Merged an artist into another',
  'artist.delete': 'Removed an artist',
  'audience.import': 'Imported fans who consented elsewhere',
  'audience.settings': 'Changed the cart reminder',
};
