import { queryOptions, useQuery } from '@tanstack/react-query';
import { functionsClient } from '../../../lib/api-client.ts';
import { salesOverviewKeys } from '../../../lib/query-keys.ts';

/** The last `days` days, or the days `from`..`to`, in the label's time zone (decision 045). */
export type SalesPeriod = { days: number } | { from: string; to: string };

export function getSalesOverview(period: SalesPeriod, signal?: AbortSignal) {
  return functionsClient.call('getSalesOverview', period, { signal });
}

// Under View Orders' key: the live 'all-orders' topic refetches it.
export const salesOverviewQueryOptions = (period: SalesPeriod) =>
  queryOptions({ queryKey: salesOverviewKeys.period(period), queryFn: ({ signal }) => getSalesOverview(period, signal), staleTime: 0 });

export function useSalesOverview(period: SalesPeriod) {
  return useQuery({ ...salesOverviewQueryOptions(period), placeholderData: (previous) => previous });
}
