/**
 * A checkout's states and the changes allowed between them (issue 34, decision 065): every
 * change of a checkout's status goes through this table, so a change the table does not name
 * is refused instead of overwriting the status it leaves.
 *
 * - `pending`: holds taken, the payment page open. It ends once: paid, failed, expired,
 *   cancelled, or refunded (a verified payment whose holds could not be captured).
 * - `failed`, `expired`, `cancelled`: ended without payment, holds released. A payment that
 *   arrives later (a delayed method, a page paid past its deadline) is honoured (`paid`) or
 *   given back (`refunded`).
 * - `paid`, `refunded`: final.
 */
export const CHECKOUT_STATUSES = ['pending', 'paid', 'failed', 'expired', 'cancelled', 'refunded'] as const;

export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];

export const CHECKOUT_TRANSITIONS: { readonly [from in CheckoutStatus]: readonly CheckoutStatus[] } = {
  pending: ['paid', 'failed', 'expired', 'cancelled', 'refunded'],
  failed: ['paid', 'refunded'],
  expired: ['paid', 'refunded'],
  cancelled: ['paid', 'refunded'],
  paid: [],
  refunded: [],
};

export function canChangeCheckout(from: CheckoutStatus, to: CheckoutStatus): boolean {
  return CHECKOUT_TRANSITIONS[from].includes(to);
}

/** The states a checkout may be in for a change to `to` to be allowed. */
export function checkoutStatesBefore(to: CheckoutStatus): CheckoutStatus[] {
  return CHECKOUT_STATUSES.filter((from) => canChangeCheckout(from, to));
}

/** A change the table does not allow (the caller's transaction rolls back; the reconciler lists it). */
export class RefusedCheckoutTransition extends Error {
  readonly checkoutId: string;
  readonly from: CheckoutStatus | 'missing';
  readonly to: CheckoutStatus;

  constructor(checkoutId: string, from: CheckoutStatus | 'missing', to: CheckoutStatus) {
    super(`Checkout ${checkoutId} cannot change from ${from} to ${to}.`);
    this.name = 'RefusedCheckoutTransition';
    this.checkoutId = checkoutId;
    this.from = from;
    this.to = to;
  }
}

/** Throws RefusedCheckoutTransition unless the table allows `from` -> `to`. */
export function assertCheckoutTransition(checkoutId: string, from: CheckoutStatus, to: CheckoutStatus): void {
  if (!canChangeCheckout(from, to)) throw new RefusedCheckoutTransition(checkoutId, from, to);
}
