import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FunctionInput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { accountKeys } from '../../../lib/query-keys.ts';

/** Marketing consent (issue 37 part 2, decision 074): /account's card and the public form. */
export const consentQueryOptions = () =>
  queryOptions({
    queryKey: accountKeys.consent,
    queryFn: ({ signal }) => functionsClient.call('getMyConsent', null, { signal }),
  });

export function useConsent() {
  return useQuery(consentQueryOptions());
}

export function useSetConsent() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: FunctionInput<'setMyConsent'>) => functionsClient.call('setMyConsent', input),
    onSuccess: (consent) => queryClient.setQueryData(accountKeys.consent, consent),
  });
}

export function useSubscribeToNews() {
  return useMutation({ mutationFn: (input: FunctionInput<'subscribeToNews'>) => functionsClient.call('subscribeToNews', input) });
}
