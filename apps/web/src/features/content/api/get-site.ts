import { queryOptions, useQuery } from '@tanstack/react-query';
import { getJson } from '../../../lib/api-client.ts';

export interface SiteInfo {
  contactEmail: string;
}

export function getSite(signal?: AbortSignal): Promise<SiteInfo> {
  return getJson<SiteInfo>('/api/site', { signal });
}

export const siteQueryOptions = () =>
  queryOptions({
    queryKey: ['site'],
    queryFn: ({ signal }) => getSite(signal),
  });

export function useSite() {
  return useQuery(siteQueryOptions());
}
