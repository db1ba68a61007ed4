import { queryOptions, useQuery } from '@tanstack/react-query';
import { getJson } from '../../../lib/api-client.ts';
import { readHomeContent, readSections, type PageResponse } from '../types.ts';

export type PageSlug = 'home' | 'about' | 'privacy-policy';

export function getPage(slug: PageSlug, signal?: AbortSignal): Promise<PageResponse> {
  return getJson<PageResponse>(`/api/pages/${slug}`, { signal });
}

/** The cache holds the raw response (the footer reads the home copyright from the same entry). */
export const pageQueryOptions = (slug: PageSlug) =>
  queryOptions({
    queryKey: ['pages', slug],
    queryFn: ({ signal }) => getPage(slug, signal),
  });

export function useHomeContent() {
  return useQuery({ ...pageQueryOptions('home'), select: (page) => readHomeContent(page.body) });
}

export function usePageSections(slug: Exclude<PageSlug, 'home'>) {
  return useQuery({ ...pageQueryOptions(slug), select: (page) => readSections(page.body) });
}
