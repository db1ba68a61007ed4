import type { BadgeTone } from '../badge.tsx';
import type { Order } from './order-types.ts';

/**
 * Spec section 4: Processing (pending) until fulfilled; Fulfilled, or Shipped on the buyer's copy
 * (green). A refund (issue 16) shows over them: Refunded, or Partially refunded.
 */
export function orderBadge(order: Pick<Order, 'orderFulfilled' | 'orderStatus' | 'refundStatus'> & { refundPending?: boolean | undefined }): { label: string; tone: BadgeTone } {
  if (order.refundStatus === 'refunded') return { label: 'Refunded', tone: 'neutral' };
  // A card refund the payment provider has not confirmed yet (decision 034).
  if (order.refundPending) return { label: 'Refund in progress', tone: 'pending' };
  if (order.refundStatus === 'partially_refunded') return { label: 'Partially refunded', tone: 'neutral' };
  if (order.orderStatus === 'shipped') return { label: 'Shipped', tone: 'success' };
  // All digital (issue 28): complete when placed, nothing shipped.
  if (order.orderStatus === 'delivered') return { label: 'Delivered', tone: 'success' };
  if (order.orderFulfilled) return { label: 'Fulfilled', tone: 'success' };
  return { label: 'Processing', tone: 'pending' };
}
