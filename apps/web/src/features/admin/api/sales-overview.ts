import { queryOptions, useQuery } from '@tanstack/react-query';
import type { SalesOverview } from '@storefront/domain/console.ts';
import { functionsClient } from '../../../lib/api-client.ts';

export function getSalesOverview(days: number, signal?: AbortSignal): Promise<SalesOverview> {
  return functionsClient.call<SalesOverview>('getSalesOverview', { days }, { signal });
}

// Under ['orders']: the live order topics refetch it.
export const salesOverviewQueryOptions = (days: number) =>
  queryOptions({ queryKey: ['orders', 'open', 'sales', days], queryFn: ({ signal }) => getSalesOverview(days, signal), staleTime: 0 });

export function useSalesOverview(days: number) {
  return useQuery(salesOverviewQueryOptions(days));
}
