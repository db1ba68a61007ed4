import { queryOptions, useQuery } from '@tanstack/react-query';
import { getJsonOrNull } from '../../../lib/api-client.ts';
import { readHomeContent, readSections, type PageResponse } from '../types.ts';
import { pageKeys } from '../../../lib/query-keys.ts';

export type PageSlug = 'home' | 'about' | 'privacy-policy';

/** The page, or null when the shop has none yet (a new production shop has no content). */
export function getPage(slug: PageSlug, signal?: AbortSignal): Promise<PageResponse | null> {
  return getJsonOrNull<PageResponse>(`/api/pages/${slug}`, { signal });
}

/**
 * The cache holds the raw response, or null for a page not written yet (the footer reads
 * the home copyright from the same entry, with the same key and fetcher).
 */
export const pageQueryOptions = (slug: PageSlug) =>
  queryOptions({
    queryKey: pageKeys.one(slug),
    queryFn: ({ signal }) => getPage(slug, signal),
  });

export function useHomeContent() {
  return useQuery({ ...pageQueryOptions('home'), select: (page) => readHomeContent(page?.body) });
}

export function usePageSections(slug: Exclude<PageSlug, 'home'>) {
  return useQuery({ ...pageQueryOptions(slug), select: (page) => readSections(page?.body) });
}
