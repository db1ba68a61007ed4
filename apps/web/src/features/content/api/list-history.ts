import { queryOptions, useQuery } from '@tanstack/react-query';
import { functionsClient } from '../../../lib/api-client.ts';
import type { TimelineEntry } from '../types.ts';

/** Oldest first; the timeline has about 35 entries (spec section 2), so one page holds them all. */
const TIMELINE_QUERY = {
  orderBy: [{ field: 'releasedOn', direction: 'asc' }],
  limit: 100,
} as const;

export async function listHistory(signal?: AbortSignal): Promise<TimelineEntry[]> {
  const result = await functionsClient.call<{ entries: TimelineEntry[] }>('listHistory', TIMELINE_QUERY, {
    ...(signal ? { signal } : {}),
  });
  return result.entries;
}

export const historyQueryOptions = () =>
  queryOptions({
    queryKey: ['history'],
    queryFn: ({ signal }) => listHistory(signal),
  });

export function useHistory() {
  return useQuery(historyQueryOptions());
}
