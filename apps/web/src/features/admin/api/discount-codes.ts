import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FunctionInput, FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { deskOrderKeys, discountCodeKeys } from '../../../lib/query-keys.ts';
import { activityQueryOptions } from './admin-activity.ts';

/** A discount code with its uses (issue 27, decision 052). */
export type DiscountCode = FunctionOutput<'listDiscountCodes'>['codes'][number];

export const discountCodesQueryOptions = () =>
  queryOptions({
    queryKey: discountCodeKeys.all,
    queryFn: async () => (await functionsClient.call('listDiscountCodes', null)).codes,
    // Uses change with every order: fresh when the tab is looked at again.
    refetchOnWindowFocus: true,
  });

export function useDiscountCodes() {
  return useQuery(discountCodesQueryOptions());
}

function useDiscountMutation<Input, Output>(call: (input: Input) => Promise<Output>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: discountCodeKeys.all });
      void queryClient.invalidateQueries({ queryKey: activityQueryOptions().queryKey });
    },
  });
}

export const useCreateDiscountCode = () => useDiscountMutation((input: FunctionInput<'createDiscountCode'>) => functionsClient.call('createDiscountCode', input));
export const useSetDiscountCodeActive = () => useDiscountMutation((input: FunctionInput<'setDiscountCodeActive'>) => functionsClient.call('setDiscountCodeActive', input));

/** The order desk: a fully refunded order's code use given back (the label's choice). */
export function useReturnDiscountUse(orderId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => functionsClient.call('returnDiscountUse', { orderId }),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: discountCodeKeys.all });
      void queryClient.invalidateQueries({ queryKey: deskOrderKeys.one(orderId) });
    },
  });
}
