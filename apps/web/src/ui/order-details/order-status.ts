import type { BadgeTone } from '../badge.tsx';
import type { Order } from './order-types.ts';

/**
 * Spec section 4: Processing (pending) until fulfilled; Fulfilled, or Shipped on the buyer's copy
 * (green). A refund (issue 16) shows over them: Refunded, or Partially refunded.
 */
export function orderBadge(order: Pick<Order, 'orderFulfilled' | 'orderStatus' | 'refundStatus'>): { label: string; tone: BadgeTone } {
  if (order.refundStatus === 'refunded') return { label: 'Refunded', tone: 'neutral' };
  if (order.refundStatus === 'partially_refunded') return { label: 'Partially refunded', tone: 'neutral' };
  if (order.orderStatus === 'shipped') return { label: 'Shipped', tone: 'success' };
  if (order.orderFulfilled) return { label: 'Fulfilled', tone: 'success' };
  return { label: 'Processing', tone: 'pending' };
}
