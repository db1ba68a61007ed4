import { useQuery } from '@tanstack/react-query';
import { getJsonOrNull } from '../../lib/api-client.ts';
import { pageKeys } from '../../lib/query-keys.ts';

export const DEFAULT_COPYRIGHT = '© Street Flavor Records';

interface PageResponse {
  body?: { copyright?: unknown };
}

/**
 * The copyright line of the home page content. The key and the raw response are the
 * same as the content area's page query, so the home page and the footer share one request.
 * Until `fetch` is true only what is already cached shows: the footer asks when it comes
 * near the screen, so a page's first load does not wait behind it.
 */
export function useCopyright(fetch: boolean): string {
  const { data } = useQuery({
    queryKey: pageKeys.one('home'),
    queryFn: ({ signal }) => getJsonOrNull<PageResponse>('/api/pages/home', { signal }),
    select: (page) => (typeof page?.body?.copyright === 'string' ? page.body.copyright : undefined),
    enabled: fetch,
  });
  return data ? data : DEFAULT_COPYRIGHT;
}
