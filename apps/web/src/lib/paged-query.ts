import { infiniteQueryOptions, type QueryKey } from '@tanstack/react-query';

/** What a keyset list call takes: how many, and after which cursor (absent: the first page). */
export interface PageRequest {
  limit: number;
  after?: string;
}

/**
 * A list read a page at a time, newest first, each page after the last one's cursor (My Orders,
 * View Orders, the console's activity). Never fresh from the cache: the live topics refetch
 * every loaded page.
 */
export function pagedQueryOptions<Page extends { next: string | null }, Key extends QueryKey>(
  queryKey: Key,
  limit: number,
  fetchPage: (page: PageRequest, signal: AbortSignal) => Promise<Page>,
) {
  return infiniteQueryOptions({
    queryKey,
    queryFn: ({ pageParam, signal }) => fetchPage(pageParam ? { limit, after: pageParam } : { limit }, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next,
    staleTime: 0,
  });
}
