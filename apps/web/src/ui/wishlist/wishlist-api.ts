import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../lib/api-client.ts';
import { accountKeys } from '../../lib/query-keys.ts';

/**
 * The fan's wishlist (issue 37 part 5, decision 076). A heart in another tab, and a stock
 * change (the item's state), refetch it (live 'profile' and 'products').
 */
export type Wishlist = FunctionOutput<'listWishlist'>;
export type WishlistItem = Wishlist['items'][number];

export const wishlistQueryOptions = () =>
  queryOptions({
    queryKey: accountKeys.wishlist,
    queryFn: ({ signal }) => functionsClient.call('listWishlist', null, { signal }),
  });

export function useWishlist(enabled: boolean) {
  return useQuery({ ...wishlistQueryOptions(), enabled });
}

export function useSetWishlisted() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { productId: string; wishlisted: boolean }) => functionsClient.call('setWishlisted', input),
    onSuccess: (wishlist) => queryClient.setQueryData(accountKeys.wishlist, wishlist),
  });
}
