import { queryOptions, useQuery, type QueryClient } from '@tanstack/react-query';
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

/** The period the Sales tab opens with. */
export const FIRST_SALES_PERIOD: SalesPeriod = { days: 30 };

/**
 * The first period's overview, asked for by the console page's own code once the session check
 * has answered (app/router.tsx, issue 39 item 18) rather than after the tab has rendered: only
 * when nothing is cached (a tab shown again keeps what it shows, as before).
 */
export function prefetchFirstSalesOverview(queryClient: QueryClient) {
  return queryClient.prefetchQuery({ ...salesOverviewQueryOptions(FIRST_SALES_PERIOD), staleTime: Infinity, retry: false });
}

/**
 * Fetched this recently (that prefetch), the overview is not asked for again as the tab mounts,
 * unless the live stream has marked it since (its first open refetches what was read before it).
 */
const JUST_FETCHED_MS = 5_000;

export function useSalesOverview(period: SalesPeriod) {
  return useQuery({
    ...salesOverviewQueryOptions(period),
    placeholderData: (previous) => previous,
    refetchOnMount: (query) => query.state.isInvalidated || Date.now() - query.state.dataUpdatedAt > JUST_FETCHED_MS,
  });
}
