import { queryOptions, useQuery } from '@tanstack/react-query';
import { getJson } from './api-client.ts';
import { siteKeys } from './query-keys.ts';

/** The shop's public settings (`GET /api/site`): the contact page and the signup form read them. */
export interface SiteInfo {
  contactEmail: string;
  /** Signup refuses these email domains; the form checks them in the same order as the server. */
  blockedEmailDomains: string[];
}

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
