import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FunctionInput, FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { dropKeys } from '../../../lib/query-keys.ts';
import { activityQueryOptions } from './admin-activity.ts';

/** A drop as the console shows it (issue 35, decision 066). */
export type ConsoleDrop = FunctionOutput<'listDrops'>['drops'][number];
export type DropReport = FunctionOutput<'getDropReport'>;

export const consoleDropsQueryOptions = () =>
  queryOptions({
    queryKey: dropKeys.console,
    queryFn: async () => (await functionsClient.call('listDrops', null)).drops,
    // Entrants and admissions move during a drop: fresh when looked at again, and every 10 s while open.
    refetchOnWindowFocus: true,
    refetchInterval: 10_000,
  });

export const useConsoleDrops = () => useQuery(consoleDropsQueryOptions());

export const useDropReport = (dropId: string) =>
  useQuery({ queryKey: dropKeys.report(dropId), queryFn: () => functionsClient.call('getDropReport', { dropId }), refetchInterval: 10_000 });

export const useWaitingDemand = () =>
  useQuery({ queryKey: dropKeys.demand, queryFn: async () => (await functionsClient.call('getWaitingDemand', null)).variants, refetchOnWindowFocus: true });

export const getDropReportCsv = (dropId: string) => functionsClient.call('getDropReportCsv', { dropId });

function useDropMutation<Input, Output>(call: (input: Input) => Promise<Output>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: dropKeys.console });
      void queryClient.invalidateQueries({ queryKey: dropKeys.open });
      void queryClient.invalidateQueries({ queryKey: activityQueryOptions().queryKey });
    },
  });
}

export const useScheduleDrop = () => useDropMutation((input: FunctionInput<'scheduleDrop'>) => functionsClient.call('scheduleDrop', input));
export const useEditDrop = () => useDropMutation((input: FunctionInput<'editDrop'>) => functionsClient.call('editDrop', input));
export const useCancelDrop = () => useDropMutation((input: FunctionInput<'cancelDrop'>) => functionsClient.call('cancelDrop', input));
export const usePostponeDrop = () => useDropMutation((input: FunctionInput<'postponeDrop'>) => functionsClient.call('postponeDrop', input));
