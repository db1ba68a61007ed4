import { describe, expect, it } from 'vitest';
import { orderBadge } from './order-status.ts';

describe('orderBadge (spec section 4, Order status shown to buyer)', () => {
  it.each([
    [false, null, 'Processing', 'pending'],
    [false, '', 'Processing', 'pending'],
    [true, null, 'Fulfilled', 'success'],
    [true, 'shipped', 'Shipped', 'success'],
    // The shipped mark wins even on a copy whose fulfilled flag lags behind.
    [false, 'shipped', 'Shipped', 'success'],
    // An all-digital order (issue 28) is complete when placed.
    [true, 'delivered', 'Delivered', 'success'],
  ])('fulfilled %s, status %s -> %s (%s)', (orderFulfilled, orderStatus, label, tone) => {
    expect(orderBadge({ orderFulfilled, orderStatus, refundStatus: null })).toEqual({ label, tone });
  });

  it.each([
    ['refunded', true, 'Refunded'],
    ['partially_refunded', false, 'Partially refunded'],
  ] as const)('refund %s (fulfilled %s) -> %s', (refundStatus, orderFulfilled, label) => {
    expect(orderBadge({ orderFulfilled, orderStatus: orderFulfilled ? 'shipped' : null, refundStatus })).toEqual({ label, tone: 'neutral' });
  });

  it('a refund waiting for the payment provider shows as in progress, until the order is fully refunded (decision 034)', () => {
    expect(orderBadge({ orderFulfilled: true, orderStatus: 'shipped', refundStatus: null, refundPending: true })).toEqual({ label: 'Refund in progress', tone: 'pending' });
    expect(orderBadge({ orderFulfilled: false, orderStatus: null, refundStatus: 'partially_refunded', refundPending: true })).toEqual({
      label: 'Refund in progress',
      tone: 'pending',
    });
    expect(orderBadge({ orderFulfilled: false, orderStatus: null, refundStatus: 'refunded', refundPending: true })).toEqual({ label: 'Refunded', tone: 'neutral' });
  });
});
