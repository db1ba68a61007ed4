import type { FunctionOutput } from '@storefront/domain/contracts/index.ts';

/**
 * An order as the server's order functions return it (spec section 3, Order): the types
 * of their contracts (decision 025), never written here by hand.
 */
export type OrdersPage = FunctionOutput<'listMyOrders'>;
export type Order = OrdersPage['items'][number];
export type OrderLine = Order['items'][number];
export type OrderTotals = Order['totals'];
export type OrderTax = NonNullable<Order['tax']>;
export type OrderAddress = Order['shipping']['address'];
