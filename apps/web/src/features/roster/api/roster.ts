import { queryOptions, useQuery } from '@tanstack/react-query';
import type { FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { rosterKeys } from '../../../lib/query-keys.ts';

/** An artist as their page shows them (issue 36, decision 070). */
export type PublicArtist = NonNullable<FunctionOutput<'getArtist'>['artist']>;
export type ArtistCard = FunctionOutput<'listArtists'>['artists'][number];

export const artistQueryOptions = (slug: string) =>
  queryOptions({
    queryKey: rosterKeys.artist(slug),
    queryFn: ({ signal }) => functionsClient.call('getArtist', { slug }, { signal }),
  });

export function useArtist(slug: string) {
  return useQuery(artistQueryOptions(slug));
}

export const artistsQueryOptions = () =>
  queryOptions({
    queryKey: rosterKeys.list,
    queryFn: ({ signal }) => functionsClient.call('listArtists', null, { signal }),
  });

export function useArtists() {
  return useQuery(artistsQueryOptions());
}
