/**
 * Checkout texts the spec does not word itself. The spec's own messages live in
 * @storefront/domain/pricing.ts (CHECKOUT_MESSAGES).
 */
export const CHECKOUT_TEXTS = {
  unavailable: 'Some items in your cart are no longer available. Remove them to continue:',
  removeAllUnavailable: 'Remove unavailable items',
  quoteFailed: 'We could not work out your total.',
  walletCovers: 'Your wallet credit covers this order.',
  cardNext: (amount: string) => `You will pay ${amount} by card on the next page.`,
  walletToggle: 'Pay with my wallet credit first',
  /** An all-digital cart (issue 28). */
  nothingShips: 'Everything in your cart is a download: nothing ships, so no shipping address is needed. Your music will be in your library at once.',
  /** A cart with a gift card and nothing else that ships (issue 27): the card goes by email. */
  musicReady: 'Your music is ready to download.',
  openLibrary: 'Open My music',
  giftCardShipsNothing: 'A gift card is sent to its recipient by email: nothing ships, so no shipping address is needed.',
  walletToggleHint: 'Anything your wallet does not cover is charged to your card.',
  /** Issue 37 (decision 074): ticked by default; the order follows the artists bought (merch without one: the label). */
  followArtists: 'Follow the artists of this order (and the label for its merch)',
  thanks: 'Thank you! Your payment went through and your order is placed.',
  confirming: 'Your payment is being confirmed. Your order will appear here in a moment.',
  processing: 'Your payment is still processing. We will show your order as soon as it is confirmed.',
  failed: 'Your payment did not go through, and nothing was charged. Your cart is still here: you can try again.',
  nothingToShow: 'There is no payment to show here. Your orders are listed under My Orders.',
  signInToSee: 'Log in to see the details of this order.',
  noPaymentPage: 'The payment page did not open, and nothing was charged. Please try again.',
  discountLabel: 'Discount code',
  discountApply: 'Apply',
  discountRemove: 'Remove code',
  discountApplied: (code: string) => `Code ${code} applied.`,
} as const;
