import { useMutation } from '@tanstack/react-query';
import type { Quote } from '@storefront/domain/pricing.ts';
import type { CartItems, Contact, Shipping } from '@storefront/domain/pricing-schemas.ts';
import { functionsClient } from '../../../lib/api-client.ts';

export interface WalletOrderInput {
  items: CartItems;
  contact: Contact;
  shipping: Shipping;
  quote: Pick<Quote, 'subtotalCents' | 'shippingCents' | 'taxCents' | 'walletAppliedCents' | 'totalCents'>;
  /** The same id on every retry of one attempt: the server then makes at most one order. */
  checkoutId: string;
}

export interface WalletOrderResult {
  ok: boolean;
  orderId: string;
  paymentIntentId: string;
  redirectUrl: string;
}

/** A wallet-only order (amount due 0): the server re-prices, debits the wallet and writes the order. */
export function placeWalletOrder(input: WalletOrderInput): Promise<WalletOrderResult> {
  return functionsClient.call<WalletOrderResult>('completeWalletOnlyOrderStreetFlavor', input);
}

export function usePlaceWalletOrder() {
  return useMutation({ mutationFn: placeWalletOrder });
}
