// The full schema, as Drizzle and drizzle-kit see it. Each area adds its file here.
export * from './content.ts';
export * from './accounts.ts';
export * from './catalog.ts';
export * from './money.ts';
export * from './storage.ts';
export * from './tokens.ts';
export * from './payouts.ts';
export * from './oidc.ts';
export * from './order-desk.ts';
export * from './addresses.ts';
export * from './admin.ts';
export * from './digital.ts';
export * from './shipping.ts';
export * from './discounts.ts';
export * from './preorders.ts';
export * from './gift-cards.ts';
export * from './drops.ts';
