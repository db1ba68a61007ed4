import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FunctionInput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { consoleKeys } from '../../../lib/query-keys.ts';
import { activityQueryOptions } from './admin-activity.ts';

export function listAdmins(signal?: AbortSignal) {
  return functionsClient.call('listAdmins', null, { signal });
}

export const adminsQueryOptions = () => queryOptions({ queryKey: consoleKeys.admins, queryFn: ({ signal }) => listAdmins(signal), staleTime: 0 });

export function useAdmins() {
  return useQuery(adminsQueryOptions());
}

/** Grants or revokes admin; the list and the activity refetch. */
export function useSetAdmin() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: FunctionInput<'setAdmin'>) => functionsClient.call('setAdmin', input),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: adminsQueryOptions().queryKey });
      void queryClient.invalidateQueries({ queryKey: activityQueryOptions().queryKey });
    },
  });
}
