import { queryOptions, useQuery } from '@tanstack/react-query';
import { functionsClient } from '../../../lib/api-client.ts';
import { salesOverviewKeys } from '../../../lib/query-keys.ts';

export function getSalesOverview(days: number, signal?: AbortSignal) {
  return functionsClient.call('getSalesOverview', { days }, { signal });
}

// Under View Orders' key: the live 'all-orders' topic refetches it.
export const salesOverviewQueryOptions = (days: number) =>
  queryOptions({ queryKey: salesOverviewKeys.days(days), queryFn: ({ signal }) => getSalesOverview(days, signal), staleTime: 0 });

export function useSalesOverview(days: number) {
  return useQuery(salesOverviewQueryOptions(days));
}
