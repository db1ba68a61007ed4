import type { BadgeTone } from '../badge.tsx';
import type { Order } from './order-types.ts';

/** Spec section 4: Processing (pending) until fulfilled; Fulfilled, or Shipped on the buyer's copy (green). */
export function orderBadge(order: Pick<Order, 'orderFulfilled' | 'orderStatus'>): { label: string; tone: BadgeTone } {
  if (order.orderStatus === 'shipped') return { label: 'Shipped', tone: 'success' };
  if (order.orderFulfilled) return { label: 'Fulfilled', tone: 'success' };
  return { label: 'Processing', tone: 'pending' };
}
