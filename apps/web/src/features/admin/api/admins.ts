import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { AdminAccount, SetAdminInput } from '@storefront/domain/console.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import { activityQueryOptions } from './admin-activity.ts';

export function listAdmins(signal?: AbortSignal): Promise<{ admins: AdminAccount[] }> {
  return functionsClient.call<{ admins: AdminAccount[] }>('listAdmins', null, { signal });
}

export const adminsQueryOptions = () => queryOptions({ queryKey: ['admin', 'admins'], queryFn: ({ signal }) => listAdmins(signal), staleTime: 0 });

export function useAdmins() {
  return useQuery(adminsQueryOptions());
}

/** Grants or revokes admin; the list and the activity refetch. */
export function useSetAdmin() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: SetAdminInput) => functionsClient.call<{ changed: boolean }>('setAdmin', input),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: adminsQueryOptions().queryKey });
      void queryClient.invalidateQueries({ queryKey: activityQueryOptions().queryKey });
    },
  });
}
