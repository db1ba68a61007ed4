import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ReadOutput } from '@storefront/domain/contracts/rest.ts';
import { getJson } from './api-client.ts';
import { siteKeys } from './query-keys.ts';

/**
 * The shop's public settings (`GET /api/site`), as its contract says (decision 048): the
 * contact page and the signup form read them; signup checks the blocked domains in order.
 */
export type SiteInfo = ReadOutput<'readSite'>;

export function getSite(signal?: AbortSignal): Promise<SiteInfo> {
  return getJson<SiteInfo>('/api/site', { signal });
}

// Same shape as list-history.ts's historyQueryOptions by design: the usual key + fetch query, another call.
export const siteQueryOptions = () =>
  queryOptions({
    queryKey: siteKeys.all,
    queryFn: ({ signal }) => getSite(signal),
  });

export function useSite() {
  return useQuery(siteQueryOptions());
}
