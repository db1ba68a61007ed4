import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { FunctionInput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { LIVE_QUERY_KEYS } from '../../../lib/live.ts';
import { activityQueryOptions } from './admin-activity.ts';

/** A category change (decision 046); this browser's shop, forms and console refetch at once, others through the 'products' topic. */
function useCategoryMutation<Input, Output>(call: (input: Input) => Promise<Output>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSettled: () => {
      for (const queryKey of LIVE_QUERY_KEYS.products) void queryClient.invalidateQueries({ queryKey });
      void queryClient.invalidateQueries({ queryKey: activityQueryOptions().queryKey });
    },
  });
}

export const useCreateCategory = () => useCategoryMutation((input: FunctionInput<'createCategory'>) => functionsClient.call('createCategory', input));
export const useRenameCategory = () => useCategoryMutation((input: FunctionInput<'renameCategory'>) => functionsClient.call('renameCategory', input));
export const useMoveCategory = () => useCategoryMutation((input: FunctionInput<'moveCategory'>) => functionsClient.call('moveCategory', input));
export const useDeleteCategory = () => useCategoryMutation((input: FunctionInput<'deleteCategory'>) => functionsClient.call('deleteCategory', input));
