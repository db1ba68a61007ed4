import { describe, expect, it } from 'vitest';
import { assertCheckoutTransition, canChangeCheckout, CHECKOUT_STATUSES, checkoutStatesBefore, RefusedCheckoutTransition, type CheckoutStatus } from './checkout-states.ts';

describe('checkout transitions', () => {
  it.each<[CheckoutStatus, CheckoutStatus]>([
    ['pending', 'paid'],
    ['pending', 'failed'],
    ['pending', 'expired'],
    ['pending', 'cancelled'],
    ['pending', 'refunded'],
    ['expired', 'paid'],
    ['failed', 'paid'],
    ['cancelled', 'paid'],
    ['expired', 'refunded'],
    ['cancelled', 'refunded'],
  ])('allows %s -> %s', (from, to) => {
    expect(canChangeCheckout(from, to)).toBe(true);
    expect(() => assertCheckoutTransition('c1', from, to)).not.toThrow();
  });

  it.each<[CheckoutStatus, CheckoutStatus]>([
    ['paid', 'refunded'],
    ['paid', 'pending'],
    ['refunded', 'paid'],
    ['expired', 'pending'],
    ['cancelled', 'expired'],
    ['pending', 'pending'],
    ['paid', 'paid'],
  ])('refuses %s -> %s', (from, to) => {
    expect(canChangeCheckout(from, to)).toBe(false);
    const thrown = (() => {
      try {
        assertCheckoutTransition('c1', from, to);
      } catch (error) {
        return error;
      }
    })();
    expect(thrown).toBeInstanceOf(RefusedCheckoutTransition);
    expect((thrown as Error).message).toBe(`Checkout c1 cannot change from ${from} to ${to}.`);
  });

  it('ends paid and refunded for good, and nothing goes back to pending', () => {
    for (const to of CHECKOUT_STATUSES) {
      expect(canChangeCheckout('paid', to)).toBe(false);
      expect(canChangeCheckout('refunded', to)).toBe(false);
    }
    expect(checkoutStatesBefore('pending')).toEqual([]);
    expect(checkoutStatesBefore('paid')).toEqual(['pending', 'failed', 'expired', 'cancelled']);
    expect(checkoutStatesBefore('expired')).toEqual(['pending']);
  });
});
