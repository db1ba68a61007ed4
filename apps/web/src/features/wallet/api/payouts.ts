import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { functionsClient } from '../../../lib/api-client.ts';
import { walletKeys } from '../../../lib/query-keys.ts';

// Under the wallet's key, so the live wallet topic refreshes it too.
export const cashoutQueryOptions = () =>
  queryOptions({
    queryKey: walletKeys.cashout,
    queryFn: ({ signal }) => functionsClient.call('getCashout', null, { signal }),
    staleTime: 0,
  });

export function useCashout() {
  return useQuery(cashoutQueryOptions());
}

/** Creates (once) the payout account and opens the provider's onboarding in a new tab. */
export async function openPayoutOnboarding(): Promise<void> {
  // Opened at once, inside the click, so pop-up blockers let it through; pointed at the link after.
  const tab = window.open('about:blank', '_blank');
  try {
    const { url } = await functionsClient.call('createStripeOnboardingLinkIOS', null);
    if (tab) {
      tab.opener = null;
      tab.location.href = url;
    } else {
      window.location.assign(url);
    }
  } catch (error) {
    tab?.close();
    throw error;
  }
}

export function useRequestPayout() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (amountCents?: number) => functionsClient.call('requestPayout', amountCents ? { amountCents } : null),
    onSettled: () => queryClient.invalidateQueries({ queryKey: walletKeys.all }),
  });
}
