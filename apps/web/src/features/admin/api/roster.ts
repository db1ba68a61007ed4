import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FunctionInput, FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { productListKeys, rosterKeys } from '../../../lib/query-keys.ts';
import { activityQueryOptions } from './admin-activity.ts';

/** The console's Roster tab (issue 36, decision 070): artists with what names them, and releases no artist is credited on. */
export type ConsoleArtist = FunctionOutput<'listRoster'>['artists'][number];

export const rosterQueryOptions = () => queryOptions({ queryKey: rosterKeys.console, queryFn: ({ signal }) => functionsClient.call('listRoster', null, { signal }) });

export const useRoster = () => useQuery(rosterQueryOptions());

/** A roster change: the tab, the public artist pages and the shop's artist filter refetch, and the activity list. */
function useRosterMutation<Input, Output>(call: (input: Input) => Promise<Output>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: rosterKeys.all });
      void queryClient.invalidateQueries({ queryKey: productListKeys.all });
      void queryClient.invalidateQueries({ queryKey: activityQueryOptions().queryKey });
    },
  });
}

export const useSaveArtist = () => useRosterMutation((input: FunctionInput<'saveArtist'>) => functionsClient.call('saveArtist', input));
export const useLinkArtist = () => useRosterMutation((input: FunctionInput<'linkArtist'>) => functionsClient.call('linkArtist', input));
export const useMergeArtist = () => useRosterMutation((input: FunctionInput<'mergeArtist'>) => functionsClient.call('mergeArtist', input));
export const useDeleteArtist = () => useRosterMutation((input: FunctionInput<'deleteArtist'>) => functionsClient.call('deleteArtist', input));
