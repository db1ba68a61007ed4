import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { attentionKeys } from '../../../lib/query-keys.ts';

/** One thing the money reconciler found (decision 044). */
export type AttentionItem = FunctionOutput<'listNeedsAttention'>['items'][number];

export const needsAttentionQueryOptions = () =>
  queryOptions({
    queryKey: attentionKeys.list(true),
    queryFn: async () => (await functionsClient.call('listNeedsAttention', { open: true })).items,
    // The reconciler runs every minute.
    refetchInterval: 60_000,
  });

export function useNeedsAttention() {
  return useQuery(needsAttentionQueryOptions());
}

/** A person looked at it and put it right: it leaves the list. */
export function useResolveAttention() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => functionsClient.call('resolveNeedsAttention', { id }),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: attentionKeys.all }),
  });
}
