import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import { functionsClient } from '../../../lib/api-client.ts';
import { consoleKeys } from '../../../lib/query-keys.ts';

export const ACTIVITY_PAGE_SIZE = 25;

/** The console's activity list: every admin action, newest first. */
export function listAdminActivity(page: { limit: number; after?: string }, signal?: AbortSignal) {
  return functionsClient.call('listAdminActivity', page, { signal });
}

export const activityQueryOptions = () =>
  infiniteQueryOptions({
    queryKey: consoleKeys.activity,
    queryFn: ({ pageParam, signal }) => listAdminActivity(pageParam ? { limit: ACTIVITY_PAGE_SIZE, after: pageParam } : { limit: ACTIVITY_PAGE_SIZE }, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next,
    staleTime: 0,
  });

export function useAdminActivity() {
  return useInfiniteQuery(activityQueryOptions());
}
