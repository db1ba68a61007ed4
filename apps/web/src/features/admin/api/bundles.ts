import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FunctionInput, FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { productListKeys } from '../../../lib/query-keys.ts';
import { activityQueryOptions } from './admin-activity.ts';

/** The console's bundles and the products a bundle may take (issue 27, decision 055). */
export type BundleList = FunctionOutput<'listBundles'>;

const bundleKeys = { all: ['console', 'bundles'] as const };

export const bundlesQueryOptions = () =>
  queryOptions({
    queryKey: bundleKeys.all,
    queryFn: () => functionsClient.call('listBundles', null),
  });

export function useBundles() {
  return useQuery(bundlesQueryOptions());
}

export function useSaveBundle() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: FunctionInput<'saveBundle'>) => functionsClient.call('saveBundle', input),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: bundleKeys.all });
      void queryClient.invalidateQueries({ queryKey: productListKeys.all });
      void queryClient.invalidateQueries({ queryKey: activityQueryOptions().queryKey });
    },
  });
}
