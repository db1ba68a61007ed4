// The full schema, as Drizzle and drizzle-kit see it. One file per area that owns tables,
// named as the area's folder under apps/server/src: a table belongs to the area of its file
// (decision 044; the table-ownership lint reads these files).
export * from './accounts.ts';
export * from './mail.ts';
export * from './audit.ts';
export * from './catalog.ts';
export * from './content.ts';
export * from './wallet.ts';
export * from './checkout.ts';
export * from './shipping.ts';
export * from './discounts.ts';
export * from './preorders.ts';
export * from './drops.ts';
export * from './giftcards.ts';
export * from './orders.ts';
export * from './payments.ts';
export * from './payouts.ts';
export * from './oidc.ts';
export * from './storage.ts';
export * from './digital.ts';
export * from './service.ts';
export * from './roster.ts';
export * from './fans.ts';
export * from './royalties.ts';
