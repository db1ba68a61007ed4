import { useMutation } from '@tanstack/react-query';
import type { FunctionInput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';

/** `checkoutId` is the same on every retry of one attempt: the server then makes at most one order. */
export type WalletOrderInput = FunctionInput<'completeWalletOnlyOrderStreetFlavor'>;

/** A wallet-only order (amount due 0): the server re-prices, debits the wallet and writes the order. */
export function placeWalletOrder(input: WalletOrderInput) {
  return functionsClient.call('completeWalletOnlyOrderStreetFlavor', input);
}

export function usePlaceWalletOrder() {
  return useMutation({ mutationFn: placeWalletOrder });
}
