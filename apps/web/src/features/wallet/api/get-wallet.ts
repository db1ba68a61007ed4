import { queryOptions, useQuery } from '@tanstack/react-query';
import { FunctionsError } from '@storefront/sdk/callable.ts';
import { functionsClient } from '../../../lib/api-client.ts';

/** One edition of a DAT the user owns (only editions 1 to 20 count, spec section 9). */
export interface OwnedDat {
  id: string;
  edition: number;
  songName: string;
  artistName: string;
  artworkUrl: string;
  sold: number;
  royaltiesCents: number;
  earningsCents: number;
}

/** The signed-in user's wallet with the spec's section 9 figures worked out by the server. */
export interface Wallet {
  balanceCents: number;
  heldCents: number;
  balanceCredits: number;
  creditsTotal: number;
  earnedCreditShare: number;
  earningsUsd: number;
  utilityPriceCents: number;
  tokenValueUsd: number;
  claimableTokens: number;
  claimableUsd: number;
  rewardTokens: number;
  rewards: number;
  ownedDats: OwnedDat[];
}

export function getWallet(signal?: AbortSignal): Promise<Wallet> {
  return functionsClient.call<Wallet>('getWallet', null, { signal });
}

/** Errors that asking again will not fix. */
export function isFinalWalletError(error: unknown): boolean {
  return error instanceof FunctionsError && ['not-found', 'invalid-argument', 'unauthenticated', 'permission-denied'].includes(error.code);
}

// ['wallet']: the live 'wallet' topic refetches it (lib/live.ts), so the page never needs a reload.
export const walletQueryOptions = () =>
  queryOptions({
    queryKey: ['wallet'],
    queryFn: ({ signal }) => getWallet(signal),
    // Money: a return to the page asks again, whatever the app-wide default.
    staleTime: 0,
    retry: (failureCount, error) => !isFinalWalletError(error) && failureCount < 1,
  });

export function useWallet() {
  return useQuery(walletQueryOptions());
}
