import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import { functionsClient } from '../../../lib/api-client.ts';

/** One ledger entry of the signed-in user's wallet (listWalletHistory). */
export interface WalletHistoryEntry {
  id: number;
  kind: 'grant' | 'debit' | 'hold' | 'capture' | 'release' | 'refund';
  createdAt: string;
  amountCents: number;
  heldCents: number;
  balanceCents: number;
  note: string;
  order: { id: string; paymentIntentId: string } | null;
}

export interface WalletHistoryPage {
  entries: WalletHistoryEntry[];
  next: number | null;
}

export const WALLET_HISTORY_PAGE_SIZE = 20;

// ['wallet', 'history']: the live 'wallet' topic refetches every loaded page (lib/live.ts).
export const walletHistoryQueryOptions = () =>
  infiniteQueryOptions({
    queryKey: ['wallet', 'history'],
    queryFn: ({ pageParam, signal }) =>
      functionsClient.call<WalletHistoryPage>('listWalletHistory', pageParam ? { limit: WALLET_HISTORY_PAGE_SIZE, after: pageParam } : { limit: WALLET_HISTORY_PAGE_SIZE }, { signal }),
    initialPageParam: null as number | null,
    getNextPageParam: (last) => last.next,
  });

export function useWalletHistory() {
  return useInfiniteQuery(walletHistoryQueryOptions());
}
