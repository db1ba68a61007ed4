import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FunctionInput, FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { accountKeys, productArtistKeys } from '../../../lib/query-keys.ts';

/** The fan's follows (issue 37, decision 074); a follow in another tab refetches them (live 'profile'). */
export type Follows = FunctionOutput<'listFollows'>;
export type FollowTarget = FunctionInput<'setFollow'>['target'];

export const followsQueryOptions = () =>
  queryOptions({
    queryKey: accountKeys.follows,
    queryFn: ({ signal }) => functionsClient.call('listFollows', null, { signal }),
  });

export function useFollows(enabled: boolean) {
  return useQuery({ ...followsQueryOptions(), enabled });
}

export function useSetFollow() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: FunctionInput<'setFollow'>) => functionsClient.call('setFollow', input),
    onSuccess: (follows) => queryClient.setQueryData(accountKeys.follows, follows),
  });
}

export const productArtistsQueryOptions = (productId: string) =>
  queryOptions({
    queryKey: productArtistKeys.one(productId),
    queryFn: ({ signal }) => functionsClient.call('listProductArtists', { productId }, { signal }).then((answer) => answer.artists),
  });

export function useProductArtists(productId: string) {
  return useQuery(productArtistsQueryOptions(productId));
}

export function isFollowing(follows: Follows | undefined, target: FollowTarget): boolean {
  if (!follows) return false;
  return target.kind === 'label' ? follows.label : follows.artists.some((artist) => artist.id === target.artistId);
}
