import { queryOptions, useQuery } from '@tanstack/react-query';
import type { FunctionInput, FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { digitalKeys } from '../../../lib/query-keys.ts';

/** A published release as its page shows it (issue 28). */
export type MusicRelease = NonNullable<FunctionOutput<'getRelease'>['release']>;
export type LibraryRelease = FunctionOutput<'getLibrary'>['releases'][number];

export const releaseQueryOptions = (id: number) =>
  queryOptions({
    queryKey: digitalKeys.release(id),
    queryFn: ({ signal }) => functionsClient.call('getRelease', { id }, { signal }),
  });

export function useMusicRelease(id: number) {
  return useQuery(releaseQueryOptions(id));
}

export const libraryQueryOptions = () =>
  queryOptions({
    queryKey: digitalKeys.library,
    queryFn: ({ signal }) => functionsClient.call('getLibrary', null, { signal }),
  });

export function useLibrary(enabled: boolean) {
  return useQuery({ ...libraryQueryOptions(), enabled });
}

export function redeemCode(code: string) {
  return functionsClient.call('redeemDownloadCode', { code });
}

export function createDownloadLink(input: FunctionInput<'createDownloadLink'>) {
  return functionsClient.call('createDownloadLink', input);
}
