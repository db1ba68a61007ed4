import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FunctionInput, FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { digitalKeys } from '../../../lib/query-keys.ts';

/** The console's digital releases (issue 28): releases with their tracks' encoding progress, and download codes. */
export type ConsoleRelease = FunctionOutput<'listReleases'>['releases'][number];
export type ConsoleCode = FunctionOutput<'listDownloadCodes'>['codes'][number];

const busy = (releases: ConsoleRelease[] | undefined) =>
  releases?.some((release) => release.tracks.some((track) => track.encodeStatus === 'queued' || track.encodeStatus === 'encoding')) ?? false;

export const consoleReleasesQueryOptions = () =>
  queryOptions({
    queryKey: digitalKeys.console,
    queryFn: ({ signal }) => functionsClient.call('listReleases', null, { signal }),
    // Encoding progress: asked again every 2 s while a track is queued or encoding.
    refetchInterval: (query) => (busy(query.state.data?.releases) ? 2000 : false),
  });

export const useConsoleReleases = () => useQuery(consoleReleasesQueryOptions());

export const codesQueryOptions = (releaseId: number) =>
  queryOptions({ queryKey: digitalKeys.codes(releaseId), queryFn: ({ signal }) => functionsClient.call('listDownloadCodes', { releaseId }, { signal }) });

function useDigitalMutation<Input, Output>(call: (input: Input) => Promise<Output>) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: call, onSettled: () => void queryClient.invalidateQueries({ queryKey: digitalKeys.all }) });
}

export const useSaveRelease = () => useDigitalMutation((input: FunctionInput<'saveRelease'>) => functionsClient.call('saveRelease', input));
export const useSetTrackMaster = () => useDigitalMutation((input: FunctionInput<'setTrackMaster'>) => functionsClient.call('setTrackMaster', input));
export const useRetryEncoding = () => useDigitalMutation((input: FunctionInput<'retryTrackEncoding'>) => functionsClient.call('retryTrackEncoding', input));
export const useCreateCodes = () => useDigitalMutation((input: FunctionInput<'createDownloadCodes'>) => functionsClient.call('createDownloadCodes', input));
export const useSetProductRelease = () => useDigitalMutation((input: FunctionInput<'setProductRelease'>) => functionsClient.call('setProductRelease', input));
