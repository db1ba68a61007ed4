import { useMutation } from '@tanstack/react-query';
import type { CartItems, Contact, Shipping } from '@storefront/domain/pricing-schemas.ts';
import { functionsClient } from '../../../lib/api-client.ts';

export const CONFIRMATION_PATH = '/order-confirmation';

export interface PaymentLinkInput {
  items: CartItems;
  useWallet: boolean;
  contact: Contact;
  shipping: Shipping;
  checkoutId: string;
}

/**
 * A card checkout: the server holds the wallet part and returns the payment provider's
 * page for the rest, which comes back to the order confirmation page.
 */
export function createPaymentLink(input: PaymentLinkInput): Promise<{ ok: boolean; url?: string }> {
  return functionsClient.call<{ ok: boolean; url?: string }>('createPaymentLinkStreetFlavorMerch', {
    ...input,
    redirectUrl: CONFIRMATION_PATH,
  });
}

export function useCreatePaymentLink() {
  return useMutation({ mutationFn: createPaymentLink });
}
