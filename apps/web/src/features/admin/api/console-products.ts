import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { MoveProductInput, SetProductActiveInput } from '@storefront/domain/console.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { LIVE_QUERY_KEYS } from '../../../lib/live.ts';
import { productListKeys } from '../../../lib/query-keys.ts';
import { activityQueryOptions } from './admin-activity.ts';

/** Every product, withdrawn ones too, in the shop's order (admins only). */
export function listAllProducts(signal?: AbortSignal) {
  return functionsClient.call('listAllProducts', null, { signal });
}

// Under the shop's list key: the live 'products' topic refetches every open console.
export const allProductsQueryOptions = () => queryOptions({ queryKey: productListKeys.console, queryFn: ({ signal }) => listAllProducts(signal), staleTime: 0 });

export function useAllProducts() {
  return useQuery(allProductsQueryOptions());
}

function useConsoleMutation<Input>(call: (input: Input) => Promise<unknown>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSettled: () => {
      for (const queryKey of LIVE_QUERY_KEYS.products) void queryClient.invalidateQueries({ queryKey });
      void queryClient.invalidateQueries({ queryKey: activityQueryOptions().queryKey });
    },
  });
}

/** Makes a product a gift card or an ordinary one again (issue 27, decision 053). */
export const useSetProductGiftCard = () => useConsoleMutation((input: { productId: string; giftCard: boolean }) => functionsClient.call('setProductGiftCard', input));

export const useSetProductActive = () => useConsoleMutation((input: SetProductActiveInput) => functionsClient.call('setProductActive', input));

export function useMoveProduct() {
  const queryClient = useQueryClient();
  const mutation = useConsoleMutation((input: MoveProductInput) => functionsClient.call('moveProduct', input));
  return {
    ...mutation,
    /** Moves it on screen at once; the refetch then shows the server's order. */
    move: (input: MoveProductInput) => {
      const { queryKey } = allProductsQueryOptions();
      queryClient.setQueryData(queryKey, (data) => {
        if (!data) return data;
        const list = [...data.products];
        const from = list.findIndex((product) => product.id === input.id);
        if (from < 0) return data;
        const [moved] = list.splice(from, 1);
        list.splice(input.position, 0, moved!);
        return { products: list };
      });
      return mutation.mutateAsync(input);
    },
  };
}

export const useDeleteProduct = () => useConsoleMutation((id: string) => functionsClient.call('deleteProduct', { id }));
