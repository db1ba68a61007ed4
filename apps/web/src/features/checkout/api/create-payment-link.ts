import { useMutation } from '@tanstack/react-query';
import type { FunctionInput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { paths } from '../../../lib/paths.ts';

export const CONFIRMATION_PATH = paths.orderConfirmation;

/** The contract's input; the confirmation page is always where the payment page comes back to. */
export type PaymentLinkInput = Omit<FunctionInput<'createPaymentLinkStreetFlavorMerch'>, 'redirectUrl'>;

/**
 * A card checkout: the server holds the wallet part and returns the payment provider's
 * page for the rest, which comes back to the order confirmation page.
 */
export function createPaymentLink(input: PaymentLinkInput) {
  return functionsClient.call('createPaymentLinkStreetFlavorMerch', {
    ...input,
    redirectUrl: CONFIRMATION_PATH,
  });
}

export function useCreatePaymentLink() {
  return useMutation({ mutationFn: createPaymentLink });
}
