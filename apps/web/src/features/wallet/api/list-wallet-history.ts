import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import type { FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { walletKeys } from '../../../lib/query-keys.ts';

/** A page of the signed-in user's ledger: the listWalletHistory contract's answer. */
export type WalletHistoryPage = FunctionOutput<'listWalletHistory'>;
export type WalletHistoryEntry = WalletHistoryPage['entries'][number];

export const WALLET_HISTORY_PAGE_SIZE = 20;

// The live 'wallet' topic refetches every loaded page (lib/live.ts).
export const walletHistoryQueryOptions = () =>
  infiniteQueryOptions({
    queryKey: walletKeys.history,
    queryFn: ({ pageParam, signal }) =>
      functionsClient.call('listWalletHistory', pageParam ? { limit: WALLET_HISTORY_PAGE_SIZE, after: pageParam } : { limit: WALLET_HISTORY_PAGE_SIZE }, { signal }),
    initialPageParam: null as number | null,
    getNextPageParam: (last) => last.next,
  });

export function useWalletHistory() {
  return useInfiniteQuery(walletHistoryQueryOptions());
}
