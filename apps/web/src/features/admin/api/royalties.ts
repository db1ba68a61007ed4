import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FunctionInput, FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { royaltyKeys } from '../../../lib/query-keys.ts';
import { activityQueryOptions } from './admin-activity.ts';

/** The Roster tab's Royalties section (issue 36 parts 2-3, decision 075). */
export type Royalties = FunctionOutput<'listRoyalties'>;

export const royaltiesQueryOptions = () => queryOptions({ queryKey: royaltyKeys.console, queryFn: ({ signal }) => functionsClient.call('listRoyalties', null, { signal }) });

export const useRoyalties = () => useQuery(royaltiesQueryOptions());

function useRoyaltyMutation<Input, Output>(call: (input: Input) => Promise<Output>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: royaltyKeys.console });
      void queryClient.invalidateQueries({ queryKey: activityQueryOptions().queryKey });
    },
  });
}

export const useSaveRoyaltyParty = () => useRoyaltyMutation((input: FunctionInput<'saveRoyaltyParty'>) => functionsClient.call('saveRoyaltyParty', input));
export const useSetRoyaltySplit = () => useRoyaltyMutation((input: FunctionInput<'setRoyaltySplit'>) => functionsClient.call('setRoyaltySplit', input));
export const useAddRecoupCost = () => useRoyaltyMutation((input: FunctionInput<'addRecoupCost'>) => functionsClient.call('addRecoupCost', input));
