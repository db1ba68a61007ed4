import { useInfiniteQuery } from '@tanstack/react-query';
import { functionsClient } from '../../../lib/api-client.ts';
import { pagedQueryOptions, type PageRequest } from '../../../lib/paged-query.ts';
import { consoleKeys } from '../../../lib/query-keys.ts';

export const ACTIVITY_PAGE_SIZE = 25;

/** The console's activity list: every admin action, newest first. */
export function listAdminActivity(page: PageRequest, signal?: AbortSignal) {
  return functionsClient.call('listAdminActivity', page, { signal });
}

export const activityQueryOptions = () => pagedQueryOptions(consoleKeys.activity, ACTIVITY_PAGE_SIZE, listAdminActivity);

export function useAdminActivity() {
  return useInfiniteQuery(activityQueryOptions());
}
