import { queryOptions, useQuery } from '@tanstack/react-query';
import type { FunctionInput } from '@storefront/domain/contracts/index.ts';
import { functionsClient } from '../../../lib/api-client.ts';
import type { TimelineEntry } from '../types.ts';
import { historyKeys } from '../../../lib/query-keys.ts';

/** Oldest first; the timeline has about 35 entries (spec section 2), so one page holds them all. */
const TIMELINE_QUERY: FunctionInput<'listHistory'> = {
  orderBy: [{ field: 'releasedOn', direction: 'asc' }],
  limit: 100,
};

export async function listHistory(signal?: AbortSignal): Promise<TimelineEntry[]> {
  const result = await functionsClient.call('listHistory', TIMELINE_QUERY, {
    ...(signal ? { signal } : {}),
  });
  return result.entries;
}

export const historyQueryOptions = () =>
  queryOptions({
    queryKey: historyKeys.all,
    queryFn: ({ signal }) => listHistory(signal),
  });

export function useHistory() {
  return useQuery(historyQueryOptions());
}
