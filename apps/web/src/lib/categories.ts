import { queryOptions, useQuery } from '@tanstack/react-query';
import { functionsClient } from './api-client.ts';
import { productListKeys } from './query-keys.ts';

/**
 * The shop's categories in their order (issue 29 item 3, decision 046): the shop's filter, the
 * release and edit forms and the console's list all read this one query.
 */
export const categoriesQueryOptions = () =>
  queryOptions({
    queryKey: productListKeys.categories,
    queryFn: async ({ signal }) => (await functionsClient.call('listCategories', null, { signal })).categories,
    staleTime: 60_000,
  });

export function useCategories() {
  return useQuery(categoriesQueryOptions());
}
