import { queryOptions, useQuery } from '@tanstack/react-query';
import type { FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { FunctionsError } from '@storefront/sdk/callable.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { walletKeys } from '../../../lib/query-keys.ts';

/** The signed-in user's wallet with the spec's section 9 figures worked out by the server. */
export type Wallet = FunctionOutput<'getWallet'>;
/** One edition of a DAT the user owns (only editions 1 to 20 count, spec section 9). */
export type OwnedDat = Wallet['ownedDats'][number];

export function getWallet(signal?: AbortSignal): Promise<Wallet> {
  return functionsClient.call('getWallet', null, { signal });
}

/** Errors that asking again will not fix. */
export function isFinalWalletError(error: unknown): boolean {
  return error instanceof FunctionsError && ['not-found', 'invalid-argument', 'unauthenticated', 'permission-denied'].includes(error.code);
}

// The live 'wallet' topic refetches it (lib/live.ts), so the page never needs a reload.
export const walletQueryOptions = () =>
  queryOptions({
    queryKey: walletKeys.all,
    queryFn: ({ signal }) => getWallet(signal),
    // Money: a return to the page asks again, whatever the app-wide default.
    staleTime: 0,
    retry: (failureCount, error) => !isFinalWalletError(error) && failureCount < 1,
  });

export function useWallet() {
  return useQuery(walletQueryOptions());
}
